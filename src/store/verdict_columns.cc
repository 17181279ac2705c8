#include "store/verdict_columns.h"

#include <vector>

#include "core/json_text.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

}  // namespace

EvaluationColumns ColumnsOf(const Verdict& v, bool timed) {
  auto micros = [](const std::vector<double>& seconds) {
    json out = json::array();
    for (double s : seconds) out.push_back(s * 1e6);
    return out;
  };
  const Verdict::Timing& t = v.timing;
  EvaluationColumns c;
  if (timed) {
    c.speedup = t.speedup;
    c.sol_percent = t.sol_percent;
    if (t.compile_time || t.speedup_compile != 0) c.speedup_compile = t.speedup_compile;
  }
  if (t.candidate_time) {
    const SampleSummary& s = t.candidate_time->summary;
    c.cand_median_us = s.median * 1e6;
    if (s.ci_high > 0) {  // an interval was measured
      c.cand_ci_low_us = s.ci_low * 1e6;
      c.cand_ci_high_us = s.ci_high * 1e6;
    }
    c.reps = s.count;
    c.samples["candidate_us"] = micros(t.candidate_time->samples);
  }
  if (t.reference_time) {
    c.ref_median_us = t.reference_time->summary.median * 1e6;
    c.samples["reference_us"] = micros(t.reference_time->samples);
  }
  c.checks = ChecksToJson(v.checks);
  if (t.device_state) c.device_state = JsonText(DeviceStateToJson(*t.device_state));
  return c;
}

}  // namespace hone
