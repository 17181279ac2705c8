#include "verify/verdict_json.h"

#include <cmath>

#include "verify/profile_json.h"
#include "wire/protocol.h"

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

// A number field; `otherwise` when absent or null (JSON has no NaN: a NaN
// is written as null).
double NumOr(const nlohmann::json& j, const char* key, double otherwise) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : otherwise;
}

TimingResult TimingFromJson(const nlohmann::json& j) {
  TimingResult t;
  SampleSummary& s = t.summary;
  s.median = NumOr(j, "median_us", 0.0) * 1e-6;
  if (j.contains("ci95_us") && j["ci95_us"].is_array() && j["ci95_us"].size() == 2) {
    const auto& ci = j["ci95_us"];
    s.ci_low = ci[0].is_number() ? ci[0].get<double>() * 1e-6 : 0;
    s.ci_high = ci[1].is_number() ? ci[1].get<double>() * 1e-6 : 0;
  }
  s.mean = NumOr(j, "mean_us", 0.0) * 1e-6;
  s.stddev = NumOr(j, "stddev_us", 0.0) * 1e-6;
  s.min = NumOr(j, "min_us", 0.0) * 1e-6;
  s.max = NumOr(j, "max_us", 0.0) * 1e-6;
  s.rse = NumOr(j, "rse", 0.0);
  s.count = j.value("reps", 0);
  t.call_overhead = NumOr(j, "call_overhead_us", 0.0) * 1e-6;
  const auto samples = j.value("samples_us", nlohmann::json::array());
  for (const auto& x : samples)
    t.samples.push_back(x.is_number() ? x.get<double>() * 1e-6 : std::nan(""));
  return t;
}

MachineInfo MachineFromJson(const nlohmann::json& j) {
  MachineInfo m;
  m.kind = j.value("kind", "cpu");
  m.cpu_model = j.value("cpu", j.value("name", ""));
  m.cores = j.value("cores", 0);
  m.llc_bytes = j.value("llc_bytes", size_t{0});
  m.copy_bandwidth_gbs = NumOr(j, "copy_bandwidth_gbs", 0.0);
  m.fp32_gflops = NumOr(j, "fp32_gflops", 0.0);
  m.simd = j.value("simd", "");
  m.measured_at = j.value("measured_at", "");
  m.device = j.value("device", "cpu");
  m.bus_id = j.value("pci_bus_id", "");
  return m;
}

void TimingSectionFromJson(const nlohmann::json& t, Verdict& v) {
  v.timed_case = t.value("case", "");
  v.flush_mode = t.value("flush", "");
  v.call_overhead_seconds = NumOr(t, "call_overhead_us", 0.0) * 1e-6;
  if (t.contains("candidate")) v.candidate_time = TimingFromJson(t["candidate"]);
  if (t.contains("reference")) v.reference_time = TimingFromJson(t["reference"]);
  v.baseline = t.value("baseline", "reference");
  v.speedup = NumOr(t, "speedup", 0.0);
  if (t.contains("speedup_interval") && t["speedup_interval"].is_array() &&
      t["speedup_interval"].size() == 2 && t["speedup_interval"][0].is_number() &&
      t["speedup_interval"][1].is_number()) {
    v.speedup_low = t["speedup_interval"][0].get<double>();
    v.speedup_high = t["speedup_interval"][1].get<double>();
  }
  v.speedup_unresolved = t.value("speedup_unresolved", "");
  if (t.contains("speedup_pairs") && t["speedup_pairs"].is_array())
    for (const auto& r : t["speedup_pairs"])
      if (r.is_number()) v.speedup_pairs.push_back(r.get<double>());
  v.sol_seconds = NumOr(t, "sol_us", 0.0) * 1e-6;
  v.sol_percent = NumOr(t, "sol_percent", 0.0);
  if (t.contains("compile")) v.compile_time = TimingFromJson(t["compile"]);
  v.speedup_compile = NumOr(t, "speedup_compile", 0.0);
  v.compile_unavailable = t.value("compile_unavailable", "");
  v.event_overhead_seconds = NumOr(t, "event_overhead_us", 0.0) * 1e-6;
  if (t.contains("device_state") && t["device_state"].is_object()) {
    const auto& d = t["device_state"];
    DeviceStateSummary s;
    s.samples = d.value("samples", 0);
    s.sm_mhz_min = d.value("sm_mhz_min", 0u);
    s.sm_mhz_max = d.value("sm_mhz_max", 0u);
    s.mem_mhz = d.value("mem_mhz", 0u);
    s.temp_c_max = d.value("temp_c_max", 0u);
    s.power_w_max = NumOr(d, "power_w_max", 0.0);
    v.device_state = s;
  }
}

}  // namespace

