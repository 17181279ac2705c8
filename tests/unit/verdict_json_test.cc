#include "verify/verdict_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace hone {
namespace {

Verdict Sample() {
  Verdict v;
  v.status = VerdictStatus::kIncorrect;
  v.reason = "output 0 differs at [3]";
  v.task = "softmax";
  v.candidate = "c.cpp";
  v.build.log = "warning: x";
  v.build.seconds = 1.5;
  v.checks = {{{CheckKind::kCorrect}, "N=4 seed=1", false, "max error 3"},
              {{CheckKind::kInputsUnchanged}, "", true, ""}};
  v.notes = {{NoteKind::kTiming, "a note"}};
  v.precision.error = 1e-7;
  v.precision.bound = 1e-5;
  v.sandbox.output_head = "hello";
  v.sandbox.output_bytes = 5;
  v.total_seconds = 2;
  v.kernel_seconds = 0.5;
  v.stage_seconds = {{"build", 1.5}, {"verify", 0.4}};
  v.machine.cpu_model = "Test CPU";
  v.machine.cores = 2;
  TimingResult t;
  t.summary.median = 2e-3;
  t.summary.ci_low = 1.9e-3;
  t.summary.ci_high = 2.1e-3;
  t.summary.count = 3;
  t.samples = {1.9e-3, 2e-3, 2.1e-3};
  v.timing.timed_case = "N=4096";
  v.timing.candidate_time = t;
  t.summary.median = 4e-3;
  v.timing.reference_time = t;
  v.timing.compile_time = t;
  v.timing.speedup = 2;
  v.timing.speedup_low = 0.9;
  v.timing.speedup_high = 2.2;
  v.timing.speedup_unresolved = "its 95% interval 0.90x .. 2.20x includes 1";
  v.timing.speedup_pairs = {1.9, 2.0, 2.1};
  v.timing.speedup_compile = 2;
  v.timing.sol_percent = 12.5;
  v.shapes = "N=4096";
  return v;
}

TEST(VerdictJsonTest, RoundTripsThroughJson) {
  nlohmann::json j = VerdictToJson(Sample());
  auto back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(VerdictToJson(*back), j);
  EXPECT_EQ(back->status, VerdictStatus::kIncorrect);
  EXPECT_DOUBLE_EQ(back->timing.candidate_time->summary.median, 2e-3);
  EXPECT_EQ(back->checks_failed(), 1);
  EXPECT_DOUBLE_EQ(back->timing.speedup_high, 2.2);
  EXPECT_EQ(back->timing.speedup_unresolved, "its 95% interval 0.90x .. 2.20x includes 1");
  EXPECT_FALSE(j["timing"]["speedup_resolved"].get<bool>());
  EXPECT_EQ(back->timing.speedup_pairs, (std::vector<double>{1.9, 2.0, 2.1}));
}

// Every field of every section set to something other than its default,
// with times that survive seconds -> microseconds -> seconds exactly. The
// sandbox's feature bits are left 0: only their names are written.
Verdict Full() {
  Verdict v;
  v.status = VerdictStatus::kRejected;
  v.reason = "lint: timing";
  v.task = "gelu";
  v.candidate = "k.cu";
  v.backend = "cuda";
  v.language = "cuda";
  v.checks = {{{CheckKind::kCorrect}, "N=4 seed=1", true, ""},
              {{CheckKind::kDeterministic}, "N=4", false, "differs"}};
  v.notes = {{NoteKind::kMemory, "one"}, {NoteKind::kSanitizer, "two"}};
  v.shapes = "N=4096";
  v.kernels_launched = "gelu_kernel";
  v.total_seconds = 3;
  v.stage_seconds = {{"build", 1.5}, {"time", 0.5}};
  v.kernel_seconds = 0.25;
  v.machine = {"gpu",    "H200",        132,     size_t{50} << 20,
               4000,     60000,         "sm_90", "2025-01-01T00:00:00Z",
               "cuda:0", "0000:01:00.0"};
  v.build = {true, 1.5, "warning: w", "k: 32 registers"};

  TimingResult t;
  t.summary = {3, 2e-3, 1.9e-3, 2.1e-3, 2e-3, 1e-6, 1.9e-3, 2.1e-3, 0.03};
  t.samples = {1.9e-3, 2e-3, 2.1e-3};
  t.call_overhead = 7e-6;
  Verdict::Timing& tm = v.timing;
  tm.timed_case = "N=4096";
  tm.candidate_time = t;
  t.summary.median = 4e-3;
  tm.reference_time = t;
  t.summary.median = 3e-3;
  tm.compile_time = t;
  tm.baseline = "torch eager";
  tm.speedup = 2;
  tm.speedup_pairs = {1.9, 2.0, 2.1};
  tm.speedup_low = 0.9;
  tm.speedup_high = 2.2;
  tm.speedup_unresolved = "its 95% interval 0.90x .. 2.20x includes 1";
  tm.speedup_compile = 1.5;
  tm.sol_seconds = 5e-4;
  tm.sol_percent = 25;
  tm.call_overhead_seconds = 8e-6;
  tm.flush_mode = "l2";
  tm.event_timed = true;  // the CUDA backend times with events
  tm.event_overhead_seconds = 4e-6;
  tm.device_state = DeviceStateSummary{10, 1500, 1980, 2619, 60, 450.5, 0x4 | 0x8};

  v.precision = {1e-7, 1e-5, 0.5, 0.25};
  v.tuning = {"BLOCK=128",
              {{"BLOCK=64", VerdictStatus::kPassed, 2e-6, ""},
               {"BLOCK=256", VerdictStatus::kIncorrect, 0, "max abs error 1"}}};
  v.sandbox = {0, "landlock", true, 1.25, 0.5, "hello", 5};
  v.sanitizer = Verdict::Sanitizer{
      "N=4",
      {{"memcheck", 2, "Invalid read", "", 1.5}, {"racecheck", 0, "", "timed out", 0.5}},
      "",
      2};
  ProfileReport& p = v.profile.emplace();
  p.tool = "ncu 2025.3.1";
  p.case_label = "N=4096";
  p.calls = 1;
  p.seconds = 1.5;
  v.guard = {3, 0.25, 4096};
  return v;
}

TEST(VerdictJsonTest, EverySectionRoundTripsThroughTheStoredText) {
  const Verdict v = Full();
  auto back = VerdictFromJson(nlohmann::json::parse(VerdictToJson(v).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->build, v.build);
  EXPECT_EQ(back->timing.candidate_time, v.timing.candidate_time);
  EXPECT_EQ(back->timing.reference_time, v.timing.reference_time);
  EXPECT_EQ(back->timing.compile_time, v.timing.compile_time);
  EXPECT_EQ(back->timing.device_state, v.timing.device_state);
  EXPECT_EQ(back->timing, v.timing);
  EXPECT_EQ(back->precision, v.precision);
  EXPECT_EQ(back->tuning, v.tuning);
  EXPECT_EQ(back->sandbox, v.sandbox);
  EXPECT_EQ(back->sanitizer, v.sanitizer);
  EXPECT_EQ(back->profile, v.profile);
  EXPECT_EQ(back->guard, v.guard);
  EXPECT_EQ(back->machine, v.machine);
  EXPECT_EQ(back->checks, v.checks);
  EXPECT_EQ(back->stage_seconds, v.stage_seconds);
  EXPECT_TRUE(*back == v) << "a core field is not in the schema";

  // What is written only in some cases: torch.compile's absence, and a
  // backend without CUDA events.
  Verdict w = Full();
  w.timing.compile_time.reset();
  w.timing.speedup_compile = 0;
  w.timing.compile_unavailable = "torch.compile failed";
  w.backend = "cpu";
  w.timing.event_timed = false;
  w.timing.event_overhead_seconds = 0;
  const nlohmann::json j = VerdictToJson(w);
  EXPECT_FALSE(j["timing"].contains("event_overhead_us"));
  EXPECT_FALSE(j["timing"].contains("speedup_compile"));
  back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(*back == w);
}

// The keys and nesting stores and tools read: the shape VerdictToJson has
// always written.
TEST(VerdictJsonTest, WritesTheKeysItAlwaysHas) {
  const nlohmann::json j = VerdictToJson(Full());
  auto keys = [](const nlohmann::json& o) {
    std::vector<std::string> out;
    for (const auto& [k, _] : o.items()) out.push_back(k);
    return out;
  };
  using Keys = std::vector<std::string>;
  EXPECT_EQ(
      keys(j),
      (Keys{"backend",          "build",    "candidate", "checks",     "checks_failed", "guard",
            "kernels_launched", "language", "machine",   "note_kinds", "notes",         "precision",
            "profile",          "reason",   "sandbox",   "sanitizer",  "seconds",       "shapes",
            "status",           "task",     "timing",    "tuning"}));
  EXPECT_EQ(keys(j["build"]), (Keys{"cached", "log", "resources", "seconds"}));
  EXPECT_EQ(keys(j["timing"]),
            (Keys{"baseline", "call_overhead_us", "candidate", "case", "compile", "device_state",
                  "event_overhead_us", "flush", "reference", "sol_percent", "sol_us", "speedup",
                  "speedup_compile", "speedup_interval", "speedup_pairs", "speedup_resolved",
                  "speedup_unresolved"}));
  EXPECT_EQ(keys(j["timing"]["candidate"]),
            (Keys{"call_overhead_us", "ci95_us", "max_us", "mean_us", "median_us", "min_us", "reps",
                  "rse", "samples_us", "stddev_us"}));
  EXPECT_EQ(keys(j["timing"]["device_state"]),
            (Keys{"mem_mhz", "power_w_max", "samples", "sm_mhz_max", "sm_mhz_min", "temp_c_max",
                  "throttle"}));
  EXPECT_EQ(j["timing"]["device_state"]["throttle"], "sw_power_cap,hw_slowdown");
  EXPECT_EQ(keys(j["precision"]),
            (Keys{"bound", "max_abs_error", "max_rel_error", "rel_l2_error"}));
  EXPECT_EQ(keys(j["sandbox"]), (Keys{"features", "first_call_seconds", "load_seconds", "missing",
                                      "output_bytes", "output_head", "warm"}));
  EXPECT_EQ(keys(j["sanitizer"]), (Keys{"case", "errors", "not_run", "seconds", "tools"}));
  EXPECT_EQ(j["sanitizer"]["errors"], 2);
  EXPECT_EQ(keys(j["sanitizer"]["tools"][0]),
            (Keys{"errors", "failure", "first", "seconds", "tool"}));
  EXPECT_EQ(keys(j["tuning"]), (Keys{"params", "trials"}));
  EXPECT_EQ(keys(j["tuning"]["trials"][0]), (Keys{"median_us", "params", "reason", "status"}));
  EXPECT_EQ(keys(j["guard"]), (Keys{"bytes", "calls", "seconds"}));
  EXPECT_EQ(keys(j["machine"]),
            (Keys{"copy_bandwidth_gbs", "cores", "cpu", "device", "fp32_gflops", "kind",
                  "llc_bytes", "measured_at", "name", "pci_bus_id", "simd"}));
  EXPECT_EQ(keys(j["seconds"]), (Keys{"build", "kernel", "time", "total"}));
  EXPECT_EQ(j["checks_failed"], 1);
  EXPECT_DOUBLE_EQ(j["timing"]["candidate"]["median_us"].get<double>(), 2000);
}

TEST(VerdictJsonTest, ReadsOlderAndPartialVerdicts) {
  // No sections at all; the machine's name under its older key; a sample
  // written as null (a NaN).
  auto v = VerdictFromJson(
      {{"status", "passed"},
       {"machine", {{"name", "Old CPU"}}},
       {"timing", {{"speedup", 1.5}, {"candidate", {{"samples_us", {1.0, nullptr}}}}}}});
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->machine.cpu_model, "Old CPU");
  EXPECT_EQ(v->machine.kind, "cpu");
  EXPECT_EQ(v->backend, "cpu");
  EXPECT_EQ(v->timing.baseline, "reference");
  EXPECT_DOUBLE_EQ(v->timing.speedup, 1.5);
  ASSERT_TRUE(v->timing.candidate_time);
  ASSERT_EQ(v->timing.candidate_time->samples.size(), 2u);
  EXPECT_TRUE(std::isnan(v->timing.candidate_time->samples[1]));
  EXPECT_FALSE(v->timing.reference_time);
  EXPECT_FALSE(v->sanitizer);
  // A trial without a status did not pass.
  auto t = VerdictFromJson({{"status", "passed"}, {"tuning", {{"trials", {{{"params", "B=1"}}}}}}});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->tuning.trials.size(), 1u);
  EXPECT_EQ(t->tuning.trials[0].status, VerdictStatus::kRuntimeError);
}

