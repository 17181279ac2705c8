#include "search/budget.h"

#include <fmt/format.h>

namespace hone {

std::string StopReason(const Budget& b, const Spend& s) {
  if (b.target_speedup > 0 && s.best_speedup >= b.target_speedup)
    return fmt::format("target speedup {:.2f}x reached ({:.2f}x)", b.target_speedup,
                       s.best_speedup);
  if (b.max_candidates > 0 && s.candidates >= b.max_candidates)
    return fmt::format("candidate budget of {} spent", b.max_candidates);
  if (b.max_tokens > 0 && s.tokens() >= b.max_tokens)
    return fmt::format("token budget of {} spent ({})", b.max_tokens, s.tokens());
  if (b.max_dollars > 0 && s.dollars >= b.max_dollars)
    return fmt::format("dollar budget of ${:.2f} spent (${:.4f})", b.max_dollars, s.dollars);
  if (b.max_seconds > 0 && s.seconds >= b.max_seconds)
    return fmt::format("time budget of {:.0f} s spent", b.max_seconds);
  return "";
}

}  // namespace hone
