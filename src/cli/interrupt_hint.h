// What an interrupted command says on its way out: `hone bench` ended by
// Ctrl-C (SIGINT) prints how to continue its run, then ends as SIGINT
// would (exit status 130 in a shell). Everything stored is already
// committed, so nothing is lost by ending at once.
//
// The handler only writes the line set last and hands the signal to hone's
// interrupt cleanup (core/interrupt_cleanup.h), which removes the
// temporary files (an oracle's folder, a compat build's) before it ends the
// process: async-signal safe. Set from main's thread; the line is copied
// into a fixed buffer (longer lines are cut).
#pragma once

#include <string>

namespace hone::cli {

// Installs the interrupt cleanup (for SIGINT and SIGTERM), then the SIGINT
// handler, which writes `line` (a newline is added) on stderr before the
// cleanup ends the process. Calling it again replaces the line.
void SayOnInterrupt(const std::string& line);

}  // namespace hone::cli
