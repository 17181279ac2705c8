#include "serve/eval_job.h"

#include <algorithm>

#include "core/hash.h"
#include "core/json_text.h"
#include "task/oracle_service.h"

namespace hone {

namespace {

using json = nlohmann::json;

Status Bad(const std::string& where, const std::string& field, const std::string& what) {
  return Status::Invalid(where + field + " " + what);
}

bool Printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

Status ReadProblem(const json& p, const std::string& where, EvalJob& job) {
  if (p.is_string()) {
    job.problem_name = p.get<std::string>();
  } else if (p.is_object() && p.contains("name") && p["name"].is_string()) {
    job.problem_name = p["name"].get<std::string>();
  } else if (p.is_object() && p.contains("code") && p["code"].is_string()) {
    job.problem_code = p["code"].get<std::string>();
  } else {
    return Bad(where, "problem", "must be a problem name or {\"code\": SOURCE}");
  }
  if (!job.problem_name.empty() &&
      (job.problem_name.find("..") != std::string::npos || job.problem_name.front() == '/'))
    return Bad(where, "problem", "must name a file inside the problem folder");
  return Status::Ok();
}

Status ReadCandidate(const json& c, const std::string& where, size_t max_bytes, EvalJob& job) {
  if (!c.is_object() || !c.contains("code") || !c["code"].is_string())
    return Bad(where, "candidate.code", "must be a string");
  job.candidate_code = c["code"].get<std::string>();
  if (job.candidate_code.size() > max_bytes)
    return Bad(where, "candidate.code", "is larger than " + std::to_string(max_bytes) + " bytes");
  if (c.contains("kind")) {
    if (!c["kind"].is_string()) return Bad(where, "candidate.kind", "must be a string");
    job.candidate_kind = c["kind"].get<std::string>();
  }
  return Status::Ok();
}

Status ReadConfig(const json& c, const std::string& where, EvalJob& job) {
  if (!c.is_object()) return Bad(where, "config", "must be an object");
  const auto& keys = EvalConfigKeys();
  for (const auto& [key, value] : c.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string known;
      for (const auto& k : keys) known += (known.empty() ? "" : ", ") + k;
      return Bad(where, "config." + key, "is not a setting (known: " + known + ")");
    }
    bool number = key == "timeout_s" || key == "seeds";
    if (key == "reward" && value.is_object()) continue;  // {"preset": ..., overrides}
    if (number ? !value.is_number() : !value.is_string())
      return Bad(where, "config." + key, number ? "must be a number" : "must be a string");
  }
  job.config = c;
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& EvalConfigKeys() {
  static const std::vector<std::string> keys = {"backend", "baselines", "reward", "timeout_s",
                                                "allow",   "seeds",     "part"};
  return keys;
}

std::string EvalJob::ContentKey() const {
  return ContentHash(
      {problem_name, problem_code, candidate_kind, candidate_code, JsonText(config)});
}

Status CheckJobKind(const EvalJob& job, const LanguageRegistry& languages,
                    const std::string& where) {
  if (job.candidate_kind == kSolutionKind || languages.Find(job.candidate_kind))
    return Status::Ok();
  std::string known = "modelnew";
  for (const Language& l : languages.all()) known += ", " + l.name;
  return Bad(where, "candidate.kind",
             "must be a kernel language (" + known + ") or \"" + kSolutionKind +
                 "\" (a solution in the problem's format)");
}

std::string EvalJob::CandidateFileName(const LanguageRegistry& languages) const {
  if (candidate_kind == kSolutionKind) return "candidate.json";
  const Language* l = languages.Find(candidate_kind);
  return "candidate" + (l ? l->source.extension() : std::string(kPyTorchFileExtension));
}

Result<EvalJob> EvalJobFromJson(const json& j, const std::string& where, size_t max_code_bytes) {
  if (!j.is_object()) return Status::Invalid(where + " must be an object");
  EvalJob job;
  if (!j.contains("id") || !j["id"].is_string()) return Bad(where, "id", "must be a string");
  job.id = j["id"].get<std::string>();
  if (job.id.empty() || job.id.size() > 200 || !Printable(job.id))
    return Bad(where, "id", "must be 1-200 printable characters without spaces");
  if (!j.contains("problem")) return Bad(where, "problem", "is missing");
  HONE_RETURN_IF_ERROR(ReadProblem(j["problem"], where, job));
  if (job.problem_code.size() > max_code_bytes)
    return Bad(where, "problem.code",
               "is larger than " + std::to_string(max_code_bytes) + " bytes");
  if (!j.contains("candidate")) return Bad(where, "candidate", "is missing");
  HONE_RETURN_IF_ERROR(ReadCandidate(j["candidate"], where, max_code_bytes, job));
  if (j.contains("config")) HONE_RETURN_IF_ERROR(ReadConfig(j["config"], where, job));
  return job;
}

json EvalJobToJson(const EvalJob& job) {
  json problem = job.problem_code.empty() ? json{{"name", job.problem_name}}
                                          : json{{"code", job.problem_code}};
  return {{"id", job.id},
          {"problem", problem},
          {"candidate", {{"code", job.candidate_code}, {"kind", job.candidate_kind}}},
          {"config", job.config}};
}

}  // namespace hone
