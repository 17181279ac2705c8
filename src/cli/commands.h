// The subcommands. Each registers its flags on the app and returns the
// function that runs it; main.cc holds the table.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace hone::cli {

using Command = std::function<int()>;

Command RegisterEval(CLI::App& app);
Command RegisterBench(CLI::App& app);
Command RegisterTask(CLI::App& app);
Command RegisterMachine(CLI::App& app);
Command RegisterOptimize(CLI::App& app);
Command RegisterLint(CLI::App& app);
Command RegisterReport(CLI::App& app);
Command RegisterExport(CLI::App& app);
Command RegisterWorker(CLI::App& app);
Command RegisterServe(CLI::App& app);
Command RegisterLessons(CLI::App& app);
Command RegisterPrepare(CLI::App& app);
Command RegisterMcp(CLI::App& app);

}  // namespace hone::cli
