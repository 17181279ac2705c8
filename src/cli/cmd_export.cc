// Placeholder until hone export is written.
#include "cli/commands.h"
namespace hone::cli {
Command RegisterExport(CLI::App& app) {
  app.add_subcommand("export", "(being written)");
  return [] { return 1; };
}
}  // namespace hone::cli
