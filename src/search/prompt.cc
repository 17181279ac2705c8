#include "search/prompt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

#include "build/error_trim.h"
#include "core/fs.h"
#include "core/hash.h"
#include "measure/profile_judge.h"
#include "report/verdict_text.h"
#include "task/reference_kind.h"
#include "task/task_text.h"

namespace hone {
namespace {

// A text template of prompts/ and the placeholders it may use. The examples
// (example_cpu.cpp, example_cuda.cu) are read verbatim, never rendered.
struct TemplateSpec {
  const char* file;
  std::vector<std::string> placeholders;
};

const std::vector<std::string> kContextValues = {
    "backend",    "language",      "lang_tag",         "contract",  "example",
    "task_name",  "task_category", "task_description", "arguments", "cases",
    "tolerances", "backend_rules", "hardware",         "lessons"};

const std::vector<TemplateSpec>& TemplateSpecs() {
  static const std::vector<TemplateSpec> kSpecs = {
      {"system.txt", {"backend", "language"}},
      {"context.txt", kContextValues},
      {"context_modelnew.txt", kContextValues},
      {"task.txt", {"backend", "language", "lang_tag", "context"}},
      {"feedback.txt", {"backend", "language", "lang_tag", "status", "summary", "next_step"}},
      {"extraction_failed.txt", {"failure", "problem", "advice"}},
      {"evolve.txt", {"backend", "language", "lang_tag", "context", "parents", "goal"}},
      {"evolve_parent.txt", {"number", "lang_tag", "code", "summary"}},
      {"lessons.txt", {"lessons"}},
      {"ideas.txt",
       {"backend", "language", "lang_tag", "context", "code", "summary", "applied", "tried",
        "count"}},
      {"idea.txt", {"backend", "language", "lang_tag", "context", "code", "summary", "idea"}},
  };
  return kSpecs;
}

constexpr size_t kLogCap = 4000;     // compiler output shown to the model
constexpr size_t kDetailCap = 1500;  // one reason or check detail
constexpr size_t kOutputCap = 1000;  // what the candidate printed
constexpr int kMaxChecks = 5;        // failed checks listed besides the reason
constexpr int kMaxNotes = 3;
constexpr size_t kLessonCap = 600;  // one lesson's line

// The device a language's candidates run on first: its cases and speed of light.
const std::string& DeviceOf(const Language& l) { return l.run.devices.front(); }

std::string TrimRight(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// At most `cap` characters, cut at a line end when one is near, saying how
// much was left out.
std::string Cap(const std::string& s, size_t cap) {
  if (s.size() <= cap) return s;
  size_t cut = s.rfind('\n', cap);
  if (cut == std::string::npos || cut < cap / 2) cut = cap;
  return s.substr(0, cut) + fmt::format("\n[... {} more characters cut]", s.size() - cut);
}

// One line of at most `cap` bytes, with "..." when cut (never inside a UTF-8
// sequence).
std::string CapLine(std::string s, size_t cap) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() <= cap) return s;
  size_t cut = cap - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

std::string StemOf(const std::string& file) { return std::filesystem::path(file).stem().string(); }

std::string Known(const std::map<std::string, std::string>& values) {
  std::string out;
  for (const auto& [name, value] : values) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

std::string BytesText(size_t bytes) {
  if (bytes >= (size_t{1} << 20)) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  return fmt::format("{} KiB", bytes / 1024);
}

// "CPU: ..., 16 cores, ..." or "GPU: ..., 132 SMs, ..." with the measured ceilings.
std::string MachineText(const MachineInfo& m) {
  const bool gpu = m.kind == "gpu";
  std::string out =
      gpu ? fmt::format("GPU: {}, {} SMs, L2 cache {}\n", m.cpu_model, m.cores,
                        BytesText(m.llc_bytes))
          : fmt::format("CPU: {}, {} cores, last-level cache {}{}\n", m.cpu_model, m.cores,
                        BytesText(m.llc_bytes), m.simd.empty() ? "" : ", SIMD " + m.simd);
  out +=
      m.copy_bandwidth_gbs > 0
          ? fmt::format("Measured copy bandwidth: {:.0f} GB/s (bytes read + written per second)\n",
                        m.copy_bandwidth_gbs)
          : "Measured copy bandwidth: not measured\n";
  const char* rate = gpu ? "Measured FP32 rate" : "Measured FP32 FMA rate, all cores";
  out += m.fp32_gflops > 0
             ? fmt::format("{}: {:.0f} GFLOP/s (an FMA counts as 2 FLOPs)\n", rate, m.fp32_gflops)
             : fmt::format("{}: not measured\n", rate);
  return out;
}

// The speed of light of the backend's timed case, when the task has a cost.
std::string SpeedOfLightText(const Task& task, const std::string& device, const MachineInfo& m) {
  std::vector<const ShapeCase*> cases = task.CasesFor(device);
  if (cases.empty()) return "";
  const ShapeCase& c = *cases.front();
  auto eval = [&](const std::optional<Expr>& e) {
    if (!e) return 0.0;
    auto v = e->Eval(c.symbols);
    return v.ok() ? *v : 0.0;
  };
  double sol = SpeedOfLightSeconds(eval(task.cost_bytes), eval(task.cost_flops), m);
  if (sol <= 0) return "";
  return fmt::format(
      "Speed of light of the timed case ({}): {}, the larger of bytes / bandwidth and flops / "
      "FP32 rate. Each verdict reports the candidate's time as a percentage of it (SOL %).\n",
      c.label, FormatSeconds(sol));
}

std::string NextStep(VerdictStatus s, const Language& l) {
  switch (s) {
    case VerdictStatus::kPassed:
      return "It is correct. Now make it faster: work out what limits it (" + l.prompt.limits +
             ") against the speed of light, and change the algorithm or the implementation to "
             "remove that limit. Keep it correct.";
    case VerdictStatus::kCompileError:
      return "Fix the compile errors above.";
    case VerdictStatus::kIncorrect:
      return "Fix the bug behind the wrong result above. Check the indexing, sizes that are not "
             "a multiple of your block or vector width, that every output element is written, "
             "and that the inputs are left unchanged.";
    case VerdictStatus::kRuntimeError:
      return "Fix the error above: check out-of-bounds accesses, the dtypes and shapes you "
             "accept, the return value, and " +
             l.prompt.runtime_advice;
    case VerdictStatus::kTimeout:
      return "It did not finish in time: it may hang or be far too slow. Fix that.";
    case VerdictStatus::kRejected:
      return "It broke a rule of the contract or the sandbox, named above. Rewrite it within "
             "the rules.";
    case VerdictStatus::kBusy:
      return "It was not judged: the GPU was busy with another process. Nothing to fix.";
  }
  return "Fix it.";
}

std::string TimingText(const Verdict& v) {
  if (!v.timing.candidate_time || !v.timing.reference_time) return "timing: not timed\n";
  std::string out = fmt::format("timed case: {}\n", v.timing.timed_case);
  const SampleSummary& c = v.timing.candidate_time->summary;
  out += fmt::format("candidate: {} median", FormatSeconds(c.median));
  if (c.ci_high > 0)
    out += fmt::format(" [95% CI {} .. {}]", FormatSeconds(c.ci_low), FormatSeconds(c.ci_high));
  out += "\n";
  out +=
      fmt::format("reference: {} median\n", FormatSeconds(v.timing.reference_time->summary.median));
  out += fmt::format("speedup: {:.2f}x over the reference\n", v.timing.speedup);
  if (!v.timing.speedup_unresolved.empty())
    out += "this speedup is not resolved (" + v.timing.speedup_unresolved +
           "): the measurements cannot tell it from no change; do not read it as a gain or a "
           "loss\n";
  if (v.timing.sol_seconds > 0)
    out += fmt::format("speed of light: {}; the candidate reaches {:.1f}% of it (SOL)\n",
                       FormatSeconds(v.timing.sol_seconds), v.timing.sol_percent);
  return out;
}

std::string PassedText(const Verdict& v) {
  std::string out = "reason: " + Cap(v.reason, kDetailCap) + "\n" + TimingText(v);
  if (v.precision.bound > 0)
    out += fmt::format("precision: relative L2 error {:.2e} against float64 (bound {:.2e})\n",
                       v.precision.error, v.precision.bound);
  if (v.profile) out += DiagnosisText(*v.profile);
  return out;
}

std::string CompileErrorText(const Verdict& v) {
  std::string log = TrimRight(v.build.log.empty() ? v.reason : v.build.log);
  return "compiler errors (trimmed):\n" + Cap(log, kLogCap) + "\n";
}

// Failed checks other than the one the reason already states.
std::string FailedChecksText(const Verdict& v) {
  std::string out;
  int listed = 0, more = 0;
  for (const Check& c : v.checks) {
    if (c.passed || (!c.detail.empty() && v.reason.find(c.detail) != std::string::npos)) continue;
    if (listed == kMaxChecks) {
      ++more;
      continue;
    }
    ++listed;
    out += fmt::format("- {} [{}]: {}\n", c.name(), c.where, Cap(c.detail, kDetailCap));
  }
  if (more > 0) out += fmt::format("- ... and {} more failed checks\n", more);
  return out.empty() ? "" : "other failed checks:\n" + out;
}

// For a wrong result: the cases that were right before it (verification
// stops at the first wrong one).
std::string PassedCasesText(const Verdict& v) {
  std::vector<std::string> right;
  for (const Check& c : v.checks)
    if (c.passed && c.kind() == CheckKind::kCorrect &&
        std::find(right.begin(), right.end(), c.where) == right.end())
      right.push_back(c.where);
  if (right.empty()) return "no case was right before this one\n";
  std::string out = fmt::format("{} case(s) were right before this one:\n", right.size());
  for (size_t i = 0; i < right.size() && i < static_cast<size_t>(kMaxChecks); ++i)
    out += "- " + right[i] + "\n";
  if (right.size() > static_cast<size_t>(kMaxChecks))
    out += fmt::format("- ... and {} more\n", right.size() - kMaxChecks);
  return out;
}

std::string FailureText(const Verdict& v) {
  std::string out = "reason: " + Cap(TrimRight(v.reason), kDetailCap) + "\n" + FailedChecksText(v);
  if (v.status == VerdictStatus::kIncorrect) out += PassedCasesText(v);
  if (v.status != VerdictStatus::kIncorrect && !v.sandbox.output_head.empty())
    out += "the candidate printed:\n" + Cap(TrimRight(v.sandbox.output_head), kOutputCap) + "\n";
  return out;
}

std::string ResourcesText(const Verdict& v) {
  if (v.build.resources.empty()) return "";
  return "compiler resource usage (ptxas: registers, shared memory, spills per kernel):\n" +
         TrimRight(v.build.resources) + "\n";
}

std::string NotesText(const Verdict& v) {
  std::string out;
  for (size_t i = 0; i < v.notes.size() && i < kMaxNotes; ++i)
    out += "note: " + Cap(v.notes[i].text, kDetailCap) + "\n";
  return out;
}

std::string ExtractionAdvice(ExtractFailure f) {
  if (f == ExtractFailure::kTruncated)
    return "The reply was cut off before the code was complete. Keep it shorter: little or no "
           "explanation, no alternative versions, only the file.";
  return "Put the complete source file in one fenced code block.";
}

std::string EvolveGoal(size_t parents) {
  if (parents == 0) return "Write the fastest correct kernel for this task.";
  if (parents == 1)
    return "Write one kernel that is faster than candidate 1: work out what limits it and "
           "remove that limit, keeping it correct.";
  return fmt::format(
      "Write one kernel that is faster than {} candidates above: combine their best ideas "
      "into one, keeping it correct.",
      parents == 2 ? "both" : fmt::format("all {}", parents));
}

}  // namespace

Result<std::string> RenderTemplate(std::string_view text,
                                   const std::map<std::string, std::string>& values,
                                   const std::string& file) {
  std::string out;
  size_t pos = 0;
  for (size_t open = text.find("{{"); open != std::string_view::npos; open = text.find("{{", pos)) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + open, '\n'));
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos)
      return Status::Invalid(fmt::format("{}:{}: '{{{{' without a closing '}}}}'", file, line));
    std::string name(text.substr(open + 2, close - open - 2));
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    auto it = values.find(name);
    if (it == values.end())
      return Status::Invalid(
          fmt::format("{}:{}: unknown placeholder {{{{{}}}}}: it has no value (known: {})", file,
                      line, name, Known(values)));
    out.append(text.substr(pos, open - pos));
    out += it->second;
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

