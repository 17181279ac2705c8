// Names for the system calls a sandbox is stopped for: the sandbox sends a
// call's number (wire::Reply, kViolation), and the worker, or the sandbox's
// own text reporter, turns it into the rule a person reads. One table, so
// both sides say the same.
#pragma once

#include <string>

namespace hone::wire {

// Names the rule a system call breaks, e.g. "process creation (fork/clone)
// is not allowed: clone"; nullptr for calls without a named rule.
// Async-signal-safe.
const char* RuleForSyscall(int nr);

// For the worker: the rule, or "system call not on the sandbox allow-list: NAME".
std::string DescribeViolation(int nr);

}  // namespace hone::wire