// Notes keep the list of texts every reader knows, their kinds beside it;
// checks keep their names, the sanitizer's with its tool.
TEST(VerdictJsonTest, NotesAndChecksKeepTheirKinds) {
  Verdict v;
  v.AddNote({NoteKind::kSanitizer, "compute-sanitizer: 0 errors"});
  v.AddNote({NoteKind::kMemory, "memory plan: 1 buffer slot"});
  v.checks.push_back({{CheckKind::kSanitizer, "racecheck"}, "n=4", false, "1 hazard"});
  v.checks.push_back({{CheckKind::kCorrectSecondRun}, "n=4", true, ""});
  nlohmann::json j = VerdictToJson(v);
  EXPECT_EQ(j["notes"],
            nlohmann::json({"compute-sanitizer: 0 errors", "memory plan: 1 buffer slot"}));
  EXPECT_EQ(j["note_kinds"], nlohmann::json({"sanitizer", "memory"}));
  EXPECT_EQ(j["checks"][0]["name"], "sanitizer_racecheck");
  EXPECT_EQ(j["checks"][1]["name"], "correct_second_run");
  auto back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->notes, v.notes);
  EXPECT_EQ(back->checks, v.checks);
  EXPECT_EQ(back->checks[0].kind(), CheckKind::kSanitizer);
  EXPECT_EQ(back->checks[0].name(), "sanitizer_racecheck");
}

