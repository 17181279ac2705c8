#include "lang/native_languages.h"

#include "lang/entry_points.h"
#include "verify/lint_cxx.h"

namespace hone {
namespace {

// The C++/CUDA rule set (verify/lint_cxx.h): each rejects.
std::vector<LanguageRule> NativeRules() {
  std::vector<LanguageRule> out;
  for (const LintRule& r : CxxLintRules()) out.push_back({r.name, r.explanation});
  return out;
}

}  // namespace

Language CppLanguage() {
  Language l;
  l.name = "cpp";
  l.label = "C++20";
  l.aliases = {"c++", "cxx", "cpu"};
  l.source.extensions = {".cpp", ".cc", ".cxx"};
  l.source.fences = {"cpp", "c++", "cxx", "cc", "c", "h", "hpp"};
  l.source.defines_entry = DefinesHoneForward;
  l.run.runner = Runner::kNative;
  l.run.devices = {"cpu"};
  l.run.kernel_names = KernelNames::kNone;
  l.lint.rules = NativeRules();
  l.lint.check = [](std::string_view source) { return LintCxxSource(source, {}); };
  l.prompt = {"kernel.h", "backend_cpu", "example_cpu.cpp",
              "memory traffic, cache blocking, use of every core, SIMD vectorisation, arithmetic",
              "how you split work across threads."};
  return l;
}

Language CudaLanguage() {
  Language l;
  l.name = "cuda";
  l.label = "CUDA C++";
  l.aliases = {"cu"};
  l.source.extensions = {".cu"};
  // A .cu file is C++ too: a reply may tag it either way.
  l.source.fences = {"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp"};
  l.source.defines_entry = DefinesHoneForward;
  l.run.runner = Runner::kNative;
  l.run.devices = {"cuda"};
  l.run.kernel_names = KernelNames::kBuild;
  l.lint.rules = NativeRules();
  l.lint.check = [](std::string_view source) {
    LintOptions o;
    o.cuda = true;
    return LintCxxSource(source, o);
  };
  l.prompt = {"kernel.h", "backend_cuda", "example_cuda.cu",
              "memory traffic, occupancy and parallelism, coalescing, arithmetic, launch overhead",
              "launch configurations."};
  l.run.sanitizer = true;
  return l;
}

}  // namespace hone
