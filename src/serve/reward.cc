#include "serve/reward.h"

#include <algorithm>
#include <cmath>

namespace hone {

namespace {

using json = nlohmann::json;

const char* kPresets = "kernelbench, fast_p, bands, weighted, binary";

// KernelGYM's default bands, from the top.
double BandScore(const EvalResult& r) {
  if (!r.compiled) return -0.5;
  if (!r.correct) return -0.3;
  const double bands[][2] = {{3.0, 1.0}, {2.0, 0.8}, {1.5, 0.6}, {1.2, 0.4}, {1.0, 0.2}};
  for (const auto& [at, score] : bands)
    if (r.speedup >= at) return score;
  return -0.1;
}

double WrongScore(const Reward& w, const EvalResult& r) {
  return w.preset == "bands" ? BandScore(r) : 0.0;
}

Status ReadNumber(const json& j, const char* key, double& out) {
  if (!j.contains(key)) return Status::Ok();
  if (!j[key].is_number())
    return Status::Invalid(std::string("reward.") + key + " must be a number");
  out = j[key].get<double>();
  return Status::Ok();
}

}  // namespace

Result<Reward> Reward::Preset(const std::string& name) {
  Reward w;
  w.preset = name;
  if (name == "kernelbench" || name == "fast_p" || name == "bands" || name == "weighted" ||
      name == "binary")
    return w;
  return Status::Invalid("reward: unknown preset '" + name + "' (known: " + kPresets + ")");
}

Result<Reward> Reward::FromJson(const json& j) {
  if (j.is_string()) return Preset(j.get<std::string>());
  if (!j.is_object() || !j.contains("preset") || !j["preset"].is_string())
    return Status::Invalid("reward must be a preset name or {\"preset\": NAME, ...}");
  HONE_ASSIGN_OR_RETURN(Reward w, Preset(j["preset"].get<std::string>()));
  for (const auto& [key, value] : j.items()) {
    static const char* known[] = {"preset", "threshold", "correct_weight", "speed_weight",
                                  "lower",  "upper",     "log_speedup",    "rejected_score"};
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return key == k; }) ==
        std::end(known))
      return Status::Invalid("reward." + key + " is not a setting");
  }
  HONE_RETURN_IF_ERROR(ReadNumber(j, "threshold", w.threshold));
  HONE_RETURN_IF_ERROR(ReadNumber(j, "correct_weight", w.correct_weight));
  HONE_RETURN_IF_ERROR(ReadNumber(j, "speed_weight", w.speed_weight));
  HONE_RETURN_IF_ERROR(ReadNumber(j, "lower", w.lower));
  HONE_RETURN_IF_ERROR(ReadNumber(j, "upper", w.upper));
  if (j.contains("log_speedup")) {
    if (!j["log_speedup"].is_boolean())
      return Status::Invalid("reward.log_speedup must be true or false");
    w.log_speedup = j["log_speedup"].get<bool>();
  }
  if (j.contains("rejected_score")) {
    double s = 0;
    HONE_RETURN_IF_ERROR(ReadNumber(j, "rejected_score", s));
    w.rejected_score = s;
  }
  return w;
}

json Reward::ToJson() const {
  json j = {{"preset", preset},
            {"threshold", threshold},
            {"correct_weight", correct_weight},
            {"speed_weight", speed_weight},
            {"lower", lower},
            {"upper", upper},
            {"log_speedup", log_speedup}};
  if (rejected_score) j["rejected_score"] = *rejected_score;
  return j;
}

double Reward::Score(const EvalResult& r) const {
  if (r.infra_error() || r.status == "cancelled") return 0.0;
  if (r.error_class == "rejected" && rejected_score) return *rejected_score;
  if (!r.correct) return WrongScore(*this, r);
  if (preset == "binary") return 1.0;
  if (preset == "fast_p") return r.speedup > threshold ? 1.0 : 0.0;
  if (preset == "bands") return BandScore(r);
  if (preset == "weighted") {
    double s = r.speedup < lower ? 0.0 : std::min(r.speedup, upper);
    if (log_speedup) s = s > 0 ? std::log(s) : 0.0;
    return correct_weight + speed_weight * s;
  }
  return r.speedup;  // kernelbench
}

}  // namespace hone
