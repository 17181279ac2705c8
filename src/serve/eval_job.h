// One evaluation the service takes: the request item of POST /v1/evals (and
// what the shims translate their bodies into), as it travels through the
// queue to a worker.
//
//   {"id": "...", "problem": "level1/19_ReLU" | {"name": ...} | {"code": "..."},
//    "candidate": {"code": "...", "kind": "modelnew" | "triton" | "cuda" | "cpp" | ...},
//    "config": {"backend": "cuda", "baselines": "eager", "reward": "kernelbench", ...}}
//
// `id` is the client's idempotency key: the same id with the same content
// (ContentKey) is the same job; the same id with other content is a
// conflict. A problem is named (resolved by the worker against its problem
// folder) or given as source text. Values only; no I/O. Thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "lang/language.h"

namespace hone {

// candidate.kind of a solution in the problem's own task format (a
// FlashInfer-Trace solution JSON): the worker turns it into the file hone
// evaluates, as `hone eval DEFINITION SOLUTION` does.
inline constexpr const char* kSolutionKind = "solution";

struct EvalJob {
  std::string id;
  std::string problem_name;  // "level1/19_ReLU": a file of the worker's problem folder
  std::string problem_code;  // or the problem's own source (a KernelBench Model file)
  std::string candidate_code;
  // A kernel language's name or alias (lang/language.h): "modelnew" (a
  // KernelBench ModelNew file, whose text says load_inline or Triton),
  // "triton", "cuda" (.cu), "cpp" (.cpp), ...
  std::string candidate_kind = "modelnew";           // or kSolutionKind
  nlohmann::json config = nlohmann::json::object();  // see EvalConfigKeys()

  // What the id stands for: problem, candidate and config, not the id.
  std::string ContentKey() const;
  // The file name a candidate of this kind is written under ("candidate.py"),
  // its extension that of the kind's language in `languages`.
  std::string CandidateFileName(const LanguageRegistry& languages) const;
};

// The config keys a job may set (anything else is a bad request): backend,
// baselines, reward, timeout_s, allow, seeds, and part (which part of a
// problem of several: a FlashInfer-Trace workload's uuid, a robust-kbench
// configuration's label, or a prefix of either that names one).
const std::vector<std::string>& EvalConfigKeys();

// Status::Invalid naming the field (prefixed by `where`, e.g. "items[3].")
// for a malformed item; limits: id 1-200 printable characters, code at most
// `max_code_bytes`. The candidate's kind is only read: CheckJobKind says
// whether this server knows it.
Result<EvalJob> EvalJobFromJson(const nlohmann::json& j, const std::string& where = "",
                                size_t max_code_bytes = 1 << 20);
// Status::Invalid naming candidate.kind when it is neither a language of
// `languages` (a name or an alias) nor kSolutionKind.
Status CheckJobKind(const EvalJob& job, const LanguageRegistry& languages,
                    const std::string& where = "");
nlohmann::json EvalJobToJson(const EvalJob& job);

}  // namespace hone
