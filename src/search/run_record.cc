#include "search/run_record.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "report/verdict_json.h"
#include "search/attempt_json.h"

namespace hone {
namespace {

nlohmann::json ReplyJson(const ChatReply& r) {
  return {{"ok", r.ok},
          {"error", r.error},
          {"text", r.text},
          {"finish_reason", r.finish_reason},
          {"truncated", r.truncated},
          {"input_tokens", r.input_tokens},
          {"output_tokens", r.output_tokens},
          {"cost_usd", r.cost_usd},
          {"attempts", r.attempts},
          {"seconds", r.seconds},
          {"exchanges", ExchangesToJson(r)}};
}

}  // namespace

Result<RunRecord> RunRecord::Create(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "candidates", ec);
  if (ec) return Status::Io(dir.string() + ": cannot create the run folder: " + ec.message());
  RunRecord r;
  r.dir_ = dir;
  r.attempts_.open(dir / "attempts.jsonl", std::ios::app);
  if (!r.attempts_) return Status::Io((dir / "attempts.jsonl").string() + ": cannot open");
  return r;
}

Result<std::filesystem::path> RunRecord::SaveCandidate(int id, const std::string& code,
                                                       const std::string& backend) {
  auto path = dir_ / "candidates" / fmt::format("{:06d}{}", id, backend == "cuda" ? ".cu" : ".cpp");
  HONE_RETURN_IF_ERROR(WriteFileAtomic(path, code));
  return path;
}

Status RunRecord::Append(const AttemptResult& r, const std::filesystem::path& candidate) {
  const Proposal& p = r.proposal;
  nlohmann::json j = {{"id", p.id},
                      {"kind", p.kind},
                      {"lineage", p.lineage},
                      {"turn", p.turn},
                      {"parents", p.parents},
                      {"prompt", PromptToJson(p)},
                      {"reply", ReplyJson(r.reply)}};
  if (r.reply.ok)
    j["extraction"] = {{"failure", ExtractFailureName(r.extraction.failure)},
                       {"detail", r.extraction.detail}};
  if (!candidate.empty()) j["candidate"] = candidate.string();
  if (r.verdict) j["verdict"] = VerdictToJson(*r.verdict);
  attempts_ << j.dump() << "\n" << std::flush;
  if (!attempts_) return Status::Io((dir_ / "attempts.jsonl").string() + ": write failed");
  return Status::Ok();
}

Status RunRecord::WriteSummary(const std::string& json) {
  return WriteFileAtomic(dir_ / "summary.json", json);
}

}  // namespace hone
