#include "compat/compat_scan.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "build/compiler_builder.h"
#include "core/fs.h"
#include "core/hash.h"
#include "core/subprocess.h"

namespace hone {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

Status FieldError(const std::string& field, const std::string& what) {
  return Status::Invalid("scanner reply: '" + field + "' " + what);
}

// Optional fields: absent or null is the default; a wrong type is an error.
template <typename T>
Status Read(const json& j, const std::string& key, const std::string& where, T* out) {
  if (!j.contains(key) || j[key].is_null()) return Status::Ok();
  try {
    *out = j[key].get<T>();
  } catch (const json::exception&) {
    return FieldError(where + key, "has the wrong type");
  }
  return Status::Ok();
}

Result<CompatExtension> ExtensionFromJson(const json& j, const std::string& where) {
  if (!j.is_object()) return FieldError(where, "must be an object");
  CompatExtension e;
  std::string at = where + ".";
  HONE_RETURN_IF_ERROR(Read(j, "call", at, &e.call));
  HONE_RETURN_IF_ERROR(Read(j, "line", at, &e.line));
  HONE_RETURN_IF_ERROR(Read(j, "scope", at, &e.scope));
  HONE_RETURN_IF_ERROR(Read(j, "in_try", at, &e.in_try));
  HONE_RETURN_IF_ERROR(Read(j, "resolved", at, &e.resolved));
  HONE_RETURN_IF_ERROR(Read(j, "unresolved_reason", at, &e.unresolved_reason));
  HONE_RETURN_IF_ERROR(Read(j, "name", at, &e.name));
  HONE_RETURN_IF_ERROR(Read(j, "key", at, &e.key));
  if (j.contains("args") && !j["args"].is_null()) {
    if (!j["args"].is_object()) return FieldError(at + "args", "must be an object");
    e.args = j["args"];
  }
  if (e.call != "load_inline" && e.call != "load")
    return FieldError(at + "call", "must be load_inline or load");
  if (e.resolved && e.key.empty()) return FieldError(at + "key", "is missing");
  return e;
}

// The scanner's JSON line: the last line of its output that is an object
// (a Python may print warnings around it).
Result<json> ReplyLine(const std::string& output) {
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.front() == '{') last = line;
  json j = json::parse(last, nullptr, false);
  if (last.empty() || j.is_discarded() || !j.is_object())
    return Status::Invalid("no JSON reply in its output: " + output.substr(0, 300));
  return j;
}

std::vector<std::string> Interpreters(const std::string& python) {
  if (!python.empty()) return {python};
  if (const char* e = std::getenv("HONE_PYTHON"); e && *e) return {e};
  std::vector<std::string> out;
  if (FindProgram("python3").ok()) out.push_back("python3");
  out.push_back("/usr/bin/python3");
  return out;
}

}  // namespace

Result<CompatScan> CompatScanFromJson(const json& reply) {
  if (!reply.is_object()) return Status::Invalid("scanner reply: not an object");
  CompatScan s;
  HONE_RETURN_IF_ERROR(Read(reply, "ok", "", &s.ok));
  HONE_RETURN_IF_ERROR(Read(reply, "error", "", &s.error));
  if (reply.contains("model_new") && reply["model_new"].is_object()) {
    const json& m = reply["model_new"];
    HONE_RETURN_IF_ERROR(Read(m, "defined", "model_new.", &s.model_new.defined));
    HONE_RETURN_IF_ERROR(Read(m, "how", "model_new.", &s.model_new.how));
    HONE_RETURN_IF_ERROR(Read(m, "line", "model_new.", &s.model_new.line));
  }
  if (reply.contains("extensions") && !reply["extensions"].is_null()) {
    if (!reply["extensions"].is_array()) return FieldError("extensions", "must be a list");
    for (size_t i = 0; i < reply["extensions"].size(); ++i) {
      HONE_ASSIGN_OR_RETURN(
          CompatExtension e,
          ExtensionFromJson(reply["extensions"][i], "extensions[" + std::to_string(i) + "]"));
      s.extensions.push_back(std::move(e));
    }
  }
  HONE_RETURN_IF_ERROR(Read(reply, "kernels", "", &s.kernels));
  HONE_RETURN_IF_ERROR(Read(reply, "triton_kernels", "", &s.triton_kernels));
  HONE_RETURN_IF_ERROR(Read(reply, "builds_extension", "", &s.builds_extension));
  if (reply.contains("uses") && reply["uses"].is_object()) {
    const json& u = reply["uses"];
    HONE_RETURN_IF_ERROR(Read(u, "side_streams", "uses.", &s.uses.side_streams));
    HONE_RETURN_IF_ERROR(Read(u, "cuda_graphs", "uses.", &s.uses.cuda_graphs));
    HONE_RETURN_IF_ERROR(Read(u, "external_libraries", "uses.", &s.uses.external_libraries));
  }
  HONE_RETURN_IF_ERROR(Read(reply, "language", "", &s.language));
  if (reply.contains("dsl_kernels") && reply["dsl_kernels"].is_array())
    for (const json& k : reply["dsl_kernels"])
      if (k.is_object() && k.contains("name") && k["name"].is_string())
        s.dsl_kernels.push_back(k["name"].get<std::string>());
  if (reply.contains("findings") && !reply["findings"].is_null()) {
    if (!reply["findings"].is_array()) return FieldError("findings", "must be a list");
    for (size_t i = 0; i < reply["findings"].size(); ++i) {
      const json& f = reply["findings"][i];
      const std::string at = "findings[" + std::to_string(i) + "].";
      if (!f.is_object()) return FieldError(at, "must be an object");
      LintFinding finding;
      HONE_RETURN_IF_ERROR(Read(f, "rule", at, &finding.rule));
      HONE_RETURN_IF_ERROR(Read(f, "line", at, &finding.line));
      HONE_RETURN_IF_ERROR(Read(f, "token", at, &finding.token));
      HONE_RETURN_IF_ERROR(Read(f, "detail", at, &finding.explanation));
      if (finding.rule.empty()) return FieldError(at + "rule", "is missing");
      s.findings.push_back(std::move(finding));
    }
  }
  if (!s.ok && s.error.empty()) return FieldError("error", "is missing although ok is false");
  return s;
}

