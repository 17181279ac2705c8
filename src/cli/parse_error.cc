#include "cli/parse_error.h"

#include <cctype>

namespace hone::cli {
namespace {

// The subcommand the parse got furthest into (the app itself when none).
const CLI::App* Deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands())
    at = subs.front();
  return at;
}

// "hone task", "hone".
std::string CommandPath(const CLI::App* app) {
  std::string path;
  for (; app; app = app->get_parent())
    path = (app->get_parent() ? app->get_name() : std::string("hone")) +
           (path.empty() ? "" : " " + path);
  return path;
}

// "eval, bench, task" (the subcommands `app` takes).
std::string SubcommandNames(const CLI::App* app) {
  std::string names;
  auto named = [](const CLI::App* sub) { return !sub->get_name().empty(); };
  for (const CLI::App* sub : app->get_subcommands(named))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The first word left over that is not an option: what was given in place
// of a subcommand.
std::string FirstWord(const CLI::App* app) {
  for (const std::string& arg : app->remaining())
    if (!arg.empty() && arg[0] != '-') return arg;
  return "";
}

std::string Lowered(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

std::string ParseErrorMessage(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* at = Deepest(app);
  std::string path = CommandPath(at);
  std::string where = at == &app ? "" : path.substr(5) + ": ";  // "task: "
  bool wants_subcommand = at->get_require_subcommand_min() > 0 && at->get_subcommands().empty();
  if (wants_subcommand) {
    std::string word = FirstWord(at);
    if (!word.empty())
      return "hone: " + where + "unknown subcommand '" + word + "' (" + SubcommandNames(at) + "; " +
             path + " --help)";
    return "hone: " + where + "a subcommand is required (" + SubcommandNames(at) + "; " + path +
           " --help)";
  }
  std::string what = e.what();
  while (!what.empty() && std::isspace(static_cast<unsigned char>(what.back()))) what.pop_back();
  return "hone: " + where + Lowered(what) + " (" + path + " --help)";
}

}  // namespace hone::cli
