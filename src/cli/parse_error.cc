#include "cli/parse_error.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

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

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The name among `names` closest to `given` (a typo, or a prefix of three
// letters or more), or "" when none is close.
std::string Closest(const std::string& given, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, given.size() / 4) + 1;
  for (const std::string& name : names) {
    size_t d = name.rfind(given, 0) == 0 && given.size() >= 3 ? 1 : EditDistance(given, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

// " (did you mean --x?)" for the first unknown --flag that `message` (the
// parser's "the following argument(s) were not expected: ...") names, when
// it is close to one of `app`'s options (a typo, or a prefix); "" otherwise.
std::string DidYouMean(const CLI::App* app, const std::string& message) {
  size_t colon = message.find("not expected:");
  if (colon == std::string::npos) return "";
  std::istringstream words(message.substr(colon + 13));
  for (std::string arg; words >> arg;) {
    if (arg.rfind("--", 0) != 0) continue;
    std::string given =
        arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
    std::vector<std::string> names;
    for (const CLI::Option* opt : app->get_options())
      for (const std::string& name : opt->get_lnames()) names.push_back(name);
    std::string best = Closest(given, names);
    return best.empty() ? "" : " (did you mean --" + best + "?)";
  }
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
    if (!word.empty()) {
      std::vector<std::string> names;
      for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
      std::string best = Closest(word, names);
      return "hone: " + where + "unknown subcommand '" + word + "'" +
             (best.empty() ? "" : " (did you mean " + best + "?)") + " (" + SubcommandNames(at) +
             "; " + path + " --help)";
    }
    return "hone: " + where + "a subcommand is required (" + SubcommandNames(at) + "; " + path +
           " --help)";
  }
  std::string what = e.what();
  while (!what.empty() && std::isspace(static_cast<unsigned char>(what.back()))) what.pop_back();
  return "hone: " + where + Lowered(what) + DidYouMean(at, what) + " (" + path + " --help)";
}

}  // namespace hone::cli
