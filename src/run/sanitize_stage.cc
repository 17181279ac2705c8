#include "run/sanitize_stage.h"

#include "core/wording.h"
#include "run/standalone_tensors.h"
#include "tools/cuda_tools.h"
#include "tools/sanitize.h"
#include "verify/note_words.h"

namespace hone {
namespace {

// The smallest case: the tools slow a kernel down 10-100x.
const CaseShapes& SmallestCase(const std::vector<CaseShapes>& cases) {
  auto elements = [&](const CaseShapes& cs) {
    int64_t n = 0;
    for (const auto& shape : cs.inputs) n += NumElements(shape);
    for (const auto& shape : cs.outputs) n += NumElements(shape);
    return n;
  };
  const CaseShapes* smallest = &cases.front();
  for (const auto& cs : cases)
    if (elements(cs) < elements(*smallest)) smallest = &cs;
  return *smallest;
}

}  // namespace

std::vector<std::string> CompatKernelFilter(const std::vector<std::string>& kernels) {
  std::vector<std::string> args;
  for (const std::string& k : kernels) args.insert(args.end(), {"--kernel-name", "kns=" + k});
  return args;
}

std::string SanitizerSkipReason(const BackendTraits& backend, const Language& language, bool compat,
                                const std::vector<std::string>& kernels) {
  if (!backend.sanitizer)
    return "compute-sanitizer checks CUDA candidates; this one runs on the " + backend.label;
  if (!language.run.sanitizer)
    return "compute-sanitizer does not run " + language.label + " candidates";
  // Its work is PyTorch's (a passing file without kernels had --allow
  // library): memcheck over torch's kernels at full size takes up to minutes
  // and checks nothing the candidate wrote.
  if (compat && kernels.empty())
    return "the file defines no kernel of its own (its work is PyTorch's); compute-sanitizer "
           "checks a candidate's own kernels";
  return "";
}

Status SanitizeStage::Run(const std::filesystem::path& library) {
  Verdict::Sanitizer& report = s_.v.sanitizer.emplace();
  auto started = RunState::Clock::now();
  auto done = [&] {
    report.seconds = std::chrono::duration<double>(RunState::Clock::now() - started).count();
    return Status::Ok();
  };
  report.not_run =
      SanitizerSkipReason(s_.backend.traits(), s_.language, s_.compat, s_.cand.kernels);
  if (!report.not_run.empty()) return done();
  std::optional<std::filesystem::path> tool = FindCudaTool("compute-sanitizer");
  if (!tool) {
    report.not_run = "compute-sanitizer not found (PATH, CUDA_HOME/bin, /usr/local/cuda/bin)";
    return done();
  }
  const CaseShapes& smallest = SmallestCase(s_.cases);
  report.case_label = smallest.c->label;
  HONE_RETURN_IF_ERROR(runner_.BindCase(smallest, reference_));
  if (s_.decided()) return done();
  ClearStoreOnExit clear{*s_.store};
  HONE_ASSIGN_OR_RETURN(RefSet ref,
                        reference_.Reference(smallest, s_.opt.seed * 1000003ull + 7, 0, 0, false));
  LoadInputs(*s_.store, *s_.cand.arena, s_.cand.sets[0], ref.inputs);
  HONE_RETURN_IF_ERROR(s_.cand.arena->Sync());
  ToolScratch scratch;
  std::string error;
  if (!scratch.Create("hone-sanitize", &error)) return Status::Internal(error);
  HONE_ASSIGN_OR_RETURN(SanitizeJob job, MakeJob(*tool, library, scratch.path()));
  if (s_.compat) {
    // A ModelNew file runs torch and Python under the tool: memcheck only
    // (racecheck and initcheck would take minutes over torch's own kernels),
    // each tensor its own allocation (torch's caching allocator off), so a
    // write past a tensor torch allocated is seen.
    job.tools = {"memcheck"};
    // Its own kernels alone are checked: torch's (the inputs' draw, the
    // copies) would take most of the tool's time at full size.
    job.tool_args = CompatKernelFilter(s_.cand.kernels);
    const auto& k = s_.cand.kernels;
    s_.v.AddNote(notes::SanitizerCompatMemcheck(k));
  }
  s_.Progress("sanitize " + smallest.c->label);
  report.tools = RunSanitizer(job);
  RecordFindings(report, smallest.c->label);
  return done();
}

Result<SanitizeJob> SanitizeStage::MakeJob(const std::filesystem::path& tool,
                                           const std::filesystem::path& library,
                                           const std::filesystem::path& scratch) {
  SanitizeJob job;
  job.compute_sanitizer = tool;
  job.timeout = SanitizeToolTimeout();
  HONE_ASSIGN_OR_RETURN(job.call, PrepareStandaloneCall(s_, library, scratch));
  return job;
}

void SanitizeStage::RecordFindings(const Verdict::Sanitizer& report, const std::string& label) {
  for (const auto& t : report.tools) {
    if (t.errors == 0) continue;
    // The finding's words are its note's, and its check's and reason's too.
    Note found = notes::SanitizerFound(t.tool, t.errors, t.first);
    const std::string& detail = found.text;
    // memcheck's findings are wrong accesses; racecheck's and initcheck's
    // may be benign (a race between equal writes, padding never used).
    bool fatal = t.tool == "memcheck";
    s_.v.checks.push_back({{CheckKind::kSanitizer, t.tool}, label, !fatal, detail});
    if (fatal)
      s_.Decide(VerdictStatus::kRuntimeError, detail + " [" + label + "]");
    else
      s_.v.AddNote(std::move(found));
  }
}

}  // namespace hone
