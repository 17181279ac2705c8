// The reward a trainer gets for a result: a documented, configurable
// function of the verdict, chosen per job (config.reward) or per server.
//
// Presets (`Reward::Preset(name)`):
//   kernelbench  correct ? speedup : 0. KernelBench (Ouyang et al., 2025)
//                scores a correct kernel by its speedup over the eager
//                Model; a wrong one contributes nothing (its fast_p counts
//                correct kernels faster than p).
//   fast_p       correct && speedup > p ? 1 : 0 (p = `threshold`, default
//                1.0): KernelBench's fast_p as a per-sample indicator;
//                Dr. Kernel (Liu et al., 2026) reports Fast@1.2.
//   bands        KernelGYM's default reward (Dr. Kernel's reward client,
//                calculate_reward_like_kernel): compile failure -0.5, wrong
//                -0.3, slower than eager -0.1, then 0.2 / 0.4 / 0.6 / 0.8 /
//                1.0 from 1.0x / 1.2x / 1.5x / 2x / 3x.
//   weighted     correct_weight * correct + speed_weight * f(speedup), with
//                f = the speedup clipped to [lower, upper] (below lower: 0),
//                or its log with log_speedup; Dr. Kernel's
//                calculate_reward_speedup has this shape.
//   binary       correct ? 1 : 0.
// A rejected candidate (a hack) scores `rejected_score` (default: the
// preset's wrong-output score). An infra_error scores 0 and keeps its class,
// so a trainer can drop the sample; it is never a failure of the model.
// Values only; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/status.h"
#include "serve/eval_result.h"

namespace hone {

struct Reward {
  std::string preset = "kernelbench";
  double threshold = 1.0;  // fast_p's p
  double correct_weight = 1.0, speed_weight = 1.0;
  double lower = 0.0, upper = 10.0;  // weighted: speedup clip
  bool log_speedup = false;
  std::optional<double> rejected_score;

  // A preset by name, or Status::Invalid listing the names.
  static Result<Reward> Preset(const std::string& name);
  // {"preset": NAME, ...overrides} or a bare name; Status::Invalid names
  // the bad key.
  static Result<Reward> FromJson(const nlohmann::json& j);
  nlohmann::json ToJson() const;

  double Score(const EvalResult& r) const;
};

}  // namespace hone
