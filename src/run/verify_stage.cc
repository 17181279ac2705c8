#include "run/verify_stage.h"

#include "core/trace.h"
#include "task/oracle_service.h"
#include "verify/note_words.h"

namespace hone {

Status VerifyStage::Run() {
  // The caches go back when the stage ends: the timing pool's sets, made
  // next, are planned without them.
  struct KeepCaches {
    RunState& s;
    explicit KeepCaches(RunState& state) : s(state) {
      s.verifying = true;
      s.keep_caches = s.plan.verify_keeps_caches;
    }
    ~KeepCaches() {
      s.store->ReleaseCached();
      if (s.keep_caches && s.oracle) (void)s.oracle->ReleaseDeviceMemory();
      s.verifying = s.keep_caches = false;
    }
  } keep{s_};
  for (const auto& cs : s_.cases) {
    HONE_RETURN_IF_ERROR(VerifyCase(cs));
    if (s_.decided()) return Status::Ok();
  }
  return Status::Ok();
}

Status VerifyStage::VerifyCase(const CaseShapes& cs) {
  HONE_RETURN_IF_ERROR(runner_.BindCase(cs, reference_));
  // One watch for the case's calls: between them the worker writes only set
  // 0's buffers, which it does not watch, so each call's "after" is the
  // next one's "before".
  StrayWriteWatch watch(*s_.cand.arena,
                        CandidateSpansToKeep(s_.cand.sets, 0, s_.cand.arena->size()));
  watch.Before();
  Float64Budget budget(s_.task.num_distributions, FloatingOutputElements(cs));
  for (int seed = 1; seed <= s_.task.seeds && !s_.decided(); ++seed)
    for (int dist = 0; dist < s_.task.num_distributions && !s_.decided(); ++dist) {
      s_.Progress("verify " + cs.c->label);
      HONE_RETURN_IF_ERROR(VerifyOne(cs, seed, dist, budget.Take(dist), watch));
    }
  if (budget.skipped() > 0) NoteFloat64Budget(cs, budget);
  return Status::Ok();
}

int64_t VerifyStage::FloatingOutputElements(const CaseShapes& cs) const {
  int64_t n = 0;
  for (size_t i = 0; i < s_.task.outputs.size(); ++i)
    if (IsFloating(s_.task.outputs[i].dtype)) n += NumElements(cs.outputs[i]);
  return n;
}

void VerifyStage::NoteFloat64Budget(const CaseShapes& cs, const Float64Budget& budget) {
  s_.v.AddNote(notes::Float64Budget(budget.taken(), budget.taken() + budget.skipped(), cs.c->label,
                                    budget.elements_per_set(), kFloat64ElementsPerDistribution));
}

Status VerifyStage::VerifyOne(const CaseShapes& cs, int seed, int dist, bool with64,
                              StrayWriteWatch& watch) {
  uint64_t s = s_.opt.seed * 1000003ull + static_cast<uint64_t>(seed);
  std::string where = cs.c->label + " seed=" + std::to_string(s) + " dist=" + s_.dist_names[dist];
  ClearStoreOnExit clear{*s_.store};
  HONE_ASSIGN_OR_RETURN(RefSet ref, reference_.Reference(cs, s, dist, 0, with64));
  Trace("verify: value set made");
  RunTwice(ref, where, watch);
  return Status::Ok();
}

bool VerifyStage::RunTwice(const RefSet& ref, const std::string& where, StrayWriteWatch& watch) {
  const uint8_t kPoison[2] = {0xFF, 0x5A};  // NaN for every float type; then a finite sentinel
  const SetLayout& set = s_.cand.sets[0];
  std::vector<uint64_t> first_run;
  for (int run = 0; run < 2; ++run) {
    LoadInputs(*s_.store, *s_.cand.arena, set, ref.inputs);
    Poison(*s_.cand.arena, set, kPoison[run]);
    CallOutcome o;
    std::string during = "in case " + where + (run ? " (second run)" : "");
    Trace("verify: inputs loaded, outputs poisoned");
    if (!runner_.Call(0, 0, during, &o, ref.rng_seed)) return false;
    Trace("verify: called");
    if (!checks_.CheckNoStrayWrites(watch, where)) return false;
    Trace("verify: no stray writes");
    if (!checks_.CheckInputsUnchanged(set, ref.inputs, where)) return false;
    // Read where they lie: a copy of a full-size output costs an allocation
    // beside a full device, and the next run overwrites them only after
    // every check of this one.
    if (!checks_.CheckOutputsInArena(set, ref.expected, where,
                                     run ? CheckKind::kCorrectSecondRun : CheckKind::kCorrect))
      return false;
    Trace("verify: outputs checked");
    if (run == 0 && !ref.ref64.empty() && s_.StoreHealthy()) {
      if (!checks_.CheckPrecision(set, ref.expected, ref.ref64, where)) return false;
      Trace("verify: precision checked");
    }
    std::vector<uint64_t> prints = checks_.OutputFingerprints(set);
    if (run == 0)
      first_run = std::move(prints);
    else
      checks_.NoteNondeterminism(prints, first_run, where);
  }
  return true;
}

}  // namespace hone
