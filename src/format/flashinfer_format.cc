#include "format/flashinfer_format.h"

#include <algorithm>
#include <map>

#include "core/fs.h"
#include "format/flashinfer_codegen.h"
#include "format/flashinfer_trace.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using namespace flashinfer;

// Every regular file under `dir` with `extension`, sorted (the format's own
// loaders glob recursively).
std::vector<fs::path> FilesUnder(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string name = it->path().filename().string();
    if (!name.empty() && (name[0] == '.' || name[0] == '_')) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == extension) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The dataset folder of a definition: the parent of its definitions/
// ancestor, else the definition's own folder (SOL-ExecBench's problems).
fs::path DatasetRoot(const fs::path& definition) {
  fs::path abs = fs::absolute(definition).lexically_normal();
  for (fs::path p = abs.parent_path(); p.has_relative_path(); p = p.parent_path())
    if (p.filename() == "definitions") return p.parent_path();
  return abs.parent_path();
}

Result<fs::path> FindWorkloads(const Definition& def, const PartOptions& options) {
  if (!options.workloads.empty()) {
    std::error_code ec;
    if (!fs::exists(options.workloads, ec) || fs::is_directory(options.workloads, ec))
      return Status::Invalid("--workloads " + options.workloads.string() + ": file not found");
    return options.workloads;
  }
  fs::path root = DatasetRoot(def.file);
  for (const auto& f : FilesUnder(root / "workloads", ".jsonl"))
    if (f.stem() == def.name) return f;
  fs::path beside = def.file.parent_path() / "workload.jsonl";
  std::error_code ec;
  if (fs::is_regular_file(beside, ec)) return beside;
  return Status::Invalid(def.file.string() + ": no workloads for definition " + def.name +
                         " (looked for " + (root / "workloads").string() + "/**/" + def.name +
                         ".jsonl and " + beside.string() + "); name a file with --workloads");
}

std::string SafeFileName(const std::string& name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out.empty() ? "solution" : out;
}

class FlashInferTrace : public TaskFormat {
 public:
  std::string name() const override { return "flashinfer-trace"; }
  std::string describe() const override {
    return "a FlashInfer-Trace definition (.json) or dataset folder (definitions/, workloads/, "
           "solutions/)";
  }
  bool ClaimsProblem(const fs::path& path) const override {
    return Classify(path) == FileKind::kDefinition;
  }
  bool ClaimsSuite(const fs::path& path) const override {
    std::error_code ec;
    return fs::is_directory(path / "definitions", ec);
  }

  Result<std::vector<ProblemPart>> Parts(const fs::path& problem,
                                         const PartOptions& options) const override {
    HONE_ASSIGN_OR_RETURN(Definition def, ReadDefinition(problem));
    HONE_ASSIGN_OR_RETURN(fs::path file, FindWorkloads(def, options));
    HONE_ASSIGN_OR_RETURN(std::vector<Workload> workloads, ReadWorkloads(file, def));
    HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
    std::vector<ProblemPart> parts;
    for (const Workload& w : workloads) {
      HONE_ASSIGN_OR_RETURN(fs::path load, WriteProblemFile(def, w, DatasetRoot(problem), cache));
      parts.push_back({load, WorkloadLabel(w), w.uuid});
    }
    return parts;
  }

  Result<FormatCandidate> Candidate(const fs::path& problem,
                                    const fs::path& candidate) const override {
    if (Classify(candidate) != FileKind::kSolution)
      return TaskFormat::Candidate(problem, candidate);
    HONE_ASSIGN_OR_RETURN(Definition def, ReadDefinition(problem));
    HONE_ASSIGN_OR_RETURN(Solution s, ReadSolution(candidate));
    if (s.definition != def.name)
      return Status::Invalid(candidate.string() + ": definition: the solution is for '" +
                             s.definition + "', the problem is '" + def.name + "'");
    return Written(s, def);
  }

  // FlashInfer-Bench's statuses, and SOL-ExecBench's REWARD_HACK for a
  // rejected candidate (a hack or a broken rule).
  std::string StatusOf(const Verdict& v) const override {
    switch (v.status) {
      case VerdictStatus::kPassed:
        return "PASSED";
      case VerdictStatus::kCompileError:
        return "COMPILE_ERROR";
      case VerdictStatus::kTimeout:
        return "TIMEOUT";
      case VerdictStatus::kRejected:
        return "REWARD_HACK";
      case VerdictStatus::kBusy:  // never exported (flashinfer_trace_export.cc)
        return "BUSY";
      case VerdictStatus::kIncorrect:
        if (v.reason.find(kReturnedShape) != std::string::npos) return "INCORRECT_SHAPE";
        return "INCORRECT_NUMERICAL";
      case VerdictStatus::kRuntimeError:
        // The ModelNew glue checks a returned output's shape and dtype.
        if (v.reason.find(kWrongShape) != std::string::npos) return "INCORRECT_SHAPE";
        if (v.reason.find(kWrongDtype) != std::string::npos) return "INCORRECT_DTYPE";
        return "RUNTIME_ERROR";
    }
    return "RUNTIME_ERROR";
  }

  Result<std::vector<SuiteEntry>> Discover(const fs::path& suite,
                                           const SuiteLayout& layout) const override {
    std::map<std::string, std::vector<Solution>> solutions;
    for (const auto& f : FilesUnder(suite / "solutions", ".json")) {
      HONE_ASSIGN_OR_RETURN(Solution s, ReadSolution(f));
      solutions[s.definition].push_back(std::move(s));
    }
    std::vector<SuiteEntry> out;
    for (const auto& f : FilesUnder(suite / "definitions", ".json")) {
      HONE_ASSIGN_OR_RETURN(Definition def, ReadDefinition(f));
      HONE_ASSIGN_OR_RETURN(std::vector<ProblemPart> parts, Parts(f, PartOptions{}));
      SuiteEntry model;
      model.category = def.op_type.empty() ? "flashinfer-trace" : def.op_type;
      for (const Solution& s : solutions[def.name]) {
        HONE_ASSIGN_OR_RETURN(FormatCandidate c, Written(s, def));
        if (layout.is_solution && !layout.is_solution(c.file)) continue;
        model.solutions.push_back(c.file);
        if (!c.allow.empty()) model.allow[c.file] = c.allow;
      }
      for (const ProblemPart& p : parts) {
        SuiteEntry e = model;
        e.task = p.load;
        e.label = def.name + " " + p.label;
        out.push_back(std::move(e));
      }
    }
    if (out.empty())
      return Status::Invalid(suite.string() + ": no definitions under " +
                             (suite / "definitions").string());
    HONE_RETURN_IF_ERROR(ApplyOnly(suite, out, layout));
    return out;
  }

 private:
  // The solution's files, its ModelNew named after it (what a bench lists).
  static Result<FormatCandidate> Written(const Solution& s, const Definition& def) {
    HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
    HONE_ASSIGN_OR_RETURN(WrittenSolution w, WriteSolutionFiles(s, def, cache));
    fs::path named =
        w.modelnew.parent_path() / (SafeFileName(s.name) + w.modelnew.extension().string());
    // Written whole or not at all: another evaluation of the same solution
    // may read it at once (a copy in place would show it half-written).
    std::error_code ec;
    if (!fs::is_regular_file(named, ec)) {
      HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(w.modelnew));
      HONE_RETURN_IF_ERROR(WriteFileAtomic(named, text));
    }
    return FormatCandidate{named, w.allow, s.name, w.note};
  }
};

}  // namespace

std::unique_ptr<TaskFormat> FlashInferTraceFormat() { return std::make_unique<FlashInferTrace>(); }

}  // namespace hone