Result<PromptBuilder> PromptBuilder::Load(const std::filesystem::path& dir,
                                          const std::filesystem::path& include_dir,
                                          const LanguageRegistry& languages) {
  PromptBuilder b;
  b.dir_ = dir;
  b.languages_ = languages;
  auto load = [&](const std::string& file, const std::vector<std::string>& placeholders) -> Status {
    HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(dir / file));
    std::map<std::string, std::string> dummy;
    for (const auto& p : placeholders) dummy[p] = "";
    auto checked = RenderTemplate(text, dummy, (dir / file).string());
    if (!checked.ok()) return checked.status();
    b.templates_[StemOf(file)] = std::move(text);
    return Status::Ok();
  };
  for (const TemplateSpec& spec : TemplateSpecs())
    HONE_RETURN_IF_ERROR(load(spec.file, spec.placeholders));
  // Each language's rules (no placeholders) and its worked example (verbatim).
  for (const Language& l : languages.all()) {
    if (!l.prompt.rules.empty() && !b.templates_.count(l.prompt.rules))
      HONE_RETURN_IF_ERROR(load(l.prompt.rules + ".txt", {}));
    if (!l.prompt.example.empty() && !b.examples_.count(l.prompt.example)) {
      HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(dir / l.prompt.example));
      b.examples_[l.prompt.example] = TrimRight(std::move(text));
    }
  }
  HONE_ASSIGN_OR_RETURN(std::string contract, ReadFile(include_dir / "hone" / "kernel.h"));
  b.contract_ = TrimRight(std::move(contract));
  return b;
}

