#include "build/cuda_split_step.h"

#include <cstdio>
#include <set>
#include <thread>

#include "build/cuda_split.h"
#include "build/torch_pch.h"
#include "core/backend_names.h"
#include "core/fs.h"
#include "core/wording.h"

namespace hone {

namespace {

namespace fs = std::filesystem;

// nvcc options that take the next argument.
bool TakesValue(const std::string& a) {
  static const std::set<std::string> opts = {"-o",
                                             "-ccbin",
                                             "--compiler-bindir",
                                             "--dependency-output",
                                             "-MF",
                                             "-isystem",
                                             "-I",
                                             "-D",
                                             "-U",
                                             "-gencode",
                                             "--generate-code",
                                             "-arch",
                                             "-code",
                                             "-Xptxas",
                                             "--ptxas-options",
                                             "-t",
                                             "--threads",
                                             "-Xfatbin",
                                             "-maxrregcount",
                                             "--compiler-options",
                                             "-Xcompiler"};
  return opts.count(a) > 0;
}

// nvcc options that change only device code, or nothing the host half sees.
bool Allowed(const std::string& a) {
  static const std::set<std::string> exact = {"-c",
                                              "--generate-dependencies-with-compile",
                                              "--expt-relaxed-constexpr",
                                              "--expt-extended-lambda",
                                              "--extended-lambda",
                                              "-lineinfo",
                                              "--use_fast_math",
                                              "-use_fast_math",
                                              "-w",
                                              "-G",
                                              "-g",
                                              "--resource-usage",
                                              "-res-usage",
                                              "-DNDEBUG",
                                              "-MD",
                                              "-MMD"};
  static const char* prefixes[] = {"-D",
                                   "-U",
                                   "-I",
                                   "-isystem",
                                   "-gencode",
                                   "--generate-code",
                                   "-arch",
                                   "--gpu-architecture",
                                   "-code",
                                   "-std=",
                                   "-O",
                                   "--ptxas-options",
                                   "-Xptxas",
                                   "-maxrregcount",
                                   "--maxrregcount",
                                   "--ftz",
                                   "--prec-div",
                                   "--prec-sqrt",
                                   "--fmad",
                                   "-t",
                                   "--threads",
                                   "-Xfatbin",
                                   "--dependency-output",
                                   "-MF",
                                   "-ccbin",
                                   "--compiler-bindir",
                                   "-o"};
  if (exact.count(a)) return true;
  for (const char* p : prefixes)
    if (a.starts_with(p)) return true;
  return false;
}

bool IsPicOnly(std::string v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
  return v == "-fPIC";
}

// (flag, value) pairs of argv[1..], values joined to their options.
std::vector<std::pair<std::string, std::string>> Options(const std::vector<std::string>& argv) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (TakesValue(argv[i]) && i + 1 < argv.size()) {
      out.emplace_back(argv[i], argv[i + 1]);
      ++i;
    } else {
      out.emplace_back(argv[i], "");
    }
  }
  return out;
}

// "-DX=1" or ("-D", "X=1") -> "X=1"; "" when not a define of that letter.
std::string MacroOf(const std::pair<std::string, std::string>& o, const char* flag) {
  if (o.first == flag) return o.second;
  if (o.first.starts_with(flag) && o.first.size() > 2) return o.first.substr(2);
  return "";
}

std::string LastStd(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv)
    if (a.starts_with("-std=")) s = a.substr(5);
  return s;
}

// The forms a path takes in a step's argv: absolute, or relative to the
// folder the step runs in.
std::set<std::string> Spellings(const fs::path& p, const fs::path& work) {
  return {p.string(), p.lexically_relative(work).string()};
}

std::vector<std::string> Substitute(std::vector<std::string> argv, const fs::path& from,
                                    const fs::path& to, const fs::path& work) {
  std::set<std::string> names = Spellings(from, work);
  std::set<std::string> deps = {from.string() + ".d",
                                from.lexically_relative(work).string() + ".d"};
  for (auto& a : argv) {
    if (names.count(a))
      a = to.string();
    else if (deps.count(a))
      a = to.string() + ".d";
  }
  return argv;
}

// Include directories of `nvcc` that `cxx` lacks, as arguments.
std::vector<std::string> ExtraIncludes(const std::vector<std::string>& nvcc,
                                       const std::vector<std::string>& cxx) {
  std::set<std::string> have(cxx.begin(), cxx.end());
  std::vector<std::string> out;
  for (const auto& [flag, value] : Options(nvcc)) {
    if ((flag == "-isystem" || flag == "-I") && !have.count(value)) {
      out.push_back(flag);
      out.push_back(value);
    } else if (flag.starts_with("-I") && flag.size() > 2 && !have.count(flag)) {
      out.push_back(flag);
    }
  }
  return out;
}

Result<CommandResult> Compile(const std::vector<std::string>& argv, const fs::path& work,
                              std::chrono::seconds timeout) {
  CommandOptions o;
  o.timeout = timeout;
  o.cwd = work.string();
  o.max_output_bytes = 4 << 20;
  return RunCommand(argv, o);
}

bool Failed(const Result<CommandResult>& r, const char* half, std::string* why) {
  if (r.ok() && r->succeeded()) return false;
  *why = std::string("the ") + half + " half did not compile (" +
         (r.ok() ? "exit " + std::to_string(r->exit_code) : r.status().message()) + ")";
  return true;
}

struct Halves {
  fs::path source, host_cpp, host_o, device_cu, device_o;
};

Halves HalfPaths(const fs::path& cu) {
  fs::path stem = cu.parent_path() / cu.stem();
  return {cu, stem.string() + ".hone_host.cpp", stem.string() + ".hone_host.o",
          stem.string() + ".hone_device.cu", stem.string() + ".hone_device.o"};
}

