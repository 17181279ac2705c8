#include "task/oracle_service.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/clock.h"
#include "core/fs.h"
#include "core/interrupt_cleanup.h"
#include "core/json_text.h"
#include "core/trace.h"

namespace hone {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kMaxRestarts = 3;

Result<TensorDecl> DeclFromSpec(const OracleTensorSpec& s, const std::string& file) {
  TensorDecl d;
  d.name = s.name;
  auto dt = ParseDtype(s.dtype);
  if (!dt)
    return Status::Invalid(file + ": " + s.role + " '" + s.name + "' has dtype '" + s.dtype +
                           "', which the candidate contract cannot carry");
  d.dtype = *dt;
  for (int64_t n : s.shape) {
    auto e = Expr::Parse(std::to_string(n));
    if (!e.ok()) return e.status();
    d.shape.push_back(*e);
  }
  return d;
}

// What a problem file says of itself in `hone_task` (hone_oracle.py
// parse_task_info, which checked the types): the files hone writes for
// other task formats name their problem and tolerance there.
void ApplyTaskInfo(const json& info, Task& t) {
  if (!info.is_object()) return;
  t.name = info.value("name", t.name);
  t.category = info.value("category", t.category);
  t.description = info.value("description", t.description);
  const json tol = info.value("tolerance", json::object());
  if (tol.contains("atol")) t.atol = tol["atol"].get<double>();
  if (tol.contains("rtol")) t.rtol = tol["rtol"].get<double>();
  if (tol.contains("required_matched_ratio"))
    t.required_matched_ratio = tol["required_matched_ratio"].get<double>();
  t.eager_baseline_only = info.value("baselines", "") == "eager";
  t.data_beside = info.value("data_beside", false);
}

std::string ShapesText(const OracleProblem& p) {
  std::string out;
  for (const auto& [name, size] : p.sizes) {
    if (!out.empty()) out += ", ";
    out += name + "=" + std::to_string(size.scaled);
    if (size.scaled != size.original) out += " (of " + std::to_string(size.original) + ")";
  }
  for (const auto& [name, value] : p.unscaled) {
    if (!out.empty()) out += ", ";
    out += name + "=" + std::to_string(value);
  }
  return out.empty() ? "as written" : out;
}

Result<HostTensor> ReadHostTensor(const OracleTensorFile& f) {
  HostTensor t;
  auto dt = ParseDtype(f.spec.dtype);
  if (!dt) return Status::Invalid(f.file.string() + ": unknown dtype " + f.spec.dtype);
  t.dtype = *dt;
  t.shape = f.spec.shape;
  HONE_ASSIGN_OR_RETURN(t.data, ReadTensorFile(f));
  return t;
}

}  // namespace

std::string SizePolicy::text() const {
  if (shape_scale) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "scale %g", *shape_scale);
    return buf;
  }
  if (!policy.empty()) return "policy " + policy;
  return "full size";
}

bool IsPyTorchTaskFile(const std::filesystem::path& path) {
  return path.extension() == kPyTorchFileExtension;
}

Result<std::unique_ptr<OracleService>> OracleService::Launch(const std::string& device,
                                                             OracleOptions options) {
  std::unique_ptr<OracleService> s(new OracleService());
  s->device_ = device;
  options.device = device;
  s->options_ = std::move(options);
  const char* tmp = std::getenv("TMPDIR");
  HONE_ASSIGN_OR_RETURN(s->work_dir_, MakeTempDir(tmp && *tmp ? tmp : "/tmp", "hone-oracle"));
  RemoveOnInterrupt(s->work_dir_);
  Trace("oracle: starting");
  s->launching_ = std::async(std::launch::async, [options = s->options_, service = s.get()]() {
    auto start = Clock::now();
    auto c = OracleClient::Start(options);
    service->launch_seconds_ = SecondsSince(start);  // read after the future's get()
    Trace(c.ok() ? "oracle: hello (torch imported)" : "oracle: failed to start");
    return c;
  });
  return s;
}

Result<std::unique_ptr<OracleService>> OracleService::Start(const std::string& device,
                                                            OracleOptions options) {
  HONE_ASSIGN_OR_RETURN(auto s, Launch(device, std::move(options)));
  HONE_RETURN_IF_ERROR(s->EnsureRunning());
  return s;
}

OracleService::~OracleService() {
  AwaitLaunch();
  client_.reset();
  std::error_code ec;
  if (!work_dir_.empty()) std::filesystem::remove_all(work_dir_, ec);
  ForgetOnInterrupt(work_dir_);
}

