// The sandbox program's serving loop: once the candidate is loaded and
// confined, reads the worker's requests (wire/protocol.h) and answers them:
// bind a set of tensors, call the candidate on one with the caches flushed
// and the clock read by the system call itself, exit. On CUDA the call is
// the device side's (sandbox/device_side.h). Also the functions the
// program exports to a compat shim during a call (hone_sandbox_mark_end,
// hone_sandbox_rng_seed).
//
// Compiled into each sandbox program (not into hone_sandbox_policy), the
// same code in each: the device a program has is linked in. Owns the bindings and their workspaces.
// Threads: the serving thread only. Failure: a malformed request ends the process (Die); a
// candidate that fails a call gets an error reply, and one that wrote around its workspace or left
// the device's context unusable ends the sandbox after saying so.
#pragma once

#include "sandbox/binding.h"
#include "sandbox/command_line.h"
#include "sandbox/device_side.h"

namespace hone::sandbox {

// Whether this sandbox runs a compat candidate (hone_sandbox_mark_end).
// Set by main before the candidate's library loads.
extern bool g_compat;

// Serves the worker's requests on o.ctl_in and o.ctl_out until it asks the
// sandbox to exit or goes away; the process ends there. `arena`: the tensors'
// memory; `before_call`: a compat shim's step before the clock, else null;
// `device`: the program's device (OpenDeviceSide), else null.
void ServeCalls(const Options& o, char* arena, ForwardFn forward, ForwardFn before_call,
                WorkspaceFn workspace, DeviceSide* device);

}  // namespace hone::sandbox
