// The queue between `hone serve` (which submits jobs and reads results) and
// the workers (which take, renew and complete them). The implementation is
// Redis Streams (redis_job_queue.h): jobs are XADDed to a stream and read by
// workers through a consumer group; a result is stored with SET NX before
// the job's entry is acknowledged, so a job run twice (a worker that died
// after storing, a reclaimed lease) still has exactly one result, the first.
//
// Attempts: every Take of a job counts one. A job whose lease went stale (its
// worker died: no Renew within the lease) is taken again by the next Take of
// any worker; after `max_attempts` it is dead-lettered: its result is an
// infra_error naming the attempts, so one kernel that kills every worker
// that touches it cannot take the fleet down in turn.
//
// Thread-safety: an implementation is used by one thread at a time (a
// server or worker holds one per thread); many processes share the queue.
// Failures of the queue itself (Redis down) are Status::Unavailable.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "serve/eval_job.h"
#include "serve/eval_result.h"

namespace hone {

enum class SubmitOutcome {
  kCreated,   // a new job
  kAttached,  // the same id with the same content: the existing job
  kConflict,  // the same id with other content: refused (HTTP 409)
};

enum class JobState { kUnknown, kQueued, kRunning, kDone };

// A job a worker holds: renew it while evaluating, complete it when done.
struct JobLease {
  EvalJob job;
  std::string entry;  // the stream entry id
  int attempt = 1;    // 1 for the first take
};

struct QueueStats {
  long long queued = 0;   // in the stream, not yet taken
  long long running = 0;  // taken, not yet acknowledged
  long long done = 0;     // results stored
  long long dead = 0;     // dead-lettered
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  // ---- the server's side
  virtual Result<SubmitOutcome> Submit(const EvalJob& job) = 0;
  virtual Result<std::optional<EvalResult>> GetResult(const std::string& id) = 0;
  virtual Result<std::optional<EvalJob>> GetJob(const std::string& id) = 0;
  virtual Result<JobState> State(const std::string& id) = 0;
  // Stores a "cancelled" result unless one exists; a worker that finishes it
  // later finds the result taken and drops its own. false: already done.
  virtual Result<bool> Cancel(const std::string& id) = 0;
  // Waits until at least one of `ids` has a result, or `timeout`; returns the
  // ids that have one (possibly none). Woken by completions, not polling.
  virtual Result<std::vector<std::string>> WaitForAny(const std::vector<std::string>& ids,
                                                      std::chrono::milliseconds timeout) = 0;
  virtual Result<QueueStats> Stats() = 0;

  // ---- the workers' side
  // The next job for `consumer`: a stale lease first, else a new entry,
  // waiting up to `block`. nullopt when there is none. Jobs past
  // max_attempts are dead-lettered here, never returned.
  virtual Result<std::optional<JobLease>> Take(const std::string& consumer,
                                               std::chrono::milliseconds block) = 0;
  // Keeps the lease of a long evaluation from going stale.
  virtual Status Renew(const JobLease& lease, const std::string& consumer) = 0;
  // Stores `result` (SET NX), then acknowledges the entry. false when a
  // result was already stored (the first one stays).
  virtual Result<bool> Complete(const JobLease& lease, const EvalResult& result) = 0;
  // Hands a job this worker cannot evaluate back at once, storing nothing:
  // its lease is made stale, so the next Take of any worker takes it (one
  // more attempt). NotFound when the lease is no longer `consumer`'s.
  virtual Status Release(const JobLease& lease, const std::string& consumer) = 0;
};

}  // namespace hone