std::string PromptBuilder::version() const {
  std::string all = contract_;
  for (const auto& [stem, text] : templates_) all += "\n--- " + stem + "\n" + text;
  for (const auto& [file, text] : examples_) all += "\n--- " + file + "\n" + text;
  return ContentHash({"prompts-v1", all}).substr(0, 16);
}

std::string PromptBuilder::Render(const std::string& stem,
                                  const std::map<std::string, std::string>& values) const {
  auto it = templates_.find(stem);
  HONE_CHECK(it != templates_.end(), "no template " + stem);
  auto text = RenderTemplate(it->second, values, (dir_ / (stem + ".txt")).string());
  HONE_CHECK(text.ok(), text.status().message());  // Load checked every placeholder
  return TrimRight(std::move(text).value());
}

std::map<std::string, std::string> PromptBuilder::LanguageValues(const Language& l) {
  return {{"backend", DeviceOf(l)}, {"language", l.label}, {"lang_tag", l.source.fence()}};
}

const Language& PromptBuilder::LanguageOf(const Verdict& v) const {
  if (const Language* l = languages_.Find(v.language)) return *l;
  // A verdict stored before languages had names: its backend's native language.
  if (const Language* l = languages_.NativeFor(v.backend)) return *l;
  HONE_CHECK(!languages_.all().empty(), "a prompt builder with no language");
  return languages_.all().front();
}

