#include "cli/resume_flags.h"

namespace hone::cli {
namespace {

using json = nlohmann::json;

// Whether some value of `asked` is neither its default nor the stored one,
// object members compared one by one, anything else whole.
bool ChangesTheRun(const json& asked, const json& defaults, const json& stored) {
  if (asked == defaults || asked == stored) return false;
  if (!asked.is_object()) return true;
  static const json kNone;
  for (const auto& [key, value] : asked.items()) {
    const json& d = defaults.is_object() && defaults.contains(key) ? defaults[key] : kNone;
    const json& s = stored.is_object() && stored.contains(key) ? stored[key] : kNone;
    if (ChangesTheRun(value, d, s)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> GivenFlags(const CLI::App& sub, const std::set<std::string>& allowed) {
  std::vector<std::string> given;
  for (const CLI::Option* o : sub.get_options()) {
    const std::string name = o->get_name();
    if (o->count() > 0 && name != "--resume" && !allowed.count(name)) given.push_back(name);
  }
  return given;
}

Status CheckFlagsBesideResume(const std::vector<std::string>& given, const json& asked,
                              const json& defaults, const json& stored) {
  if (given.empty() || !ChangesTheRun(asked, defaults, stored)) return Status::Ok();
  std::string names;
  for (const std::string& g : given) names += (names.empty() ? "" : ", ") + g;
  return Status::Invalid("--resume continues a run with the options it was started with; " + names +
                         " would change them and be ignored (start a new run to change them)");
}

}  // namespace hone::cli
