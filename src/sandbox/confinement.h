// What the sandbox program applies to itself before it loads the candidate,
// in order, from its options: Landlock's rules opened (the read-only
// folders, the scratch folder, the character devices and, on CUDA, the
// GPU's), the network namespace, privileges dropped, Landlock applied, the
// violation reporter, the base seccomp filter (after the load for a compat
// candidate). The steps themselves are sandbox/policy.h's.
//
// Threads: the sandbox's one thread before the load (Landlock and the
// namespace bind it and its later children). Failure: what could not be
// applied is in the report, never skipped silently.
#pragma once

#include "sandbox/command_line.h"
#include "sandbox/policy.h"

namespace hone::sandbox {

// Network, user, Landlock and the base seccomp filter: everything that
// comes before the candidate's library is loaded.
PolicyReport ConfineBeforeLoad(const Options& o);

}  // namespace hone::sandbox