void OracleService::Abandon() {
  AwaitLaunch();
  if (client_) client_->Abandon();
}

void OracleService::AwaitLaunch() const {
  if (!launching_.valid()) return;
  auto c = launching_.get();
  cost_.start_seconds += launch_seconds_;
  if (c.ok()) {
    client_ = std::move(*c);
  } else {
    launch_status_ = c.status();
  }
}

Status OracleService::EnsureRunning() {
  AwaitLaunch();
  if (!launch_status_.ok()) {
    Status failed = launch_status_;
    launch_status_ = Status::Ok();  // the next call starts one afresh
    return failed;
  }
  if (client_ && client_->alive()) return Status::Ok();
  if (client_) {
    if (++restarts_ > kMaxRestarts)
      return Status::Unavailable("the oracle died " + std::to_string(restarts_) +
                                 " times; giving up (its stderr: " + client_->StderrTail(1024) +
                                 ")");
    for (auto& [hash, l] : loaded_) l.problem.clear();  // ids of the dead process
  }
  auto start = Clock::now();
  auto c = OracleClient::Start(options_);
  if (!c.ok()) return c.status();
  client_ = std::move(*c);
  cost_.start_seconds += SecondsSince(start);
  return Status::Ok();
}

json OracleService::runtime_hint() {
  if (!launching_.valid() && client_) return client_->hello();
  if (!runtime_hint_) {
    auto r = OracleClient::ProbeRuntime(options_);
    runtime_hint_ = r.ok() ? std::move(*r) : json();
    Trace(r.ok() ? "oracle: runtime probed" : "oracle: runtime probe failed");
  }
  return *runtime_hint_;
}

std::filesystem::path OracleService::python_dir() const {
  if (client_) return client_->script().parent_path();
  auto script = OracleScript(options_);
  return script.ok() ? script->parent_path() : std::filesystem::path();
}

std::string OracleService::torch_version() const {
  AwaitLaunch();
  return client_ ? client_->hello().value("torch", "") : "";
}

Result<Task> OracleService::ToTask(const OracleProblem& p, const std::filesystem::path& file,
                                   const SizePolicy& sizes) {
  const std::string where = file.string();
  Task t;
  t.name = file.stem().string();
  t.category = "pytorch";
  t.description = "PyTorch problem " + file.filename().string() + " (KernelBench format)";
  t.dir = file.parent_path();
  t.reference = file;
  PyTorchInfo info;
  info.file = file;
  info.problem = p.problem;
  info.device = p.device.empty() ? device_ : p.device;
  info.torch_version = p.reply.value("torch", torch_version());
  info.scale = p.scale;
  info.policy = p.policy;
  info.shapes = ShapesText(p);
  if (auto text = ReadFile(file); text.ok()) info.source = std::move(*text);
  info.model_seed = p.model_seed;
  const json& inputs = p.reply.at("inputs");
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const OracleTensorSpec& s = p.inputs[i];
    HONE_ASSIGN_OR_RETURN(TensorDecl d, DeclFromSpec(s, where));
    t.inputs.push_back(std::move(d));
    if (s.kind == "forward_arg") ++info.num_forward_args;
    info.input_kinds.push_back(s.kind);
    info.python_types.push_back(s.python_type);
    const json& j = inputs[i];
    bool constant = j.value("constant", false);
    info.python_values.push_back(constant && j.contains("value") ? JsonText(j["value"]) : "");
  }
  for (const auto& s : p.outputs) {
    HONE_ASSIGN_OR_RETURN(TensorDecl d, DeclFromSpec(s, where));
    t.outputs.push_back(std::move(d));
  }
  if (t.outputs.empty()) return Status::Invalid(where + ": the model returns no tensor");
  for (const auto& d : p.distributions) {
    info.distribution_names.push_back(d.name);
    if (d.name == "scaled") info.scaling_allowed = true;
  }
  ShapeCase c;
  c.label = info.shapes;
  for (const auto& [name, size] : p.sizes) c.symbols[name] = static_cast<double>(size.scaled);
  for (const auto& [name, v] : p.unscaled) c.symbols[name] = static_cast<double>(v);
  t.cases.push_back(std::move(c));
  if (p.reply.contains("cost") && p.reply["cost"].is_object()) {
    const json& cost = p.reply["cost"];
    if (cost.contains("bytes") && cost["bytes"].is_number())
      t.cost_bytes = Expr::Parse(std::to_string(cost["bytes"].get<int64_t>())).value();
    if (cost.contains("flops") && cost["flops"].is_number() && cost["flops"].get<int64_t>() > 0)
      t.cost_flops = Expr::Parse(std::to_string(cost["flops"].get<int64_t>())).value();
  }
  info.uses_rng = p.reply.value("uses_rng", false);
  if (p.reply.contains("memory") && p.reply["memory"].is_object()) {
    const json& m = p.reply["memory"];
    info.forward_peak_bytes = m.value("forward_peak_bytes", int64_t{0});
    info.draw_peak_bytes = m.value("draw_peak_bytes", int64_t{0});
    info.model_bytes = m.value("model_bytes", int64_t{0});
  }
  ApplyTaskInfo(p.reply.value("task", json::object()), t);
  t.seeds = 3;
  t.num_distributions = std::max<int>(1, static_cast<int>(p.distributions.size()));
  t.hash = p.task_hash;
  info.estimated = p.reply.value("estimated", false);
  // An estimate is not kept by the oracle: no id to generate from.
  if (!info.estimated) loaded_[t.hash] = Loaded{file, sizes, p.problem};
  t.pytorch = std::move(info);
  return t;
}

