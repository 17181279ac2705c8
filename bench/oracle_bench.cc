// What the oracle costs for a PyTorch task: starting it (interpreter and
// torch), loading a problem, the first (seed, distribution) it generates,
// each additional seed, and then N evaluation passes that ask for exactly the
// sets one candidate's evaluation asks for through files (the CPU path: 3
// seeds x the task's distributions, 4 warm-up sets, 6 timing-pool sets).
// Only the first pass generates; the others read the stored files, so the
// oracle's cost does not grow with the number of candidates. (On a GPU an
// evaluation has the oracle generate into its device buffers instead.)
//
//   build/bench/oracle_bench [--device cpu|cuda:0] [--task FILE] [--seeds N] [--passes N] [--json]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_source_dir.h"
#include "core/clock.h"
#include "core/fs.h"
#include "task/oracle_service.h"

namespace {

using namespace hone;
using Clock = std::chrono::steady_clock;

int Fail(const Status& st) {
  std::fprintf(stderr, "oracle_bench: %s\n", st.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device = "cpu";
  std::filesystem::path task_file = BenchSourceDir() / "tasks/pytorch/softmax.py";
  int seeds = 5, passes = 5;
  bool json_out = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--device")
      device = next();
    else if (a == "--task")
      task_file = next();
    else if (a == "--seeds")
      seeds = std::atoi(next().c_str());
    else if (a == "--passes")
      passes = std::atoi(next().c_str());
    else if (a == "--json")
      json_out = true;
    else {
      std::fprintf(
          stderr,
          "usage: oracle_bench [--device D] [--task F] [--seeds N] [--passes N] [--json]\n");
      return 2;
    }
  }
  nlohmann::json j = {{"device", device}, {"task", task_file.string()}};
  auto t0 = Clock::now();
  auto oracle = OracleService::Start(device);
  if (!oracle.ok()) return Fail(oracle.status());
  j["start_s"] = SecondsSince(t0);
  t0 = Clock::now();
  auto task = (*oracle)->Load(task_file, {});
  if (!task.ok()) return Fail(task.status());
  j["load_s"] = SecondsSince(t0);
  std::vector<double> per_seed;
  for (int s = 1; s <= seeds; ++s) {
    t0 = Clock::now();
    auto set = (*oracle)->Set(*task, s, 0);
    if (!set.ok()) return Fail(set.status());
    per_seed.push_back(SecondsSince(t0));
  }
  j["first_set_s"] = per_seed.front();
  j["additional_seed_s"] = std::vector<double>(per_seed.begin() + 1, per_seed.end());
  // One evaluation's requests, as run/evaluator.cc makes them.
  std::vector<std::pair<int64_t, int>> keys;
  for (int s = 1; s <= 3; ++s)
    for (int d = 0; d < task->num_distributions; ++d) keys.push_back({s, d});
  for (int k = 0; k < 4; ++k) keys.push_back({1000 + k, 0});
  for (int k = 0; k < 6; ++k)  // odd pool sets come from the "scaled" distribution
    keys.push_back({(int64_t{1} << 40) + k, k % 2 == 1 && task->num_distributions > 1 ? 1 : 0});
  nlohmann::json pass_rows = nlohmann::json::array();
  for (int p = 0; p < passes; ++p) {
    int generated = (*oracle)->cost().generated;
    t0 = Clock::now();
    for (const auto& [seed, dist] : keys) {
      auto set = (*oracle)->Set(*task, seed, dist);
      if (!set.ok()) return Fail(set.status());
    }
    pass_rows.push_back({{"seconds", SecondsSince(t0)},
                         {"generated", (*oracle)->cost().generated - generated},
                         {"sets", keys.size()}});
  }
  j["passes"] = pass_rows;
  j["torch"] = (*oracle)->torch_version();
  if (json_out) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("oracle on %s, torch %s, task %s\n", device.c_str(),
              (*oracle)->torch_version().c_str(), task_file.filename().c_str());
  std::printf("  start (interpreter, torch)   %8.3f s\n", j["start_s"].get<double>());
  std::printf("  load (build the model)       %8.3f s\n", j["load_s"].get<double>());
  std::printf("  first set (seed 1)           %8.3f s\n", per_seed.front());
  for (size_t i = 1; i < per_seed.size(); ++i)
    std::printf("  additional seed %-2zu           %8.3f s\n", i + 1, per_seed[i]);
  for (size_t p = 0; p < pass_rows.size(); ++p)
    std::printf("  evaluation pass %zu: %2zu sets   %8.3f s, %d generated\n", p + 1, keys.size(),
                pass_rows[p]["seconds"].get<double>(), pass_rows[p]["generated"].get<int>());
  return 0;
}
