// Temporary files and folders a process removes when it ends normally (by
// their owners' destructors) and, once InstallInterruptCleanup has run, also
// when Ctrl-C (SIGINT) or SIGTERM ends it: a Ctrl-C'd `hone eval` otherwise
// left /tmp/hone-oracle-*, /tmp/hone-compat-* and an oracle log behind.
//
// The signal handler only writes the signal's number to a pipe
// (async-signal-safe); a thread of its own reads it, removes what is
// registered, and ends the process as the signal would have (the default
// action, re-raised: exit status 130 for Ctrl-C in a shell). Nothing
// stored is lost: what hone stores is committed as it happens.
//
// Thread-safe. A command with a SIGINT handler of its own (`hone bench`'s
// hint, `hone optimize`'s graceful first Ctrl-C) installs the cleanup first,
// then its handler, and ends the process through EndAfterInterruptCleanup
// rather than by re-raising the signal itself.
#pragma once

#include <filesystem>

namespace hone {

// Installs the handlers for SIGINT and SIGTERM and starts the thread;
// calling it again does nothing.
void InstallInterruptCleanup();

// For a command's own handler, where it would end the process: hands `sig`
// to the cleanup's thread, which removes what is registered and then ends
// the process as `sig` would; the handler returns. Async-signal-safe. False
// when InstallInterruptCleanup has not run (or could not start): the caller
// then ends the process itself.
bool EndAfterInterruptCleanup(int sig);

// True once an interrupt is ending the process through the cleanup: the
// files of evaluations still running may vanish and their sandboxes die
// of the same Ctrl-C, so what they conclude is not a verdict (the store
// refuses it: Store::FinishEvaluation). Async-signal-safe.
bool InterruptEnding();
// For tests (in a child process: it cannot be undone): InterruptEnding()
// from now on, without ending anything.
void MarkInterruptEndingForTesting();

// Registers `path` (a file or a folder, removed recursively) to be removed
// if an interrupt ends the process; ForgetOnInterrupt once its owner has
// removed it. Cheap, and harmless when InstallInterruptCleanup never runs.
void RemoveOnInterrupt(const std::filesystem::path& path);
void ForgetOnInterrupt(const std::filesystem::path& path);

}  // namespace hone
