// A backend that exists only in the tests, to show what adding one takes:
// this folder, one Backend subclass and one registration, and nothing in
// src/ names it. "testhost" runs C++ candidates on the host like the CPU
// backend (the same sandbox program, shared memory and host store: it
// reuses the CPU's device), but builds them its own way (g++ -O1, without
// -march=native, into builds of its own) and has its own name and label, so
// a verdict shows which backend ran it.
//
// Immutable once made; thread-safe as run/backend.h says.
#pragma once

#include <filesystem>

#include "run/backend_registry.h"

namespace hone::testing {

inline constexpr const char* kTestHostBackend = "testhost";

// Registers the kind "testhost": its candidates run in `sandbox`
// (hone-sandbox, which tests name rather than find). With `neighbours`, its
// device reports that many other processes on it (a simulated co-tenant:
// it makes no probe calls, so only what the neighbours decide is shown).
void RegisterTestHostBackend(BackendRegistry& registry, std::filesystem::path sandbox,
                             int neighbours = 0);

}  // namespace hone::testing
