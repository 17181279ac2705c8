#include "search/run_record.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/json_text.h"
#include "llm/reply_json.h"
#include "search/attempt_json.h"
#include "verify/verdict_json.h"

namespace hone {

Result<std::filesystem::path> RunRecord::Claim(const std::filesystem::path& wanted, bool numbered) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (wanted.has_parent_path()) fs::create_directories(wanted.parent_path(), ec);
  if (ec)
    return Status::Io(wanted.parent_path().string() +
                      ": cannot create the folder: " + ec.message());
  for (int n = 1; n <= 1000; ++n) {
    fs::path dir = n == 1 ? wanted : fs::path(wanted.string() + "-" + std::to_string(n));
    if (fs::create_directory(dir, ec)) return dir;
    if (ec) return Status::Io(dir.string() + ": cannot create the run folder: " + ec.message());
    // An empty folder given by name is the user's to use; a numbered one
    // may be another run's, claimed a moment ago.
    if (!numbered && fs::is_directory(dir, ec) && fs::is_empty(dir, ec)) return dir;
    if (!numbered)
      return Status::Invalid(dir.string() +
                             ": already holds files (another run's record?); choose another "
                             "--run-dir, or continue that run with --resume");
  }
  return Status::Io(wanted.string() + ": no free run folder among 1000 numbered ones");
}

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
                                                       const std::string& extension) {
  auto path = dir_ / "candidates" / fmt::format("{:06d}{}", id, extension);
  HONE_RETURN_IF_ERROR(WriteFileAtomic(path, code));
  return path;
}

Status RunRecord::Append(const AttemptResult& r, const std::filesystem::path& candidate) {
  const Proposal& p = r.proposal;
  nlohmann::json j = {{"id", p.id},
                      {"kind", p.kind},
                      {"label", p.label},
                      {"lineage", p.lineage},
                      {"turn", p.turn},
                      {"parents", p.parents},
                      {"prompt", PromptToJson(p)},
                      {"reply", ReplyToJson(r.reply)}};
  if (r.reply.ok && p.wants_code)
    j["extraction"] = {{"failure", ExtractFailureName(r.extraction.failure)},
                       {"detail", r.extraction.detail}};
  if (!candidate.empty()) j["candidate"] = candidate.string();
  if (r.verdict) j["verdict"] = VerdictToJson(*r.verdict);
  attempts_ << JsonText(j) << "\n" << std::flush;
  if (!attempts_) return Status::Io((dir_ / "attempts.jsonl").string() + ": write failed");
  return Status::Ok();
}

Status RunRecord::WriteSummary(const std::string& json) {
  return WriteFileAtomic(dir_ / "summary.json", json);
}

}  // namespace hone