// The instantiations of launcher templates the host object needs.
Result<std::string> InstantiationsFor(const fs::path& host_o, const fs::path& work,
                                      std::chrono::seconds timeout) {
  HONE_ASSIGN_OR_RETURN(CommandResult nm,
                        Compile({"nm", "-C", "--undefined-only", host_o.string()}, work, timeout));
  if (!nm.succeeded()) return Status::Invalid("nm failed on the host half: " + nm.output);
  return LauncherInstantiations(nm.output);
}

}  // namespace

Result<std::vector<std::string>> HostOnlyDefines(const std::vector<std::string>& nvcc,
                                                 const std::vector<std::string>& cxx) {
  std::set<std::string> have;
  for (const auto& o : Options(cxx)) {
    if (std::string d = MacroOf(o, "-D"); !d.empty()) have.insert(d);
  }
  std::vector<std::string> out;
  const std::string source_like = kCudaSourceExtension;
  for (const auto& o : Options(nvcc)) {
    const auto& [flag, value] = o;
    if (flag.size() > source_like.size() &&
        flag.compare(flag.size() - source_like.size(), source_like.size(), source_like) == 0)
      continue;  // the input
    if ((flag == "--compiler-options" || flag == "-Xcompiler") && !IsPicOnly(value))
      return Status::Invalid("nvcc flag " + flag + " " + value + " changes the host compile");
    if (flag != "--compiler-options" && flag != "-Xcompiler" && !Allowed(flag))
      return Status::Invalid("nvcc flag " + flag + " is not one the split build knows");
    if (std::string d = MacroOf(o, "-D"); !d.empty() && !have.count(d)) out.push_back(d);
    if (std::string u = MacroOf(o, "-U"); !u.empty()) out.push_back("!" + u);
  }
  return out;
}

std::optional<CudaSplitStepResult> RunCudaSplitStep(const TorchExtensionStep& nvcc,
                                                    const TorchExtensionStep& cxx,
                                                    const fs::path& work, TorchPch* pch,
                                                    std::chrono::seconds timeout,
                                                    std::string* why) {
  std::string ignored;
  if (!why) why = &ignored;
  if (nvcc.inputs.size() != 1 || nvcc.inputs[0].extension() != kCudaSourceExtension ||
      nvcc.outputs.size() != 1 || cxx.inputs.empty() || cxx.outputs.empty()) {
    *why = "not one .cu source to one object";
    return std::nullopt;
  }
  if (LastStd(nvcc.argv) != LastStd(cxx.argv)) {
    *why = "nvcc and the C++ compile use different -std";
    return std::nullopt;
  }
  auto defines = HostOnlyDefines(nvcc.argv, cxx.argv);
  if (!defines.ok()) {
    *why = defines.status().message();
    return std::nullopt;
  }
  Halves h = HalfPaths(nvcc.inputs[0]);
  auto text = ReadFile(h.source);
  if (!text.ok()) {
    *why = text.status().message();
    return std::nullopt;
  }
  auto split = SplitCudaSource(*text, h.source.filename().string(), *defines);
  if (!split.ok()) {
    *why = split.status().message();
    return std::nullopt;
  }
  if (!WriteFileAtomic(h.host_cpp, split->host_source).ok() ||
      !WriteFileAtomic(h.device_cu, split->device_source).ok()) {
    *why = "cannot write the halves";
    return std::nullopt;
  }

  std::vector<std::string> host_argv = Substitute(
      Substitute(cxx.argv, cxx.inputs[0], h.host_cpp, work), cxx.outputs[0], h.host_o, work);
  // The C++ compile's own flags pick the precompiled header (the one main.cpp
  // uses); include directories only nvcc had come after it.
  std::string pch_note;
  if (pch) host_argv = pch->Apply(host_argv, h.host_cpp, &pch_note);
  std::vector<std::string> extra = ExtraIncludes(nvcc.argv, cxx.argv);
  host_argv.insert(host_argv.end(), extra.begin(), extra.end());
  std::vector<std::string> device_argv = Substitute(
      Substitute(nvcc.argv, h.source, h.device_cu, work), nvcc.outputs[0], h.device_o, work);

  auto start = std::chrono::steady_clock::now();
  Result<CommandResult> host = Status::Internal("not run");
  Result<CommandResult> device = Status::Internal("not run");
  if (split->templated) {
    host = Compile(host_argv, work, timeout);
    if (Failed(host, "host", why)) return std::nullopt;
    auto inst = InstantiationsFor(h.host_o, work, timeout);
    if (!inst.ok() || !WriteFileAtomic(h.device_cu, split->device_source + *inst).ok()) {
      *why = inst.ok() ? "cannot write the device half" : inst.status().message();
      return std::nullopt;
    }
    device = Compile(device_argv, work, timeout);
  } else {
    std::thread host_thread([&] { host = Compile(host_argv, work, timeout); });
    device = Compile(device_argv, work, timeout);
    host_thread.join();
    if (Failed(host, "host", why)) return std::nullopt;
  }
  if (Failed(device, "device", why)) return std::nullopt;

  CudaSplitStepResult r;
  r.objects = {h.host_o, h.device_o};
  r.argv = device_argv;
  r.run = *device;
  r.run.output = device->output + "$ " + QuoteCommand(host_argv) + "\n" +
                 (pch_note.empty() ? "" : "# " + pch_note + "\n") + host->output;
  r.run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.note = "split into halves (cuda_split.h): host " + TenthsOfSeconds(host->seconds) +
           " with gcc, device " + TenthsOfSeconds(device->seconds) + " with nvcc, kernels:";
  for (const auto& k : split->kernels) r.note += " " + k;
  return r;
}

}  // namespace hone