std::string PromptBuilder::System(const Language& language) const {
  return Render("system", {{"backend", DeviceOf(language)}, {"language", language.label}});
}

// The problem as the task's reference kind shows it (task/reference_kind.h):
// a native task's reference source, a PyTorch task's module. Empty when
// there is nothing to show (a reference that cannot be read).
std::string ProblemListingText(const Task& task, const Language& language) {
  std::optional<ProblemListing> l = KindOf(task).text().Listing(task, language);
  if (!l) return "";
  std::string source = TrimRight(l->source);
  if (l->may_cut) source = Cap(source, kLogCap * 2);
  return "\n\n" + l->intro + ":\n```" + l->fence + "\n" + source + "\n```";
}

std::string ReferenceTimeText(const ReferenceTiming& r) {
  if (r.seconds <= 0) return "";
  return fmt::format(
      "Measured time of {} on the timed case, on this machine: {}. Your speedup is its time over "
      "yours.\n",
      r.what, FormatSeconds(r.seconds));
}

std::string PromptBuilder::LessonsSection(const std::vector<std::string>& lessons) const {
  if (lessons.empty()) return "";
  std::string list;
  for (size_t i = 0; i < lessons.size() && i < kMaxPromptLessons; ++i)
    list += (i ? "\n" : "") + ("- " + CapLine(TrimRight(lessons[i]), kLessonCap));
  return "\n\n" + Render("lessons", {{"lessons", list}});
}

