// A process that outlives the one that starts it: work begun for later
// runs (a precompiled header) that a one-shot `hone eval` must neither wait
// for nor kill when it exits.
//
// The process gets a session of its own (no terminal; Ctrl-C and a kill of
// hone's process group leave it alone), its standard streams on /dev/null,
// and none of the starter's descriptors except `keep_fd`, which it receives
// as descriptor 3 (a held flock travels that way: the lock stays held until
// the detached process and its children have all exited). It is not a
// child of the starter (it is reparented at once), so nothing need reap it.
//
// Thread-safe: between fork and exec the children call only
// async-signal-safe functions.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

// Starts `argv` (searched on PATH like execvp) detached and returns its pid
// once it has been exec'd; Status::NotFound when the program cannot be run,
// Status::Internal when the process cannot be made.
Result<pid_t> SpawnDetached(const std::vector<std::string>& argv, int keep_fd = -1);

}  // namespace hone