Result<Task> OracleService::Load(const std::filesystem::path& file, const SizePolicy& sizes,
                                 LoadMode mode) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return Status::Invalid(file.string() + ": PyTorch problem file not found");
  OracleLoadOptions lo;
  lo.shape_scale = sizes.shape_scale;
  lo.policy = sizes.policy;
  lo.estimate = mode == LoadMode::kEstimate;
  Result<OracleProblem> p = Status::Internal("not loaded");
  for (int attempt = 0; attempt < 2; ++attempt) {
    HONE_RETURN_IF_ERROR(EnsureRunning());
    auto start = Clock::now();
    p = client_->Load(file, lo);
    cost_.load_seconds += SecondsSince(start);
    if (p.ok() || client_->alive()) break;
  }
  if (!p.ok()) return p.status();
  if (p->skipped) return Status::Unavailable("skipped: " + p->skip_reason);
  return ToTask(*p, std::filesystem::absolute(file, ec), sizes);
}

Result<std::vector<FolderEntry>> OracleService::LoadFolder(const std::filesystem::path& dir,
                                                           const SizePolicy& sizes, LoadMode mode) {
  std::error_code ec;
  std::vector<std::string> names;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (it->is_regular_file() && IsPyTorchTaskFile(n) && n[0] != '_') names.push_back(n);
  }
  if (ec) return Status::Invalid(dir.string() + ": cannot read the folder: " + ec.message());
  std::sort(names.begin(), names.end(), NaturalLess);
  std::vector<FolderEntry> out;
  for (const auto& n : names) out.push_back(LoadEntry(dir / n, sizes, mode));
  return out;
}

FolderEntry OracleService::LoadEntry(const std::filesystem::path& file, const SizePolicy& sizes,
                                     LoadMode mode) {
  FolderEntry e;
  e.file = file;
  auto t = Load(e.file, sizes, mode);
  if (t.ok()) {
    e.task = std::move(*t);
  } else {
    const std::string& m = t.status().message();
    e.skipped = t.status().code() == StatusCode::kUnavailable && m.rfind("skipped: ", 0) == 0;
    e.reason = e.skipped ? m.substr(9) : m;
    if (!e.skipped && (!client_ || !client_->alive())) e.reason += " (the oracle died)";
  }
  return e;
}

Result<std::string> OracleService::ProblemId(const Task& task) {
  HONE_CHECK(task.pytorch.has_value(), task.name + " is not a PyTorch task");
  HONE_RETURN_IF_ERROR(EnsureRunning());
  auto it = loaded_.find(task.hash);
  if (it == loaded_.end())
    return Status::Internal(task.name + " was loaded by another oracle (" + task.pytorch->device +
                            "), not this one (" + device_ + ")");
  if (!it->second.problem.empty()) return it->second.problem;
  Loaded l = it->second;
  HONE_ASSIGN_OR_RETURN(Task again, Load(l.file, l.sizes));
  if (again.hash != task.hash)
    return Status::Invalid(l.file.string() + ": the file changed while hone ran");
  return loaded_[task.hash].problem;
}

