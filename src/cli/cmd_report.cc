// Placeholder until hone report is written.
#include "cli/commands.h"
namespace hone::cli {
Command RegisterReport(CLI::App& app) {
  app.add_subcommand("report", "(being written)");
  return [] { return 1; };
}
}  // namespace hone::cli
