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
  p.tool = j.value("tool", "");
  p.case_label = j.value("case", "");
  p.calls = j.value("calls", 0);
  p.summary = MetricsFrom(j.value("summary", nlohmann::json::object()));
  p.occupancy_limiter = j.value("occupancy_limiter", "");
  for (const auto& k : j.value("kernels", nlohmann::json::array())) {
    ProfileKernel kernel;
    kernel.name = k.value("name", "");
    kernel.launches = k.value("launches", 0);
    kernel.occupancy_limiter = k.value("occupancy_limiter", "");
    kernel.metrics = MetricsFrom(k.value("metrics", nlohmann::json::object()));
    p.kernels.push_back(std::move(kernel));
  }
  const auto d = j.value("diagnosis", nlohmann::json::object());
  p.diagnosis.label = d.value("label", "");
  p.diagnosis.evidence = d.value("evidence", std::vector<std::string>{});
  p.diagnosis.fix = d.value("fix", "");
  p.missing = j.value("missing", std::vector<std::string>{});
  p.not_run = j.value("not_run", "");
  p.seconds = j.value("seconds", 0.0);
  return p;
}

}  // namespace hone
