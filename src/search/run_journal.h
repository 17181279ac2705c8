// An optimize run's attempts in the run store (store/store.h), written as
// they happen, and read back to resume the run after a crash.
//
// Writing: every LLM reply is stored (candidate + LLM call, one
// transaction) the moment it arrives, before it is evaluated, so a paid-for
// reply is never lost; every evaluation is begun and finished in the store
// (store work keys are per candidate, so duplicates of one kernel are each
// evaluated, as without a store).
//
// Resuming: the strategy is run again from the start. A proposal whose
// prompt equals a stored attempt's prompt (not yet used in this replay)
// gets that attempt's reply instead of a new LLM call, and a stored
// finished evaluation's verdict instead of a new evaluation. The live run's
// strategy is handed verdicts as stored too (verify/verdict_json.h:
// VerdictAsStored), so both see the same values. Sample, refine,
// tree and auto strategies replay exactly (tree and auto decide only on
// complete sets of results, never on the order they arrived in); evolve
// replays as far as its proposals come out the same (its choices depend on
// the order results arrived in) and asks the model anew from there. Stored
// attempts keep their sequence numbers; new ones continue after the
// largest.
//
// One thread (the search loop's). The Store must outlive the journal.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "core/status.h"
#include "llm/provenance.h"
#include "search/strategy.h"
#include "store/store.h"

namespace hone {

class RunJournal {
 public:
  // Loads the run's stored attempts for replay (none for a new run).
  // `backend` and `language` go into every attempt it stores.
  static Result<RunJournal> Open(Store& store, int64_t run_id, std::string task_hash,
                                 std::string backend, std::string language,
                                 std::string options_hash);

  // The stored reply for `p` when the run has one still unused; the
  // proposal keeps its new id, the journal remembers its stored seq.
  std::optional<ChatReply> TakeStoredReply(const Proposal& p);
  // Gives a proposal that is asked of the model its sequence number now, in
  // the order proposals are made: two proposals with the same prompt are
  // then stored in the order a resumed run, which proposes in the same
  // order, hands their replies back (TakeStoredReply, oldest first), not in
  // the order their replies happened to arrive.
  void ReserveSeq(const Proposal& p) { SeqOf(p.id); }
  // Stores the attempt (its prompt, reply, extracted code and the LLM call);
  // a replayed one is already there and is left alone.
  Status RecordReply(const AttemptResult& r);

  // A stored verdict for this attempt's evaluation when it finished before;
  // otherwise begins the evaluation (finish it with FinishEvaluation).
  Result<std::optional<Verdict>> BeginEvaluation(const AttemptResult& r);
  Status FinishEvaluation(const AttemptResult& r, const Verdict& v);

  // Stored with every LLM call from now on.
  void SetProvenance(LlmProvenance p) { provenance_ = std::move(p); }

  int replayed() const { return replayed_; }
  int stored_attempts() const { return stored_attempts_; }

 private:
  struct Stored {
    CandidateRow candidate;
    std::optional<LlmCallRow> call;
  };
  RunJournal(Store& store, int64_t run_id) : store_(&store), run_id_(run_id) {}
  int SeqOf(int proposal_id);
  std::string WorkKeyOf(const AttemptResult& r);

  Store* store_;
  int64_t run_id_;
  std::string task_hash_, backend_, language_, options_hash_;
  std::map<std::string, std::deque<Stored>> unused_;  // by prompt hash, oldest first
  std::map<int, int> seq_of_;                         // proposal id -> stored seq
  std::map<int, int64_t> candidate_of_;               // proposal id -> candidate id
  std::map<int, int64_t> evaluation_of_;              // proposal id -> evaluation id
  int next_seq_ = 0;
  int replayed_ = 0, stored_attempts_ = 0;
  LlmProvenance provenance_;
};

}  // namespace hone