std::optional<VerdictStatus> ParseStatusName(std::string_view name) {
  for (VerdictStatus s :
       {VerdictStatus::kPassed, VerdictStatus::kIncorrect, VerdictStatus::kCompileError,
        VerdictStatus::kRuntimeError, VerdictStatus::kTimeout, VerdictStatus::kRejected})
    if (StatusName(s) == name) return s;
  return std::nullopt;
}

Result<Verdict> VerdictFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("a verdict must be a JSON object");
  auto status = ParseStatusName(j.value("status", ""));
  if (!status) return Status::Invalid("a verdict needs a known status");
  try {
    Verdict v;
    v.status = *status;
    v.reason = j.value("reason", "");
    v.task = j.value("task", "");
    v.candidate = j.value("candidate", "");
    v.backend = j.value("backend", "cpu");
    v.language = j.value("language", "");
    const auto b = j.value("build", nlohmann::json::object());
    v.build_cached = b.value("cached", false);
    v.build_seconds = NumOr(b, "seconds", 0.0);
    v.build_log = b.value("log", "");
    v.build_resources = b.value("resources", "");
    const auto checks = j.value("checks", nlohmann::json::array());
    for (const auto& c : checks)
      v.checks.push_back({c.value("name", ""), c.value("where", ""), c.value("passed", true),
                          c.value("detail", "")});
    v.notes = j.value("notes", std::vector<std::string>{});
    const auto p = j.value("precision", nlohmann::json::object());
    v.precision_error = NumOr(p, "rel_l2_error", 0.0);
    v.precision_bound = NumOr(p, "bound", 0.0);
    v.max_abs_error = NumOr(p, "max_abs_error", 0.0);
    v.max_rel_error = NumOr(p, "max_rel_error", 0.0);
    const auto sb = j.value("sandbox", nlohmann::json::object());
    v.sandbox_missing = sb.value("missing", "");
    v.sandbox_warm = sb.value("warm", false);
    v.output_bytes = sb.value("output_bytes", uint64_t{0});
    v.output_head = sb.value("output_head", "");
    v.load_seconds = NumOr(sb, "load_seconds", 0.0);
    v.first_call_seconds = NumOr(sb, "first_call_seconds", 0.0);
    const auto stages = j.value("seconds", nlohmann::json::object());
    for (const auto& [stage, seconds] : stages.items()) {
      if (stage == "total")
        v.total_seconds = seconds.is_number() ? seconds.get<double>() : 0;
      else if (stage == "kernel")
        v.kernel_seconds = seconds.is_number() ? seconds.get<double>() : 0;
      else if (seconds.is_number())
        v.stage_seconds.push_back({stage, seconds.get<double>()});
    }
    if (j.contains("sanitizer")) {
      const auto& js = j["sanitizer"];
      Verdict::Sanitizer& san = v.sanitizer.emplace();
      san.case_label = js.value("case", "");
      san.not_run = js.value("not_run", "");
      san.seconds = js.value("seconds", 0.0);
      for (const auto& t : js.value("tools", nlohmann::json::array())) {
        Verdict::SanitizerTool tool;
        tool.tool = t.value("tool", "");
        tool.errors = t.value("errors", 0);
        tool.first = t.value("first", "");
        tool.failure = t.value("failure", "");
        tool.seconds = t.value("seconds", 0.0);
        san.tools.push_back(tool);
      }
    }
    v.profile = ProfileOfVerdict(j);
    if (j.contains("guard")) {
      const auto& g = j["guard"];
      v.guard.calls = g.value("calls", 0);
      v.guard.seconds = g.value("seconds", 0.0);
      v.guard.bytes = g.value("bytes", uint64_t{0});
    }
    if (j.contains("machine")) v.machine = MachineFromJson(j["machine"]);
    if (j.contains("timing") && j["timing"].is_object()) TimingSectionFromJson(j["timing"], v);
    v.kernels_launched = j.value("kernels_launched", "");
    v.shapes = j.value("shapes", "");
    if (j.contains("tuning") && j["tuning"].is_object()) {
      v.tuned_params = j["tuning"].value("params", "");
      for (const auto& t : j["tuning"].value("trials", nlohmann::json::array())) {
        Verdict::TuneTrial trial;
        trial.params = t.value("params", "");
        trial.status =
            ParseStatusName(t.value("status", "")).value_or(VerdictStatus::kRuntimeError);
        trial.median_seconds = t.value("median_us", 0.0) * 1e-6;
        trial.reason = t.value("reason", "");
        v.tune_trials.push_back(trial);
      }
    }
    return v;
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("a verdict with a malformed field: ") + e.what());
  }
}

