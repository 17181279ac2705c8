#include "cli/resume_flags.h"

namespace hone::cli {

using json = nlohmann::json;

std::vector<std::string> GivenFlags(const CLI::App& sub, const std::set<std::string>& allowed) {
  std::vector<std::string> given;
  for (const CLI::Option* o : sub.get_options()) {
    const std::string name = o->get_name();
    if (o->count() > 0 && name != "--resume" && !allowed.count(name)) given.push_back(name);
  }
  return given;
}

void RestateGivenFlags(CLI::App& sub, const std::vector<std::string>& given) {
  for (const std::string& name : given)
    if (CLI::Option* o = sub.get_option_no_throw(name)) o->run_callback();
}

Status CheckFlagsBesideResume(const std::vector<std::string>& given, const json& restated,
                              const json& as_stored) {
  if (given.empty() || restated == as_stored) return Status::Ok();
  std::string names;
  for (const std::string& g : given) names += (names.empty() ? "" : ", ") + g;
  return Status::Invalid("--resume continues a run with the options it was started with; " + names +
                         " would change them and be ignored (start a new run to change them)");
}

}  // namespace hone::cli
