// hone: verified, fast kernels. The table of subcommands; each lives in its
// own cmd_*.cc file.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <map>

#include "cli/commands.h"
#include "cli/context.h"
#include "cli/parse_error.h"
#include "core/malloc_policy.h"

int main(int argc, char** argv) {
  using namespace hone::cli;
  hone::KeepFreedMemoryForReuse();
  // Named, so that usage lines say "hone", not the path it was started by.
  CLI::App app{"hone: writes fast GPU and CPU kernels and proves them correct", "hone"};
  app.require_subcommand(1);
#ifdef HONE_TEST_BUILD
  // scripts/test's build (-O1 on the trusted side): not one to install or time.
  app.set_version_flag("--version", std::string("hone ") + HONE_VERSION +
                                        " (a test build: rebuild with scripts/build to install)");
#else
  app.set_version_flag("--version", std::string("hone ") + HONE_VERSION);
#endif
  struct Entry {
    const char* name;
    Command (*reg)(CLI::App&);
  };
  const Entry kCommands[] = {
      {"eval", RegisterEval},       {"bench", RegisterBench},       {"task", RegisterTask},
      {"machine", RegisterMachine}, {"optimize", RegisterOptimize}, {"lint", RegisterLint},
      {"report", RegisterReport},   {"export", RegisterExport},     {"worker", RegisterWorker},
      {"serve", RegisterServe},     {"lessons", RegisterLessons},   {"prepare", RegisterPrepare},
      {"mcp", RegisterMcp},
  };
  std::map<std::string, Command> run;
  for (const auto& c : kCommands) run[c.name] = c.reg(app);
  // Read before parsing, so that a command line that does not parse still
  // answers --json with a JSON object.
  bool json = false;
  for (int i = 1; i < argc; ++i) json = json || std::strcmp(argv[i], "--json") == 0;
  JsonErrors(json);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = ParseErrorMessage(app, e);
    std::fprintf(stderr, "%s\n", message.c_str());
    if (json) std::printf("%s\n", JsonErrorObject(message, kExitUsage).c_str());
    return kExitUsage;
  }
  for (auto* sub : app.get_subcommands()) return run[sub->get_name()]();
  return kExitUsage;
}
