#include "verify/verdict_json.h"

#include "core/json_text.h"
#include "verify/json_schema.h"
#include "verify/profile_json.h"
#include "wire/protocol.h"

// The verdict's JSON schema: every section's fields and keys, listed once
// (verify/json_schema.h). VerdictToJson and VerdictFromJson both walk these
// lists; what they do besides is the few keys no list can say (below).
namespace hone::json_schema {

template <>
struct Fields<Check> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Check& c, F& f) {
    f("name", Named(c.id, &CheckName, &ParseCheckName));
    f("where", c.where);
    f("passed", c.passed);
    f("detail", c.detail);
  }
};

template <>
struct Fields<MachineInfo> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(MachineInfo& m, F& f) {
    f("kind", m.kind);
    // "name" is the older key: read first, so that the newer wins when both are there.
    f("name", m.cpu_model);
    f("cpu", m.cpu_model);  // literal-ok: the record's key for the CPU's model
    f("cores", m.cores);
    f("llc_bytes", m.llc_bytes);
    f("copy_bandwidth_gbs", m.copy_bandwidth_gbs);
    f("fp32_gflops", m.fp32_gflops);
    f("simd", m.simd);
    f("measured_at", m.measured_at);
    f("device", m.device);
    f("pci_bus_id", m.bus_id);
  }
};

template <>
struct Fields<TimingResult> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(TimingResult& t, F& f) {
    SampleSummary& s = t.summary;
    f("median_us", Micros(s.median));
    f("ci95_us", Pair(Micros(s.ci_low), Micros(s.ci_high)));
    f("mean_us", Micros(s.mean));
    f("stddev_us", Micros(s.stddev));
    f("min_us", Micros(s.min));
    f("max_us", Micros(s.max));
    f("rse", s.rse);
    f("reps", s.count);
    f("call_overhead_us", Micros(t.call_overhead));
    f("samples_us", Micros(t.samples));
  }
};

template <>
struct Fields<DeviceStateSummary> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(DeviceStateSummary& d, F& f) {
    f("samples", d.samples);
    f("sm_mhz_min", d.sm_mhz_min);
    f("sm_mhz_max", d.sm_mhz_max);
    f("mem_mhz", d.mem_mhz);
    f("temp_c_max", d.temp_c_max);
    f("power_w_max", d.power_w_max);
    f("throttle", Named(d.throttle_reasons, &ThrottleReasonNames, &ThrottleReasonBits));
  }
};

template <>
struct Fields<Verdict::Build> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Build& b, F& f) {
    f("cached", b.cached);
    f("seconds", b.seconds);
    f("log", b.log);
    f("resources", b.resources);
  }
};

template <>
struct Fields<Verdict::Timing> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Timing& t, F& f) {
    f("case", t.timed_case);
    f("flush", t.flush_mode);
    f("call_overhead_us", Micros(t.call_overhead_seconds));
    f("candidate", t.candidate_time);
    f("reference", t.reference_time);
    f("baseline", t.baseline);
    f("speedup", t.speedup);
    f("speedup_interval", Pair(t.speedup_low, t.speedup_high));
    f("speedup_resolved", Derived(t.speedup_unresolved.empty()));
    f("speedup_unresolved", WrittenIf(!t.speedup_unresolved.empty(), t.speedup_unresolved));
    f("speedup_pairs", WrittenIf(!t.speedup_pairs.empty(), t.speedup_pairs));
    f("sol_us", Micros(t.sol_seconds));
    f("sol_percent", t.sol_percent);
    f("compile", t.compile_time);
    f("speedup_compile", WrittenIf(t.compile_time.has_value(), t.speedup_compile));
    f("compile_unavailable",
      WrittenIf(!t.compile_time && !t.compile_unavailable.empty(), t.compile_unavailable));
    // Only where events time the calls; its presence is event_timed.
    f("event_overhead_us", WrittenIf(t.event_timed, Micros(t.event_overhead_seconds)));
    f("device_state", t.device_state);
    f("shared_with", WrittenIf(t.shared_with > 0, t.shared_with));
  }
};

