// The threads of the calling process, from /proc/self/task: a warm sandbox
// checks that warming started none but the CUDA driver's
// (sandbox/warm_start.cc), and a zygote forks only while it has one
// (sandbox/zygote.h).
//
// Reads /proc only; an unreadable name is "?". Any thread may call it.
#pragma once

#include <string>
#include <vector>

namespace hone::sandbox {

// Each thread's name (/proc/self/task/*/comm), one entry per thread.
std::vector<std::string> OwnThreadNames();

// The names as a message lists them: "a, b, c".
std::string NameList(const std::vector<std::string>& names);

}  // namespace hone::sandbox
