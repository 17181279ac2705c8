// hone machine: the measured ceilings speed of light is computed against.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "core/fs.h"
#include "core/json_text.h"
#include "verify/verdict_json.h"

namespace hone::cli {
namespace {

struct MachineArgs {
  bool remeasure = false;
  Output out;
};

int RunMachine(const MachineArgs& a) {
  auto cache = CacheDir();
  if (!cache.ok()) return ReportError(cache.status());
  if (a.remeasure) std::filesystem::remove(*cache / "machine-cpu.json");
  auto m = LoadOrMeasureMachine(*cache);
  if (!m.ok()) return ReportError(m.status());
  if (a.out.json) {
    std::cout << JsonText(MachineToJson(*m), 2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "{}\n  cores: {}\n  last-level cache: {} MiB\n  copy bandwidth: {:.1f} GB/s\n  FP32 rate: "
      "{:.1f} GFLOP/s ({})\n  measured: {}\n",
      m->cpu_model, m->cores, m->llc_bytes >> 20, m->copy_bandwidth_gbs, m->fp32_gflops, m->simd,
      m->measured_at);
  return kExitOk;
}

}  // namespace

Command RegisterMachine(CLI::App& app) {
  auto args = std::make_shared<MachineArgs>();
  CLI::App* sub = app.add_subcommand("machine", "Show (or re-measure) this machine's ceilings");
  sub->add_flag("--remeasure", args->remeasure, "Measure again instead of using the cache");
  AddOutputFlags(sub, args->out);
  return [args] { return RunMachine(*args); };
}

}  // namespace hone::cli