namespace {

Result<CompatScan> ScanUncached(const fs::path& file, const fs::path& python_dir,
                                const std::string& python,
                                const std::vector<std::string>& decorators) {
  fs::path script = python_dir / "hone_pyscan.py";
  std::error_code ec;
  if (!fs::is_regular_file(script, ec))
    return Status::NotFound(script.string() + ": the ModelNew scanner is missing");
  CommandOptions o;
  o.timeout = std::chrono::seconds(20);
  o.max_output_bytes = 64 << 20;  // resolved sources come back in the reply
  std::string tried;
  for (const std::string& py : Interpreters(python)) {
    std::vector<std::string> argv = {py, script.string()};
    for (const auto& d : decorators) argv.insert(argv.end(), {"--kernel-decorator", d});
    argv.push_back(file.string());
    auto run = RunCommand(argv, o);
    std::string why;
    if (!run.ok()) {
      why = run.status().message();
    } else if (run->timed_out) {
      // Another interpreter would take as long: the file is the problem.
      return Status::Unavailable(file.string() + ": the ModelNew scanner (" + py +
                                 ") took longer than 20 s");
    } else if (!run->succeeded()) {
      why = "exit " + std::to_string(run->exit_code) + ": " + run->output.substr(0, 300);
    } else if (auto reply = ReplyLine(run->output); !reply.ok()) {
      why = reply.status().message();
    } else {
      return CompatScanFromJson(*reply);
    }
    tried += (tried.empty() ? "" : "; ") + py + " (" + why + ")";
  }
  return Status::Unavailable("cannot scan " + file.string() + ": no Python could run " +
                             script.string() + "; tried " + tried +
                             " (any Python 3.8 or later will do: set HONE_PYTHON)");
}

// Scans already made in this process, by what they read: `hone eval` scans a
// file before it loads the problem (a verdict known at once) and again to
// prebuild it. A scan that read other files (a load() call's sources) is not
// kept: those may change.
class ScanMemo {
 public:
  std::optional<CompatScan> Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = scans_.find(key);
    if (it == scans_.end()) return std::nullopt;
    return it->second;
  }
  void Keep(const std::string& key, const CompatScan& scan) {
    for (const CompatExtension& e : scan.extensions)
      if (e.call == "load") return;
    std::lock_guard<std::mutex> lock(mu_);
    if (scans_.size() >= kMaxScans) scans_.clear();
    scans_.emplace(key, scan);
  }

 private:
  static constexpr size_t kMaxScans = 64;
  std::mutex mu_;
  std::map<std::string, CompatScan> scans_;
};

ScanMemo& Memo() {
  static ScanMemo* memo = new ScanMemo();  // never destroyed: scans may run at exit
  return *memo;
}

}  // namespace

Result<CompatScan> ScanCompatFile(const fs::path& file, const fs::path& python_dir,
                                  const std::string& python,
                                  const std::vector<std::string>& decorators) {
  auto text = ReadFile(file);
  if (!text.ok()) return ScanUncached(file, python_dir, python, decorators);
  std::string all = file.string() + "\n" + python_dir.string() + "\n" + python;
  for (const auto& d : decorators) all += "\n" + d;
  const std::string key = ContentHash({all, *text});
  if (auto kept = Memo().Find(key)) return *kept;
  auto scan = ScanUncached(file, python_dir, python, decorators);
  if (scan.ok()) Memo().Keep(key, *scan);
  return scan;
}

std::vector<LintFinding> CompatScan::AllFindings() const {
  std::vector<LintFinding> out;
  if (!builds_extension)
    out.push_back({"library", model_new.line, "ModelNew",
                   "launches no kernel of its own: ModelNew builds no extension (load_inline, "
                   "cpp_extension.load or Triton) and only calls PyTorch; allow rule 'library' "
                   "to score it"});
  out.insert(out.end(), findings.begin(), findings.end());
  return out;
}

}  // namespace hone
