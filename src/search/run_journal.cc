#include "search/run_journal.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "core/json_text.h"
#include "llm/reply_json.h"
#include "search/attempt_json.h"
#include "verify/verdict_json.h"

namespace hone {
namespace {

using json = nlohmann::json;

std::string PromptKey(const std::string& prompt_json) { return ContentHash({prompt_json}); }

ChatReply ReplyOf(const CandidateRow& c, const std::optional<LlmCallRow>& call) {
  ChatReply r;
  r.text = c.reply;
  r.ok = call ? call->ok : !c.reply.empty();
  if (!call) return r;
  r.error = call->error;
  r.finish_reason = call->finish_reason;
  r.truncated = call->truncated;
  r.input_tokens = call->input_tokens;
  r.output_tokens = call->output_tokens;
  r.cost_usd = call->cost_usd;
  r.attempts = call->http_attempts;
  r.seconds = call->seconds;
  return r;
}

// The prompt as the store keeps it (and hashes it to find a stored reply).
std::string PromptText(const Proposal& p) { return JsonText(PromptToJson(p)); }

}  // namespace

Result<RunJournal> RunJournal::Open(Store& store, int64_t run_id, std::string task_hash,
                                    std::string backend, std::string language,
                                    std::string options_hash) {
  RunJournal j(store, run_id);
  j.task_hash_ = std::move(task_hash);
  j.backend_ = std::move(backend);
  j.language_ = std::move(language);
  j.options_hash_ = std::move(options_hash);
  HONE_ASSIGN_OR_RETURN(auto attempts, store.Attempts(run_id));
  // By sequence number, the order the run proposed them in (ReserveSeq):
  // proposals with the same prompt take their stored attempts in that order.
  std::stable_sort(attempts.begin(), attempts.end(),
                   [](const CandidateRow& a, const CandidateRow& b) { return a.seq < b.seq; });
  HONE_ASSIGN_OR_RETURN(auto calls, store.LlmCalls(run_id));
  std::map<int64_t, LlmCallRow> call_of;
  for (auto& c : calls)
    if (c.candidate_id) call_of[*c.candidate_id] = std::move(c);
  for (auto& c : attempts) {
    j.next_seq_ = std::max(j.next_seq_, c.seq + 1);
    std::optional<LlmCallRow> call;
    if (auto it = call_of.find(c.id); it != call_of.end()) call = it->second;
    std::string key = PromptKey(c.prompt);
    j.unused_[key].push_back({std::move(c), std::move(call)});
    ++j.stored_attempts_;
  }
  return j;
}

std::optional<ChatReply> RunJournal::TakeStoredReply(const Proposal& p) {
  auto it = unused_.find(PromptKey(PromptText(p)));
  if (it == unused_.end() || it->second.empty()) return std::nullopt;
  Stored s = std::move(it->second.front());
  it->second.pop_front();
  seq_of_[p.id] = s.candidate.seq;
  candidate_of_[p.id] = s.candidate.id;
  ++replayed_;
  return ReplyOf(s.candidate, s.call);
}

int RunJournal::SeqOf(int proposal_id) {
  auto [it, fresh] = seq_of_.try_emplace(proposal_id, next_seq_);
  if (fresh) ++next_seq_;
  return it->second;
}

Status RunJournal::RecordReply(const AttemptResult& r) {
  const Proposal& p = r.proposal;
  if (candidate_of_.count(p.id)) return Status::Ok();  // replayed: stored already
  CandidateRow c;
  c.run_id = run_id_;
  c.task_hash = task_hash_;
  c.seq = SeqOf(p.id);
  c.kind = p.kind;
  c.label = p.label;
  c.lineage = p.lineage;
  c.turn = p.turn;
  for (int parent : p.parents) c.parents.push_back(SeqOf(parent));
  c.backend = backend_;
  c.language = language_;
  if (r.reply.ok && p.wants_code && r.extraction.failure == ExtractFailure::kNone)
    c.source = r.extraction.code;
  c.prompt = PromptText(p);
  c.reply = r.reply.text;
  if (r.reply.ok && p.wants_code)
    c.extraction = JsonText(json(
        {{"failure", ExtractFailureName(r.extraction.failure)}, {"detail", r.extraction.detail}}));
  LlmCallRow call;
  call.ok = r.reply.ok;
  call.error = r.reply.error;
  call.finish_reason = r.reply.finish_reason;
  call.truncated = r.reply.truncated;
  call.input_tokens = r.reply.input_tokens;
  call.output_tokens = r.reply.output_tokens;
  call.cost_usd = r.reply.cost_usd;
  call.seconds = r.reply.seconds;
  call.http_attempts = r.reply.attempts;
  call.exchanges = JsonText(ExchangesToJson(r.reply));
  call.provider = provenance_.provider;
  call.model = provenance_.model;
  call.sampling = JsonText(ProvenanceJson(provenance_)["sampling"]);
  call.prompt_version = provenance_.prompt_version;
  HONE_ASSIGN_OR_RETURN(int64_t id, store_->AddCandidate(c, &call));
  candidate_of_[p.id] = id;
  return Status::Ok();
}

std::string RunJournal::WorkKeyOf(const AttemptResult& r) {
  // Per attempt: two attempts with the same code are two evaluations.
  return WorkKey(task_hash_,
                 SourceHash(r.extraction.code) + "#" + std::to_string(SeqOf(r.proposal.id)),
                 options_hash_);
}

Result<std::optional<Verdict>> RunJournal::BeginEvaluation(const AttemptResult& r) {
  auto cand = candidate_of_.find(r.proposal.id);
  if (cand == candidate_of_.end())
    return Status::Internal("evaluation begun for an attempt that was never recorded");
  bool finished = false;
  HONE_ASSIGN_OR_RETURN(int64_t id, store_->BeginEvaluation(run_id_, WorkKeyOf(r), task_hash_,
                                                            cand->second, &finished));
  evaluation_of_[r.proposal.id] = id;
  if (!finished) return std::optional<Verdict>();
  HONE_ASSIGN_OR_RETURN(EvaluationRow row, store_->GetEvaluation(id));
  json v = json::parse(row.verdict, nullptr, false);
  HONE_ASSIGN_OR_RETURN(Verdict verdict, VerdictFromJson(v));
  return std::optional<Verdict>(std::move(verdict));
}

Status RunJournal::FinishEvaluation(const AttemptResult& r, const Verdict& v) {
  auto it = evaluation_of_.find(r.proposal.id);
  if (it == evaluation_of_.end())
    return Status::Internal("evaluation finished that was never begun");
  return store_->FinishEvaluation(it->second, v);
}

}  // namespace hone