template <>
struct Fields<Verdict::Precision> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Precision& p, F& f) {
    f("rel_l2_error", p.error);
    f("bound", p.bound);
    f("max_abs_error", p.max_abs_error);
    f("max_rel_error", p.max_rel_error);
  }
};

// A trial's status, or runtime_error when it is missing or unknown.
inline VerdictStatus TrialStatus(std::string_view name) {
  return ParseStatusName(name).value_or(VerdictStatus::kRuntimeError);
}

template <>
struct Fields<Verdict::TuneTrial> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::TuneTrial& t, F& f) {
    f("params", t.params);
    f("status", Named(t.status, &StatusName, &TrialStatus));
    f("median_us", Micros(t.median_seconds));
    f("reason", t.reason);
  }
};

template <>
struct Fields<Verdict::Tuning> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Tuning& t, F& f) {
    f("params", t.params);
    f("trials", t.trials);
  }
};

template <>
struct Fields<Verdict::Sandbox> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Sandbox& s, F& f) {
    // Names for a person; the bits are not read back.
    f("features", Derived(wire::FeatureNames(s.features)));
    f("missing", s.missing);
    f("warm", s.warm);
    f("load_seconds", s.load_seconds);
    f("first_call_seconds", s.first_call_seconds);
    f("output_bytes", s.output_bytes);
    f("output_head", s.output_head);
  }
};

template <>
struct Fields<Verdict::SanitizerTool> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::SanitizerTool& t, F& f) {
    f("tool", t.tool);
    f("errors", t.errors);
    f("first", t.first);
    f("failure", t.failure);
    f("seconds", t.seconds);
  }
};

template <>
struct Fields<Verdict::Sanitizer> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::Sanitizer& s, F& f) {
    f("case", s.case_label);
    f("not_run", s.not_run);
    f("seconds", s.seconds);
    f("errors", Derived(s.errors()));
    f("tools", s.tools);
  }
};

template <>
struct Fields<Verdict::GuardCost> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict::GuardCost& g, F& f) {
    f("calls", g.calls);
    f("seconds", g.seconds);
    f("bytes", g.bytes);
  }
};

// The core and its sections. Not here: "seconds" (the stages are keys of
// their own) and "profile" (verify/profile_json.h), written and read in
// VerdictToJson and VerdictFromJson; nor "notes" and "note_kinds" (NotesToJson).
template <>
struct Fields<Verdict> {
  static constexpr bool kDeclared = true;
  template <class F>
  static void Visit(Verdict& v, F& f) {
    // VerdictFromJson rejects an unknown status before reading.
    f("status", Named(v.status, &StatusName, &TrialStatus));
    f("reason", v.reason);
    f("task", v.task);
    f("candidate", v.candidate);
    f("backend", v.backend);
    f("language", v.language);
    f("checks", v.checks);
    f("checks_failed", Derived(v.checks_failed()));
    f("shapes", WrittenIf(!v.shapes.empty(), v.shapes));
    f("kernels_launched", WrittenIf(!v.kernels_launched.empty(), v.kernels_launched));
    f("machine", v.machine);
    f("build", v.build);
    f("timing", WrittenIf(v.timing.candidate_time.has_value(), v.timing));
    f("precision", v.precision);
    f("tuning", WrittenIf(!v.tuning.trials.empty(), v.tuning));
    f("sandbox", v.sandbox);
    f("sanitizer", v.sanitizer);
    f("guard", v.guard);
  }
};

}  // namespace hone::json_schema

