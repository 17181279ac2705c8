#include "lang/modelnew_languages.h"

#include <sys/syscall.h>

#include "lang/entry_points.h"
#include "lang/triton_modules.h"
#include "verify/lint_python.h"

namespace hone {

std::vector<LanguageRule> ModelNewRules() {
  std::vector<LanguageRule> out;
  for (const PythonLintRule& r : PythonLintRules())
    out.push_back({r.rule.name, r.rule.explanation,
                   r.warning ? LanguageRule::Severity::kWarn : LanguageRule::Severity::kReject,
                   r.allowed_by});
  return out;
}

std::string ModelNewViolationHint(int nr) {
  switch (nr) {
#ifdef SYS_prlimit64
    case SYS_prlimit64:
#endif
    case SYS_setrlimit:
      return "the module changed a resource limit after it had loaded, which the sandbox "
             "forbids (building a C++/CUDA extension does: a load_inline build that runs only "
             "after the first call cannot run in the sandbox; build at import time or in "
             "__init__)";
    case SYS_clone:
#ifdef SYS_clone3
    case SYS_clone3:
#endif
    case SYS_fork:
    case SYS_vfork:
    case SYS_execve:
    case SYS_execveat:
      return "the module started a process or thread pool after it had loaded (a compiler, a "
             "subprocess, a DataLoader worker, torch.compile recompiling): only the load and "
             "the first call may";
    case SYS_socket:
    case SYS_connect:
      return "the module opened a network connection (a download?): the sandbox has no network";
    default:
      return "";
  }
}

namespace {

// On a GPU: one load_inline file per C++ flag set that generated candidates
// commonly pass (none; KernelBench's prompt example's extra_cflags=[""];
// "-O3"). A precompiled header is keyed by the compile's flags
// (build/torch_pch.h), so each set warms its own, and a CUDA source's host
// half shares main.cpp's. On a CPU nothing: its first C++ candidate builds
// the header, once, and CPU runs are for trying hone out, where three
// headers (600 MB and 20-40 s of a core each) would cost more than they save.
std::vector<std::string> LoadInlineWarmUp(std::string_view device) {
  if (device != "cuda") return {};
  std::vector<std::string> files;
  int n = 0;
  for (const char* flags : {"", ", extra_cflags=[\"\"]", ", extra_cflags=[\"-O3\"]"}) {
    files.push_back(
        "import torch\n"
        "from torch.utils.cpp_extension import load_inline\n\n"
        "source = r\"\"\"\n"
        "#include <torch/extension.h>\n"
        "__global__ void hone_warm_kernel(const float* x, float* y, int64_t n) {\n"
        "  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n"
        "  if (i < n) y[i] = x[i];\n"
        "}\n"
        "torch::Tensor warm(torch::Tensor x) {\n"
        "  auto y = torch::empty_like(x);\n"
        "  hone_warm_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), "
        "y.data_ptr<float>(), x.numel());\n"
        "  return y;\n"
        "}\n"
        "\"\"\"\n\n"
        "ext = load_inline(name=\"hone_warm_up_" +
        std::to_string(n++) +
        "\", cpp_sources=\"torch::Tensor warm(torch::Tensor x);\", cuda_sources=source, "
        "functions=[\"warm\"]" +
        flags +
        ")\n\n\n"
        "class ModelNew(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return ext.warm(x)\n");
  }
  return files;
}

}  // namespace

Language LoadInlineLanguage() {
  Language l;
  l.name = "load_inline";
  l.label = "KernelBench ModelNew (CUDA or C++ through load_inline)";
  l.aliases = {"modelnew", "cuda_inline", "inline", "kernelbench"};
  l.source.extensions = {".py"};
  l.source.fences = {"python", "py"};
  l.run.runner = Runner::kModelNew;
  l.run.devices = {"cuda", "cpu"};
  l.run.kernel_names = KernelNames::kSource;
  l.lint.rules = ModelNewRules();
  l.prompt = {"modelnew", "lang_load_inline", "example_load_inline.py",
              "memory traffic, occupancy and parallelism, coalescing, arithmetic, launch "
              "overhead, the host time of the Python around the kernels",
              "launch configurations, and the tensors' devices, dtypes and contiguity."};
  l.hints.violation_hint = ModelNewViolationHint;
  l.source.defines_entry = DefinesModelNew;
  l.run.sanitizer = true;  // memcheck, with torch's caching allocator off (run/sanitize_stage.h)
  l.loading.warm_up = LoadInlineWarmUp;
  return l;
}

Language TritonLanguage() {
  Language l;
  l.name = "triton";
  l.label = "Triton";
  l.aliases = {"openai-triton"};
  l.source.extensions = {".py"};
  l.source.claims = ImportsTriton;
  l.loading.kernel_decorators = {"triton.jit"};
  l.loading.compile_exceptions = {"triton.compiler.", "PTXASError"};
  l.source.fences = {"python", "py"};
  l.run.runner = Runner::kModelNew;
  l.run.devices = {"cuda"};
  l.run.kernel_names = KernelNames::kSource;
  l.lint.rules = ModelNewRules();
  l.prompt = {"modelnew", "lang_triton", "example_triton.py",
              "memory traffic, the block sizes and num_warps, occupancy, coalesced and "
              "vectorised loads, tl.dot for matrix products, launch overhead",
              "masks on every load and store, the launch grid, and the tensors' devices, dtypes "
              "and contiguity."};
  l.hints.violation_hint = [](int nr) {
    std::string hint = ModelNewViolationHint(nr);
    if (nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == SYS_execve)
      hint =
          "Triton compiled a kernel after the first call (ptxas is a process): a launch with "
          "other constexpr values, another autotune key, or an argument Triton specialises on "
          "(an integer equal to 1 or divisible by 16, a pointer's alignment) that the first "
          "call did not have; Triton may compile only while the module loads and makes its "
          "first call. Otherwise: " +
          hint;
    return hint;
  };
  l.hints.precision_hint =
      "Triton's tl.dot computes float32 inputs in TF32 unless it is given "
      "input_precision=\"ieee\"";
  l.loading.make_loader = [](const LoaderEnv& env) -> std::unique_ptr<ModelNewLoader> {
    return std::make_unique<TritonModules>(env);
  };
  l.source.defines_entry = DefinesModelNew;
  l.run.sanitizer = true;
  return l;
}

}  // namespace hone
