// The rows of the run store (store/store.h), as plain values. Bulky nested
// data (prompts, verdicts, samples, HTTP exchanges) travels as JSON text;
// the numbers reports filter and sort on are real fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backend_names.h"

namespace hone {

struct RunRow {
  int64_t id = 0;
  std::string kind = "optimize";   // "optimize" or "bench"
  std::string name;                // free text: a label, the folder an import came from
  std::string created, updated;    // ISO 8601 UTC, set by the store
  std::string status = "running";  // "running", "finished", "failed"
  std::string hone_version;        // set by the store on CreateRun
  std::string config = "{}";       // JSON: the options the run was started with
  std::string summary = "{}";      // JSON: summary.json, written at the end
};

struct TaskRow {
  std::string hash;  // Task::hash (content hash of the definition)
  std::string name;
  std::string path;
  std::string definition;  // the task's text (task.toml and reference, or the .py)
};

// A task as one run sees it: its place in the run's suite and its category
// (KernelBench's level, or the suite's subfolder).
struct RunTaskRow {
  std::string task_hash, name, path, category;
  int position = 0;
};

struct BaselineRow {
  int64_t id = 0;
  std::string task_hash;
  std::string device;         // "cpu: <model>" or the GPU's name
  std::string torch_version;  // "native" for native tasks
  std::string case_name;
  std::optional<double> eager_seconds, compile_seconds;
  std::string samples = "{}";  // JSON: raw samples per mode
  std::string created;
};

// One attempt of a run: the conversation that was sent, the reply, and the
// code extracted from it (none when extraction failed).
struct CandidateRow {
  int64_t id = 0;  // store id, set by AddCandidate
  int64_t run_id = 0;
  std::string task_hash;
  int seq = 0;        // Proposal::id: unique in the run, in the order proposed
  std::string kind;   // strategy kind: "sample", "refine", "mutate", ...; "solution" in a bench
  std::string label;  // a bench's solution name ("fast", "level1/19_ReLU/right"); may be empty
  int lineage = 0, turn = 0;
  std::vector<int> parents;  // seqs of the attempts this one builds on
  std::string backend = kHostBackend;
  // The candidate's language (lang/language.h: "cpp", "cuda", "triton", ...);
  // empty in rows stored before schema version 6.
  std::string language;
  std::optional<std::string> source;  // the extracted code
  std::string source_hash;            // set by AddCandidate from source
  std::string prompt = "{}";          // JSON: {"system", "messages": [{"role","text"}]}
  std::string reply;                  // the reply's text
  std::string extraction = "{}";      // JSON: {"failure", "detail"}
  std::string created;
};

struct BuildRow {
  int64_t id = 0;
  int64_t candidate_id = 0;
  bool ok = true;
  bool cached = false;
  double seconds = 0;
  std::string log, resources;
  std::string created;
};

struct LlmCallRow {
  int64_t id = 0;
  int64_t run_id = 0;
  std::optional<int64_t> candidate_id;  // set by AddCandidate when stored with one
  std::optional<int> attempt_seq;
  std::string provider, model;
  bool ok = false;
  std::string error, finish_reason;
  bool truncated = false;
  int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
  double seconds = 0;
  int http_attempts = 0;
  std::string exchanges = "[]";  // JSON: every HTTP exchange (no API keys: headers are not kept)
  std::string created;
  // Provenance: the sampling settings asked for (JSON: temperature,
  // max_tokens, reasoning_effort, thinking_budget_tokens) and the prompt
  // templates' content hash.
  std::string sampling = "{}";
  std::string prompt_version;
};

// An evaluation: one unit of work (a candidate's source on a task under
// given evaluation options), begun then finished. `state` is "started"
// until FinishEvaluation commits the verdict.
struct EvaluationRow {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string work_key;
  std::string task_hash;
  std::optional<int64_t> candidate_id;
  std::string state;           // "started" or "finished"
  int tries = 0;               // how many times it was begun (more than 1: redone after a crash)
  std::string status, reason;  // VerdictStatus name; empty until finished
  std::optional<double> speedup, sol_percent;
  std::optional<double> speedup_compile;  // PyTorch tasks with a torch.compile baseline
  int checks_failed = 0;
  std::optional<double> cand_median_us, cand_ci_low_us, cand_ci_high_us, ref_median_us;
  int reps = 0;
  std::string samples;       // JSON {"candidate_us": [...], "reference_us": [...]}
  std::string checks;        // JSON array of {"name","where","passed","detail"}
  std::string device_state;  // JSON, CUDA only; empty otherwise
  std::string verdict;       // JSON: the whole verdict (verify/verdict_json.h)
  std::string started, finished;
};

struct CandidateWithEvaluation {
  CandidateRow candidate;
  std::optional<EvaluationRow> evaluation;  // the latest one
};

// A lesson distilled from a finished optimize run (search/lesson_distil.h):
// which change, on which kind of task, gained how much. `basis` says what
// the change is measured against: "reference" (the task's reference, at
// speedup 1) or "parent" (the attempt it was written from,
// basis_candidate_id).
struct LessonRow {
  int64_t id = 0;  // set by the store
  int64_t run_id = 0;
  std::string task_hash, task_name, category, backend;
  std::string signature = "{}";  // JSON: the task's features (search/task_signature.h)
  int64_t candidate_id = 0;      // the attempt that gained
  std::string basis = "reference";
  std::optional<int64_t> basis_candidate_id;  // "parent" only
  std::string change;                         // what changed, in words
  double speedup_before = 1, speedup_after = 1;
  std::optional<double> sol_before, sol_after;  // % of speed of light
  std::string evidence = "{}";                  // JSON: seqs, evaluations, medians, the timed case
  std::string created;                          // set by the store
};

struct BestCandidate {
  std::string task_hash, task_name;
  int64_t run_id = 0;
  int64_t candidate_id = 0;
  int seq = 0;
  int64_t evaluation_id = 0;
  double speedup = 0;
};

}  // namespace hone
