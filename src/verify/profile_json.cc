#include "verify/profile_json.h"

namespace hone {
namespace {

nlohmann::json MetricsJson(const std::map<std::string, double>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : m) j[name] = value;
  return j;
}

std::map<std::string, double> MetricsFrom(const nlohmann::json& j) {
  std::map<std::string, double> m;
  if (!j.is_object()) return m;
  for (const auto& [name, value] : j.items())
    if (value.is_number()) m[name] = value.get<double>();
  return m;
}

// A stored verdict may come from elsewhere (hone's import): every read
// tolerates a missing or wrong-typed field.
const nlohmann::json& Field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

std::string Str(const nlohmann::json& j, const char* key) {
  const nlohmann::json& f = Field(j, key);
  return f.is_string() ? f.get<std::string>() : "";
}

double Num(const nlohmann::json& j, const char* key) {
  const nlohmann::json& f = Field(j, key);
  return f.is_number() ? f.get<double>() : 0;
}

std::vector<std::string> Strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& e : j)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

nlohmann::json ProfileToJson(const ProfileReport& p) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels)
    kernels.push_back({{"name", k.name},
                       {"launches", k.launches},
                       {"occupancy_limiter", k.occupancy_limiter},
                       {"metrics", MetricsJson(k.metrics)}});
  return {{"tool", p.tool},
          {"case", p.case_label},
          {"calls", p.calls},
          {"summary", MetricsJson(p.summary)},
          {"occupancy_limiter", p.occupancy_limiter},
          {"kernels", kernels},
          {"diagnosis",
           {{"label", p.diagnosis.label},
            {"evidence", p.diagnosis.evidence},
            {"fix", p.diagnosis.fix}}},
          {"missing", p.missing},
          {"not_run", p.not_run},
          {"seconds", p.seconds}};
}

ProfileReport ProfileFromJson(const nlohmann::json& j) {
  ProfileReport p;
  if (!j.is_object()) return p;
  p.tool = Str(j, "tool");
  p.case_label = Str(j, "case");
  p.calls = static_cast<int>(Num(j, "calls"));
  p.summary = MetricsFrom(Field(j, "summary"));
  p.occupancy_limiter = Str(j, "occupancy_limiter");
  const nlohmann::json& kernels = Field(j, "kernels");
  if (kernels.is_array())
    for (const auto& k : kernels) {
      ProfileKernel kernel;
      kernel.name = Str(k, "name");
      kernel.launches = static_cast<int>(Num(k, "launches"));
      kernel.occupancy_limiter = Str(k, "occupancy_limiter");
      kernel.metrics = MetricsFrom(Field(k, "metrics"));
      p.kernels.push_back(std::move(kernel));
    }
  const nlohmann::json& d = Field(j, "diagnosis");
  p.diagnosis.label = Str(d, "label");
  p.diagnosis.evidence = Strings(Field(d, "evidence"));
  p.diagnosis.fix = Str(d, "fix");
  p.missing = Strings(Field(j, "missing"));
  p.not_run = Str(j, "not_run");
  p.seconds = Num(j, "seconds");
  return p;
}

std::optional<ProfileReport> ProfileOfVerdict(const nlohmann::json& verdict) {
  const nlohmann::json& p = Field(verdict, "profile");
  if (!p.is_object()) return std::nullopt;
  return ProfileFromJson(p);
}

}  // namespace hone
