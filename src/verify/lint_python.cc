#include "verify/lint_python.h"

namespace hone {

const std::vector<PythonLintRule>& PythonLintRules() {
  static const std::vector<PythonLintRule> rules = {
      {{"library",
        "ModelNew builds no kernel of its own (no load_inline, cpp_extension.load or Triton "
        "kernel) and only calls PyTorch"}},
      {{"timing",
        "replaces a clock, a CUDA event's method, a synchronisation, a benchmarking helper or an "
        "output comparison (torch.cuda.Event.elapsed_time = ..., torch.allclose = ...): what an "
        "evaluator in the same process would measure or check"}},
      {{"host-thread", "starts Python threads or thread pools, which can carry work past a call"}},
      {{"process", "starts processes (subprocess, multiprocessing, os.system, os.fork)"}},
      {{"network", "opens network connections (sockets, HTTP clients)"}},
      {{"lazy-tensor",
        "defines a torch.Tensor subclass (or _make_subclass), whose code would run when hone "
        "copies the result, after the timed call"}},
      {{"fallback",
        "a try block whose handler computes with PyTorch, or an extension built inside a try "
        "block: when the kernel fails to build or launch, the file quietly returns PyTorch's "
        "answer (on a GPU the launch checks then reject it)"},
       true},
      {{"torch-compute",
        "forward computes with PyTorch operators (torch.matmul, F.conv2d, an nn layer) beside "
        "its own kernels; silent where rule 'library' is allowed"},
       true,
       "library"},
  };
  return rules;
}

}  // namespace hone