Result<Verdict> VerdictAsStored(const Verdict& v) {
  // Through the text, as the store writes it: a NaN becomes null on the way.
  std::string text;
  try {
    text = VerdictToJson(v).dump();
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("a verdict that cannot be stored: ") + e.what());
  }
  return VerdictFromJson(nlohmann::json::parse(text));
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
          {"measured_at", m.measured_at},
          {"device", m.device},
          {"pci_bus_id", m.bus_id}};
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
      {"language", v.language},
      {"build",
       {{"cached", v.build_cached},
        {"seconds", v.build_seconds},
        {"log", v.build_log},
        {"resources", v.build_resources}}},
      {"checks", checks},
      {"checks_failed", v.checks_failed()},
      {"notes", v.notes},
      {"precision",
       {{"rel_l2_error", v.precision_error},
        {"bound", v.precision_bound},
        {"max_abs_error", v.max_abs_error},
        {"max_rel_error", v.max_rel_error}}},
      {"sandbox",
       {{"features", wire::FeatureNames(v.sandbox_features)},
        {"missing", v.sandbox_missing},
        {"warm", v.sandbox_warm},
        {"load_seconds", v.load_seconds},
        {"first_call_seconds", v.first_call_seconds},
        {"output_bytes", v.output_bytes},
        {"output_head", v.output_head}}},
      {"seconds",
       [&] {
         nlohmann::json sec = {{"total", v.total_seconds}, {"kernel", v.kernel_seconds}};
         for (const auto& [stage, seconds] : v.stage_seconds) sec[stage] = seconds;
         return sec;
       }()},
      {"machine", MachineToJson(v.machine)},
      {"guard", {{"calls", v.guard.calls}, {"seconds", v.guard.seconds}, {"bytes", v.guard.bytes}}},
  };
  if (v.candidate_time) {
    j["timing"] = {{"case", v.timed_case},
                   {"flush", v.flush_mode},
                   {"call_overhead_us", v.call_overhead_seconds * 1e6},
                   {"candidate", TimingToJson(*v.candidate_time)},
                   {"reference", TimingToJson(*v.reference_time)},
                   {"baseline", v.baseline},
                   {"speedup", v.speedup},
                   {"speedup_interval", {v.speedup_low, v.speedup_high}},
                   {"speedup_resolved", v.speedup_unresolved.empty()},
                   {"sol_us", v.sol_seconds * 1e6},
                   {"sol_percent", v.sol_percent}};
    if (!v.speedup_unresolved.empty()) j["timing"]["speedup_unresolved"] = v.speedup_unresolved;
    if (!v.speedup_pairs.empty()) j["timing"]["speedup_pairs"] = v.speedup_pairs;
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
  if (v.sanitizer) {
    nlohmann::json tools = nlohmann::json::array();
    for (const auto& t : v.sanitizer->tools)
      tools.push_back({{"tool", t.tool},
                       {"errors", t.errors},
                       {"first", t.first},
                       {"failure", t.failure},
                       {"seconds", t.seconds}});
    j["sanitizer"] = {{"case", v.sanitizer->case_label},
                      {"not_run", v.sanitizer->not_run},
                      {"seconds", v.sanitizer->seconds},
                      {"errors", v.sanitizer->errors()},
                      {"tools", tools}};
  }
  if (v.profile) j["profile"] = ProfileToJson(*v.profile);
  if (!v.kernels_launched.empty()) j["kernels_launched"] = v.kernels_launched;
  if (!v.shapes.empty()) j["shapes"] = v.shapes;
  if (!v.tune_trials.empty()) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& t : v.tune_trials)
      trials.push_back({{"params", t.params},
                        {"status", std::string(StatusName(t.status))},
                        {"median_us", t.median_seconds * 1e6},
                        {"reason", t.reason}});
    j["tuning"] = {{"params", v.tuned_params}, {"trials", trials}};
  }
  return j;
}

}  // namespace hone