std::string PromptBuilder::Context(const Task& task, const Language& language,
                                   const MachineInfo& machine, const ReferenceTiming& reference,
                                   const std::vector<std::string>& lessons) const {
  const std::string& device = DeviceOf(language);
  auto values = LanguageValues(language);
  values["contract"] = contract_;
  auto example = examples_.find(language.prompt.example);
  values["example"] = example == examples_.end() ? "" : example->second;
  values["task_name"] = task.name;
  values["task_category"] = task.category.empty() ? "uncategorised" : task.category;
  values["task_description"] = task.description;
  values["task_description"] += ProblemListingText(task, language);
  values["arguments"] = TrimRight(
      ContractArgumentsText(task, language.run.modelnew() ? "ModelNew.forward" : "hone_forward"));
  values["cases"] = TrimRight(CasesText(task, device));
  values["tolerances"] = TrimRight(ToleranceText(task));
  values["backend_rules"] = language.prompt.rules.empty() ? "" : Render(language.prompt.rules, {});
  values["hardware"] = TrimRight(MachineText(machine) + SpeedOfLightText(task, device, machine) +
                                 ReferenceTimeText(reference));
  values["lessons"] = LessonsSection(lessons);
  return Render(language.prompt.contract == "modelnew" ? "context_modelnew" : "context", values);
}

std::string PromptBuilder::FirstTurn(const Task& task, const Language& language,
                                     const MachineInfo& machine, const ReferenceTiming& reference,
                                     const std::vector<std::string>& lessons) const {
  auto values = LanguageValues(language);
  values["context"] = Context(task, language, machine, reference, lessons);
  return Render("task", values);
}

std::string PromptBuilder::FeedbackTurn(const Verdict& v) const {
  const Language& language = LanguageOf(v);
  auto values = LanguageValues(language);
  values["status"] = std::string(StatusName(v.status));
  values["summary"] = FeedbackSummary(v);
  values["next_step"] = NextStep(v.status, language);
  return Render("feedback", values);
}

std::string PromptBuilder::ExtractionFailedTurn(const Extraction& e) const {
  return Render("extraction_failed", {{"failure", ExtractFailureName(e.failure)},
                                      {"problem", e.detail},
                                      {"advice", ExtractionAdvice(e.failure)}});
}