namespace hone {

std::optional<VerdictStatus> ParseStatusName(std::string_view name) {
  for (VerdictStatus s : {VerdictStatus::kPassed, VerdictStatus::kIncorrect,
                          VerdictStatus::kCompileError, VerdictStatus::kRuntimeError,
                          VerdictStatus::kTimeout, VerdictStatus::kRejected, VerdictStatus::kBusy})
    if (StatusName(s) == name) return s;
  return std::nullopt;
}

nlohmann::json MachineToJson(const MachineInfo& m) { return json_schema::ToJson(m); }
Result<MachineInfo> MachineFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("a machine must be a JSON object");
  MachineInfo m;
  try {
    json_schema::FromJson(j, m);
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("a machine that cannot be read: ") + e.what());
  }
  return m;
}
nlohmann::json ChecksToJson(const std::vector<Check>& checks) {
  return json_schema::ToJson(checks);
}
nlohmann::json DeviceStateToJson(const DeviceStateSummary& d) { return json_schema::ToJson(d); }

namespace {

// The notes' texts as the list every reader of a verdict knows, and their
// kinds beside them, one for one (verify/note.h).
void NotesToJson(const std::vector<Note>& notes, nlohmann::json& j) {
  nlohmann::json& texts = j["notes"] = nlohmann::json::array();
  nlohmann::json& kinds = j["note_kinds"] = nlohmann::json::array();
  for (const Note& n : notes) {
    texts.push_back(n.text);
    kinds.push_back(NoteKindName(n.kind));
  }
}

// A verdict stored before notes had kinds, or with a kind this build does
// not know, gets kOther for it.
std::vector<Note> NotesFromJson(const nlohmann::json& j) {
  std::vector<Note> notes;
  auto texts = j.find("notes");
  if (texts == j.end() || !texts->is_array()) return notes;
  auto kinds = j.find("note_kinds");
  const bool kinded = kinds != j.end() && kinds->is_array() && kinds->size() == texts->size();
  for (size_t i = 0; i < texts->size(); ++i) {
    if (!(*texts)[i].is_string()) continue;
    NoteKind kind = NoteKind::kOther;
    if (kinded && (*kinds)[i].is_string())
      kind = ParseNoteKind((*kinds)[i].get<std::string>()).value_or(NoteKind::kOther);
    notes.push_back({kind, (*texts)[i].get<std::string>()});
  }
  return notes;
}

}  // namespace

nlohmann::json VerdictToJson(const Verdict& v) {
  nlohmann::json j = json_schema::ToJson(v);
  NotesToJson(v.notes, j);
  nlohmann::json& seconds = j["seconds"];
  seconds = {{"total", v.total_seconds}, {"kernel", v.kernel_seconds}};
  for (const auto& [stage, s] : v.stage_seconds) seconds[stage] = s;
  if (v.profile) j["profile"] = ProfileToJson(*v.profile);
  return j;
}

Result<Verdict> VerdictFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Invalid("a verdict must be a JSON object");
  auto it = j.find("status");
  if (it == j.end() || !it->is_string() || !ParseStatusName(it->get<std::string>()))
    return Status::Invalid("a verdict needs a known status");
  try {
    Verdict v;
    json_schema::FromJson(j, v);
    if (auto t = j.find("timing"); t != j.end() && t->is_object())
      v.timing.event_timed = t->contains("event_overhead_us");
    v.notes = NotesFromJson(j);
    if (auto s = j.find("seconds"); s != j.end() && s->is_object())
      for (const auto& [stage, seconds] : s->items()) {
        if (!seconds.is_number()) continue;
        if (stage == "total")
          v.total_seconds = seconds.get<double>();
        else if (stage == "kernel")
          v.kernel_seconds = seconds.get<double>();
        else
          v.stage_seconds.push_back({stage, seconds.get<double>()});
      }
    v.profile = ProfileOfVerdict(j);
    return v;
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("a verdict with a malformed field: ") + e.what());
  }
}

Result<Verdict> VerdictAsStored(const Verdict& v) {
  // Through the text, as the store writes it: a NaN becomes null on the way.
  std::string text;
  try {
    text = JsonText(VerdictToJson(v));
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("a verdict that cannot be stored: ") + e.what());
  }
  return VerdictFromJson(nlohmann::json::parse(text));
}

}  // namespace hone
