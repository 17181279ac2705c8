// What the service answers for one job: the same keys for every result, so
// that a trainer reads a reward without knowing hone's verdicts.
//
//   {"id", "score", "compiled", "correct", "speedup", "kernel_us", "baseline_us",
//    "status", "error_class", "error_msg", "attempts", "device", "eval_ms"}
//
// `status` is the verdict's status (passed, incorrect, ...) or "infra_error"
// or "cancelled". `error_class` is "" for a pass, else one of compile,
// runtime, wrong_output, timeout, rejected (a hack or a lint rule) and
// infra_error: the evaluation could not be made (a worker died every time,
// the GPU failed, the problem would not load), which says nothing about the
// candidate, so a trainer drops the sample instead of punishing the model.
// Values only; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "verify/verdict.h"

namespace hone {

struct EvalResult {
  std::string id;
  double score = 0;
  bool compiled = false;
  bool correct = false;
  double speedup = 0;
  double kernel_us = 0;
  double baseline_us = 0;
  std::string status;
  std::string error_class;
  std::string error_msg;
  int attempts = 0;
  std::string device;
  double eval_ms = 0;

  bool infra_error() const { return error_class == "infra_error"; }
};

// The error class of a verdict status: "" for passed.
std::string ErrorClassOf(VerdictStatus s);

// A verdict as a result; `score` is left 0 for the reward (reward.h).
EvalResult ResultFromVerdict(const std::string& id, const Verdict& v, int attempts,
                             const std::string& device, double eval_ms);
// An evaluation that could not be made; never a verdict on the candidate.
EvalResult InfraErrorResult(const std::string& id, const std::string& why, int attempts,
                            const std::string& device);

nlohmann::json EvalResultToJson(const EvalResult& r);
// Status::Invalid naming the missing or mistyped key.
Result<EvalResult> EvalResultFromJson(const nlohmann::json& j);

}  // namespace hone