namespace {

// Where Set keeps (seed, distribution, scale)'s files, and its cache key.
std::string SetKey(const Task& task, int64_t seed, int distribution, double scale) {
  char scale_text[32] = "";
  if (scale != 1) std::snprintf(scale_text, sizeof scale_text, "-x%a", scale);
  return task.hash + "-" + std::to_string(seed) + "-" + std::to_string(distribution) + scale_text;
}

}  // namespace

void OracleService::Forget(const Task& task, int64_t seed, int distribution, double scale) {
  const std::string key = SetKey(task, seed, distribution, scale);
  generated_.erase(key);
  std::error_code ec;
  std::filesystem::remove_all(work_dir_ / key, ec);
}

Result<OracleSet> OracleService::Set(const Task& task, int64_t seed, int distribution,
                                     double scale) {
  const std::string key = SetKey(task, seed, distribution, scale);
  auto found = generated_.find(key);
  if (found == generated_.end()) {
    Result<OracleGenerated> g = Status::Internal("not generated");
    for (int attempt = 0; attempt < 2; ++attempt) {
      HONE_ASSIGN_OR_RETURN(std::string id, ProblemId(task));
      auto start = Clock::now();
      g = client_->Generate(id, seed, distribution, work_dir_ / key, std::chrono::minutes(10),
                            scale);
      cost_.generate_seconds += SecondsSince(start);
      if (g.ok() || client_->alive()) break;
    }
    if (!g.ok()) return g.status().With(task.reference.string() + ": ");
    ++cost_.generated;
    found = generated_.emplace(key, std::move(*g)).first;
  } else {
    ++cost_.reused;
  }
  auto start = Clock::now();
  OracleSet set;
  set.ref64_available = found->second.ref64_available;
  set.ref64_reason = found->second.ref64_reason;
  for (const auto& f : found->second.tensors) {
    HONE_ASSIGN_OR_RETURN(HostTensor t, ReadHostTensor(f));
    if (f.spec.role == "input" || f.spec.role == "param")
      set.inputs.push_back(std::move(t));
    else if (f.spec.role == "output")
      set.outputs.push_back(std::move(t));
    else if (f.spec.role == "ref64_output")
      set.ref64.push_back(std::move(t));
  }
  cost_.read_seconds += SecondsSince(start);
  if (set.inputs.size() != task.inputs.size() || set.outputs.size() != task.outputs.size())
    return Status::Internal(
        task.reference.string() + ": the oracle wrote " + std::to_string(set.inputs.size()) +
        " inputs and " + std::to_string(set.outputs.size()) + " outputs; the contract has " +
        std::to_string(task.inputs.size()) + " and " + std::to_string(task.outputs.size()));
  if (set.ref64.size() != set.outputs.size()) set.ref64_available = false;
  return set;
}

Result<OracleSet> OracleService::GenerateInto(const Task& task, int64_t seed, int distribution,
                                              const OracleTargets& targets) {
  Result<OracleGenerated> g = Status::Internal("not generated");
  for (int attempt = 0; attempt < 2; ++attempt) {
    HONE_ASSIGN_OR_RETURN(std::string id, ProblemId(task));
    auto start = Clock::now();
    g = client_->GenerateInto(id, seed, distribution, targets);
    cost_.generate_seconds += SecondsSince(start);
    if (g.ok() || client_->alive()) break;
  }
  if (!g.ok()) return g.status().With(task.reference.string() + ": ");
  ++cost_.generated;
  OracleSet set;
  set.ref64_available = g->ref64_available && !targets.ref64.empty();
  set.ref64_reason = g->ref64_reason;
  set.ref64_seconds = g->ref64_seconds;
  return set;
}

Result<json> OracleService::PrepareExtension(const std::string& kind, const json& args,
                                             const std::filesystem::path& build_dir) {
  HONE_RETURN_IF_ERROR(EnsureRunning());
  json req = {{"op", "prepare_extension"},
              {"kind", kind},
              {"args", args},
              {"build_dir", build_dir.string()}};
  return client_->Request(req, std::chrono::minutes(2));
}

Status OracleService::ReleaseDeviceMemory() {
  AwaitLaunch();
  if (!client_) return Status::Unavailable("the oracle is not running");
  auto r = client_->Request({{"op", "release"}}, std::chrono::seconds(30));
  return r.ok() ? Status::Ok() : r.status();
}

std::string OracleService::device_description() const {
  AwaitLaunch();
  if (!client_) return device_;
  for (const auto& d : client_->hello().value("devices", json::array()))
    if (d.value("name", "") == device_) return d.value("description", device_);
  return device_;
}

}  // namespace hone
