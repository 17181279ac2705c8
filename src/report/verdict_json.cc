#include "report/verdict_json.h"

#include "run/protocol.h"

namespace hone {
namespace {

nlohmann::json TimingToJson(const TimingResult& t) {
  const SampleSummary& s = t.summary;
  return {{"median_us", s.median * 1e6},
          {"ci95_us", {s.ci_low * 1e6, s.ci_high * 1e6}},
          {"mean_us", s.mean * 1e6},
          {"stddev_us", s.stddev * 1e6},
          {"min_us", s.min * 1e6},
          {"max_us", s.max * 1e6},
          {"rse", s.rse},
          {"reps", s.count},
          {"call_overhead_us", t.call_overhead * 1e6},
          {"samples_us", [&] {
             std::vector<double> us;
             for (double x : t.samples) us.push_back(x * 1e6);
             return us;
           }()}};
}

}  // namespace

std::string FeatureNames(uint64_t f) {
  std::string out;
  auto add = [&](uint64_t bit, const char* name) {
    if (f & bit) out += (out.empty() ? "" : ",") + std::string(name);
  };
  add(wire::kFeatureSeccomp, "seccomp");
  add(wire::kFeatureLandlock, "landlock");
  add(wire::kFeatureLandlockNet, "landlock-net");
  add(wire::kFeatureNetNamespace, "netns");
  add(wire::kFeatureDroppedPrivileges, "nobody");
  return out;
}

nlohmann::json MachineToJson(const MachineInfo& m) {
  return {{"kind", m.kind},
          {"name", m.cpu_model},
          {"cpu", m.cpu_model},
          {"cores", m.cores},
          {"llc_bytes", m.llc_bytes},
          {"copy_bandwidth_gbs", m.copy_bandwidth_gbs},
          {"fp32_gflops", m.fp32_gflops},
          {"simd", m.simd},
          {"measured_at", m.measured_at}};
}

nlohmann::json VerdictToJson(const Verdict& v) {
  nlohmann::json checks = nlohmann::json::array();
  for (const auto& c : v.checks)
    checks.push_back(
        {{"name", c.name}, {"where", c.where}, {"passed", c.passed}, {"detail", c.detail}});
  nlohmann::json j = {
      {"status", std::string(StatusName(v.status))},
      {"reason", v.reason},
      {"task", v.task},
      {"candidate", v.candidate},
      {"backend", v.backend},
      {"build",
       {{"cached", v.build_cached},
        {"seconds", v.build_seconds},
        {"log", v.build_log},
        {"resources", v.build_resources}}},
      {"checks", checks},
      {"checks_failed", v.checks_failed()},
      {"notes", v.notes},
      {"precision", {{"rel_l2_error", v.precision_error}, {"bound", v.precision_bound}}},
      {"sandbox",
       {{"features", FeatureNames(v.sandbox_features)},
        {"missing", v.sandbox_missing},
        {"output_bytes", v.output_bytes},
        {"output_head", v.output_head}}},
      {"seconds",
       [&] {
         nlohmann::json sec = {{"total", v.total_seconds}, {"kernel", v.kernel_seconds}};
         for (const auto& [stage, seconds] : v.stage_seconds) sec[stage] = seconds;
         return sec;
       }()},
      {"machine", MachineToJson(v.machine)},
  };
  if (v.candidate_time) {
    j["timing"] = {{"case", v.timed_case},
                   {"flush", v.flush_mode},
                   {"call_overhead_us", v.call_overhead_seconds * 1e6},
                   {"candidate", TimingToJson(*v.candidate_time)},
                   {"reference", TimingToJson(*v.reference_time)},
                   {"baseline", v.baseline},
                   {"speedup", v.speedup},
                   {"sol_us", v.sol_seconds * 1e6},
                   {"sol_percent", v.sol_percent}};
    if (v.compile_time) {
      j["timing"]["compile"] = TimingToJson(*v.compile_time);
      j["timing"]["speedup_compile"] = v.speedup_compile;
    } else if (!v.compile_unavailable.empty()) {
      j["timing"]["compile_unavailable"] = v.compile_unavailable;
    }
    if (v.backend == "cuda") j["timing"]["event_overhead_us"] = v.event_overhead_seconds * 1e6;
    if (v.device_state) {
      const DeviceStateSummary& d = *v.device_state;
      j["timing"]["device_state"] = {{"samples", d.samples},
                                     {"sm_mhz_min", d.sm_mhz_min},
                                     {"sm_mhz_max", d.sm_mhz_max},
                                     {"mem_mhz", d.mem_mhz},
                                     {"temp_c_max", d.temp_c_max},
                                     {"power_w_max", d.power_w_max},
                                     {"throttle", ThrottleReasonNames(d.throttle_reasons)}};
    }
  }
  if (!v.kernels_launched.empty()) j["kernels_launched"] = v.kernels_launched;
  if (!v.shapes.empty()) j["shapes"] = v.shapes;
  return j;
}

}  // namespace hone