// Stored before notes had kinds: their texts with kind kOther; a check name
// no kind has is kept as it was.
TEST(VerdictJsonTest, OlderNotesAndUnknownChecksReadBack) {
  auto v = VerdictFromJson({{"status", "passed"},
                            {"notes", {"one", "two"}},
                            {"checks", {{{"name", "a_future_check"}, {"passed", true}}}}});
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->notes.size(), 2u);
  EXPECT_EQ(v->notes[1], (Note{NoteKind::kOther, "two"}));
  ASSERT_EQ(v->checks.size(), 1u);
  EXPECT_EQ(v->checks[0].kind(), CheckKind::kOther);
  EXPECT_EQ(VerdictToJson(*v)["checks"][0]["name"], "a_future_check");
  // A kind this build does not know reads as kOther; the text stays.
  auto newer =
      VerdictFromJson({{"status", "passed"}, {"notes", {"n"}}, {"note_kinds", {"a_future_kind"}}});
  ASSERT_TRUE(newer.ok());
  EXPECT_EQ(newer->notes[0], (Note{NoteKind::kOther, "n"}));
}

// Every kind has a name that reads back as itself.
TEST(VerdictJsonTest, EveryKindNameReadsBack) {
  for (int k = 0; k <= static_cast<int>(NoteKind::kParts); ++k) {
    auto kind = static_cast<NoteKind>(k);
    EXPECT_EQ(ParseNoteKind(NoteKindName(kind)), kind) << k;
  }
  for (int k = 1; k <= static_cast<int>(CheckKind::kReportedTime); ++k) {
    CheckId id{static_cast<CheckKind>(k), ""};
    EXPECT_EQ(ParseCheckName(CheckName(id)), id) << k;
  }
}

TEST(VerdictJsonTest, RefusesWhatIsNotAVerdict) {
  EXPECT_FALSE(VerdictFromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(VerdictFromJson({{"status", "splendid"}}).ok());
  EXPECT_FALSE(VerdictFromJson({{"status", "passed"}, {"checks", 3}}).ok());
  EXPECT_EQ(ParseStatusName("compile_error"), VerdictStatus::kCompileError);
}

TEST(VerdictJsonTest, TuningRoundTrips) {
  Verdict v = Sample();
  v.tuning.params = "BLOCK=128";
  v.tuning.trials = {{"BLOCK=64", VerdictStatus::kPassed, 2e-6, ""},
                     {"BLOCK=128", VerdictStatus::kPassed, 1e-6, ""},
                     {"BLOCK=256", VerdictStatus::kIncorrect, 0, "max abs error 1"}};
  nlohmann::json j = VerdictToJson(v);
  EXPECT_EQ(j["tuning"]["params"], "BLOCK=128");
  EXPECT_EQ(j["tuning"]["trials"][2]["status"], "incorrect");
  auto back = VerdictFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(VerdictToJson(*back), j);
  EXPECT_FALSE(VerdictToJson(Sample()).contains("tuning"));
}

}  // namespace
}  // namespace hone
