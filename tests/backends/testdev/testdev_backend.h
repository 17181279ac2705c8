// A device that exists only in the tests, to show that a device is one
// folder behind one narrow interface (run/backend.h) and that nothing in
// src/ need name it: "testdev" runs C++ candidates on a device of its own
// as far as the evaluator can tell. Its tasks are written for it (its
// tasks_as is its own name: a task's cases may say `backends = ["testdev"]`,
// and its reference is found as `testdev_reference`, by default
// reference.cpp), its memory is its own arena (testdev_arena.h: staged
// writes that complete at Sync) and its own trusted store
// (testdev_store.h), and it builds with a builder of its own (g++ -O1, its
// own build keys). Only its sandbox program is the CPU's, hone-sandbox,
// which maps its arena's host pages.
//
// Immutable once made; thread-safe as run/backend.h says.
#pragma once

#include <filesystem>
#include <memory>

#include "backends/testdev/testdev_counts.h"
#include "lang/language.h"
#include "run/backend_registry.h"

namespace hone::testing {

inline constexpr const char* kTestDevBackend = "testdev";

// Registers the kind "testdev": its candidates run in `sandbox`
// (hone-sandbox, which tests name rather than find); what its arenas and
// stores are asked is counted in `counts`.
void RegisterTestDevBackend(BackendRegistry& registry, std::filesystem::path sandbox,
                            std::shared_ptr<TestDevCounts> counts);

// C++ runs on the test device too: the C++ language of `languages` ("cpp")
// is registered again with the test device among its devices (after the
// CPU, which stays its default). Status::Invalid when `languages` has no
// C++.
Status RunCppOnTestDev(LanguageRegistry& languages);

}  // namespace hone::testing