std::string PromptBuilder::EvolveTurn(const Task& task, const Language& language,
                                      const MachineInfo& machine,
                                      const std::vector<PromptAttempt>& parents,
                                      const ReferenceTiming& reference,
                                      const std::vector<std::string>& lessons) const {
  std::string shown;
  for (size_t i = 0; i < parents.size(); ++i)
    shown += (i ? "\n\n" : "") +
             Render("evolve_parent", {{"number", std::to_string(i + 1)},
                                      {"lang_tag", language.source.fence()},
                                      {"code", TrimRight(parents[i].code)},
                                      {"summary", FeedbackSummary(parents[i].verdict)}});
  auto values = LanguageValues(language);
  values["context"] = Context(task, language, machine, reference, lessons);
  values["parents"] = shown;
  values["goal"] = EvolveGoal(parents.size());
  return Render("evolve", values);
}

namespace {

// Lines "- item", or "none" for an empty list (a template's section then
// still reads as a sentence).
std::string BulletsOrNone(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "- " : "\n- ") + CapLine(item, kDetailCap);
  return out;
}

}  // namespace

std::map<std::string, std::string> PromptBuilder::KernelValues(
    const Task& task, const Language& language, const MachineInfo& machine,
    const PromptAttempt& kernel, const ReferenceTiming& reference,
    const std::vector<std::string>& lessons) const {
  auto values = LanguageValues(language);
  values["context"] = Context(task, language, machine, reference, lessons);
  values["code"] = TrimRight(kernel.code);
  values["summary"] = FeedbackSummary(kernel.verdict);
  return values;
}

std::string PromptBuilder::IdeasTurn(const Task& task, const Language& language,
                                     const MachineInfo& machine, const PromptAttempt& kernel,
                                     const IdeaHistory& history, int count,
                                     const ReferenceTiming& reference,
                                     const std::vector<std::string>& lessons) const {
  auto values = KernelValues(task, language, machine, kernel, reference, lessons);
  values["applied"] = BulletsOrNone(history.applied);
  values["tried"] = BulletsOrNone(history.tried);
  values["count"] = std::to_string(count);
  return Render("ideas", values);
}

std::string PromptBuilder::IdeaTurn(const Task& task, const Language& language,
                                    const MachineInfo& machine, const PromptAttempt& kernel,
                                    const std::string& idea, const ReferenceTiming& reference,
                                    const std::vector<std::string>& lessons) const {
  auto values = KernelValues(task, language, machine, kernel, reference, lessons);
  values["idea"] = TrimRight(idea);
  return Render("idea", values);
}

// `text` with the candidate's file name (its number in the run, say
// 000001.cpp) written as the name the prompts give it, your_file.cpp: the
// name tells the model nothing, and a resumed run, whose replay may hand two
// identical proposals each other's stored attempts, must quote what the
// first run quoted, word for word.
std::string WithTheFileAsYourFile(std::string text, const Verdict& v) {
  const std::filesystem::path file = std::filesystem::path(v.candidate).filename();
  if (file.empty() || !file.has_extension()) return text;
  const std::string ext = file.extension().string(), stable = "your_file" + ext;
  ReplaceAll(text, file.string(), stable);
  // Any other attempt's file too (six digits, the same extension): a build
  // log cached by an older hone names the attempt that first had its bytes.
  const std::regex other("\\b[0-9]{6}" + std::regex_replace(ext, std::regex("\\."), "\\.") + "\\b");
  return std::regex_replace(text, other, stable);
}

std::string FeedbackSummary(const Verdict& v) {
  std::string out = fmt::format("status: {}\n", StatusName(v.status));
  if (v.status == VerdictStatus::kPassed)
    out += PassedText(v);
  else if (v.status == VerdictStatus::kCompileError)
    out += CompileErrorText(v);
  else
    out += FailureText(v);
  out += ResourcesText(v) + NotesText(v);
  return WithTheFileAsYourFile(TrimRight(out), v);
}

}  // namespace hone
