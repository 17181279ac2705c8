// The reference of a native task: its reference.cpp (or .cu for the CUDA
// backend) built like a candidate and run in a sandbox of its own, under the
// same confinement, on an arena the candidate's process never maps. Inputs
// are drawn in the worker's store from the task's value distributions; the
// reference's outputs are captured into the store as the expected ones. It
// is timed beside the candidate, interleaved, as the speedup's baseline.
//
// A reference that does not compile, load, bind or run is a broken task
// (Status::Invalid naming its source). One that returns nonzero on float64
// inputs only switches the precision check off, with a note. Owns its
// sandbox and arena; not thread-safe.
#pragma once

#include <filesystem>
#include <memory>

#include "run/reference_source.h"
#include "run/run_state.h"

namespace hone {

class NativeReference : public ReferenceSource {
 public:
  explicit NativeReference(RunState& state) : s_(state) {}

  std::vector<std::string> DistributionNames() const override;
  Status Build(BuildPool& pool) override;
  Status Allocate() override;
  Status Spawn(const SandboxConfig& base) override;
  Status AwaitReady() override;
  Status Bind(const CaseShapes& cs) override;
  Result<RefSet> Reference(const CaseShapes& cs, uint64_t seed, int dist, int set,
                           bool with64) override;

  // One more value set than buffer slots, each computed on slot k mod slots:
  // the values at any one address keep changing, so an output cached by
  // pointer is stale.
  Result<std::vector<RefSet>> WarmupSets(const CaseShapes& cs) override;
  // Drawn from `seed` with the first value distribution.
  Status DrawTimedInputs(const CaseShapes& cs, uint64_t seed, FreshRep& fresh,
                         Rng& unpredictable) override;
  std::string TimedInputsWhere(uint64_t seed) const override;
  std::string TimedInputsSummary() const override;
  bool timed() const override { return true; }
  Status CallTimed(int set, const Ids& inputs, uint32_t flags, uint64_t rng_seed,
                   CallOutcome* o) override;
  Ids CaptureOutputs(int set) override;
  double FlushedBytes() const override;

 private:
  // One value set drawn in the store; nothing is kept on failure.
  Result<Ids> GenerateInputs(const CaseShapes& cs, uint64_t seed, int dist);
  // The reference on `inputs` in slot `set`, outputs poisoned first.
  Result<Ids> Run(const Ids& inputs, int set);
  // The same in the float64 slot; empty when the reference does not support it.
  Result<Ids> Run64(const Ids& inputs);

  RunState& s_;
  std::filesystem::path source_, library_;
  std::unique_ptr<Arena> arena_;
  std::unique_ptr<SandboxProcess> sandbox_;
  std::vector<SetLayout> sets_;  // per buffer slot, for the bound case
  SetLayout f64_;                // the float64 slot, bound after them
  uint64_t workspace_bytes_ = 0;
  bool ref64_supported_ = true;
};

}  // namespace hone
