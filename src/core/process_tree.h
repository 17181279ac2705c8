// Which processes are this one's own: itself and its descendants (its
// sandboxes, its oracle, their children), as /proc tells. Used to tell
// hone's own contexts on a GPU from a neighbour's (cuda/gpu.h). A pid from
// another PID namespace (a driver's view from outside a container) is not
// found and counts as not ours. Thread-safe; reads /proc only.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace hone {

// The parent of `pid` from /proc/<pid>/stat; 0 when it is gone or unreadable.
pid_t ParentOf(pid_t pid);

// Whether `pid` is `root` or descends from it, following `parent_of` (at
// most 64 generations).
bool DescendsFrom(pid_t pid, pid_t root, const std::function<pid_t(pid_t)>& parent_of = ParentOf);

// The file name of the program `pid` runs (argv[0] from /proc/<pid>/cmdline,
// without its folder); empty when it is gone or unreadable. /proc's comm
// would cut a name at 15 characters.
std::string ProgramOf(pid_t pid);

// Every live process that descends from `root`, `root` itself left out, as
// /proc lists them now.
std::vector<pid_t> DescendantsOf(pid_t root);

}  // namespace hone
