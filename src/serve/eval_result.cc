#include "serve/eval_result.h"

#include <type_traits>

namespace hone {

namespace {

using json = nlohmann::json;

template <typename T>
bool Fits(const json& v) {
  if constexpr (std::is_same_v<T, std::string>) return v.is_string();
  if constexpr (std::is_same_v<T, bool>) return v.is_boolean();
  if constexpr (std::is_same_v<T, int>) return v.is_number_integer();
  return v.is_number();
}

template <typename T>
Status Read(const json& j, const char* key, T& out) {
  if (!j.contains(key)) return Status::Invalid(std::string("result: '") + key + "' is missing");
  if (!Fits<T>(j[key]))
    return Status::Invalid(std::string("result: '") + key + "' has the wrong type");
  out = j[key].get<T>();
  return Status::Ok();
}

}  // namespace

std::string ErrorClassOf(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::kPassed:
      return "";
    case VerdictStatus::kIncorrect:
      return "wrong_output";
    case VerdictStatus::kCompileError:
      return "compile";
    case VerdictStatus::kRuntimeError:
      return "runtime";
    case VerdictStatus::kTimeout:
      return "timeout";
    case VerdictStatus::kRejected:
      return "rejected";
    case VerdictStatus::kBusy:  // says nothing of the candidate: dropped, never scored
      return "infra_error";
  }
  return "runtime";
}

EvalResult ResultFromVerdict(const std::string& id, const Verdict& v, int attempts,
                             const std::string& device, double eval_ms) {
  EvalResult r;
  r.id = id;
  r.status = std::string(StatusName(v.status));
  r.error_class = ErrorClassOf(v.status);
  r.error_msg = v.status == VerdictStatus::kPassed ? "" : v.reason;
  r.compiled = v.status != VerdictStatus::kCompileError;
  r.correct = v.status == VerdictStatus::kPassed;
  if (v.timing.candidate_time) r.kernel_us = v.timing.candidate_time->summary.median * 1e6;
  if (v.timing.reference_time) r.baseline_us = v.timing.reference_time->summary.median * 1e6;
  r.speedup = r.correct ? v.timing.speedup : 0;
  r.attempts = attempts;
  r.device = device;
  r.eval_ms = eval_ms;
  return r;
}

EvalResult InfraErrorResult(const std::string& id, const std::string& why, int attempts,
                            const std::string& device) {
  EvalResult r;
  r.id = id;
  r.status = "infra_error";
  r.error_class = "infra_error";
  r.error_msg = why;
  r.attempts = attempts;
  r.device = device;
  return r;
}

json EvalResultToJson(const EvalResult& r) {
  return {{"id", r.id},
          {"score", r.score},
          {"compiled", r.compiled},
          {"correct", r.correct},
          {"speedup", r.speedup},
          {"kernel_us", r.kernel_us},
          {"baseline_us", r.baseline_us},
          {"status", r.status},
          {"error_class", r.error_class},
          {"error_msg", r.error_msg},
          {"attempts", r.attempts},
          {"device", r.device},
          {"eval_ms", r.eval_ms}};
}

Result<EvalResult> EvalResultFromJson(const json& j) {
  if (!j.is_object()) return Status::Invalid("result: not an object");
  EvalResult r;
  HONE_RETURN_IF_ERROR(Read(j, "id", r.id));
  HONE_RETURN_IF_ERROR(Read(j, "score", r.score));
  HONE_RETURN_IF_ERROR(Read(j, "compiled", r.compiled));
  HONE_RETURN_IF_ERROR(Read(j, "correct", r.correct));
  HONE_RETURN_IF_ERROR(Read(j, "speedup", r.speedup));
  HONE_RETURN_IF_ERROR(Read(j, "kernel_us", r.kernel_us));
  HONE_RETURN_IF_ERROR(Read(j, "baseline_us", r.baseline_us));
  HONE_RETURN_IF_ERROR(Read(j, "status", r.status));
  HONE_RETURN_IF_ERROR(Read(j, "error_class", r.error_class));
  HONE_RETURN_IF_ERROR(Read(j, "error_msg", r.error_msg));
  HONE_RETURN_IF_ERROR(Read(j, "attempts", r.attempts));
  HONE_RETURN_IF_ERROR(Read(j, "device", r.device));
  HONE_RETURN_IF_ERROR(Read(j, "eval_ms", r.eval_ms));
  return r;
}

}  // namespace hone
