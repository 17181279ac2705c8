// JobQueue over Redis Streams (job_queue.h states the contract). Every key
// starts with the configurable prefix P (default "hone:"):
//
//   P jobs            stream: one entry {id} per job, read by workers through
//                     the consumer group "workers" (created with MKSTREAM);
//                     an entry is XACKed and XDELed when its job is done, so
//                     XLEN counts only jobs not yet done
//   P job:<id>        hash {key, body, attempts}: the content key (HSETNX
//                     decides created, attached or conflict), the job as
//                     JSON, and how many times it was taken (HINCRBY)
//   P result:<id>     string: the result as JSON, stored with SET NX; the
//                     first one stays
//   P done:<id>       Pub/Sub channel: PUBLISHed once the result is stored
//   P dead            stream: a copy {id, attempts, entry} of each
//                     dead-lettered job (capped at about 10000 entries)
//   P stat:done, P stat:dead   counters of results stored, jobs dead-lettered
//
// Each step that touches several keys is one Lua script, so that no crash
// between two commands can leave a job enqueued without a body, a result
// without its acknowledgement or a counter off by one: Submit (HSETNX of the
// content key, then XADD), the lease of a taken entry (attempts HINCRBY, or
// the dead letter past max_attempts, or dropping an entry whose job already
// has a result, e.g. cancelled), Complete (SET NX of the result *before*
// XACK, then PUBLISH), Cancel and Renew. Take reclaims stale leases with
// XAUTOCLAIM (min idle = the lease time) before reading new entries with
// XREADGROUP; Renew is XCLAIM ... JUSTID by the lease's owner only (it
// resets the idle time without counting a delivery; a lease another worker
// reclaimed meanwhile is Status::NotFound, and Complete's SET NX still
// keeps the first result); Release is the same XCLAIM with IDLE set to the
// lease, which makes the entry stale at once. A job done (or dead) and its result expire after
// `retention`; until then its id keeps its meaning.
//
// WaitForAny subscribes to the done channels of its ids on a second
// connection for the length of the call, then checks which ids have a
// result, and checks again on each message; a check every `recheck` is the
// safety net for a message lost with a dropped connection. Cancel of an
// unknown id is Status::NotFound; a cancelled job's result has status
// "cancelled" and error_class "infra_error" (nothing was said about the
// candidate). The keys of one job are not in one cluster slot: this needs
// a single Redis (or a primary with replicas), not Redis Cluster.
//
// Threads: like every JobQueue, one thread at a time; it owns two
// connections (commands, and Pub/Sub for WaitForAny). A dropped connection
// is remade by the next call; calls that are safe to repeat are retried
// once on the new connection, others return Status::Unavailable.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "serve/job_queue.h"
#include "serve/queue_pool.h"
#include "serve/redis_client.h"

namespace hone {

struct RedisQueueOptions {
  std::string prefix = "hone:";
  std::string group = "workers";
  // A lease not renewed for this long is stale: its job goes to the next Take.
  std::chrono::milliseconds lease{std::chrono::seconds(30)};
  // Takes of one job before it is dead-lettered instead.
  int max_attempts = 3;
  // WaitForAny's safety net (never its main mechanism: Pub/Sub wakes it).
  std::chrono::milliseconds recheck{std::chrono::seconds(1)};
  // How long a finished job and its result are kept.
  std::chrono::seconds retention{std::chrono::hours(24)};
};

// Status::Invalid naming the option for values that cannot work.
Status CheckRedisQueueOptions(const RedisQueueOptions& o);

class RedisJobQueue : public JobQueue {
 public:
  // Connects and creates the stream and its consumer group when missing.
  static Result<std::unique_ptr<RedisJobQueue>> Open(const RedisClientOptions& redis,
                                                     const RedisQueueOptions& options);

  Result<SubmitOutcome> Submit(const EvalJob& job) override;
  Result<std::optional<EvalResult>> GetResult(const std::string& id) override;
  Result<std::optional<EvalJob>> GetJob(const std::string& id) override;
  Result<JobState> State(const std::string& id) override;
  Result<bool> Cancel(const std::string& id) override;
  Result<std::vector<std::string>> WaitForAny(const std::vector<std::string>& ids,
                                              std::chrono::milliseconds timeout) override;
  Result<QueueStats> Stats() override;

  Result<std::optional<JobLease>> Take(const std::string& consumer,
                                       std::chrono::milliseconds block) override;
  Status Renew(const JobLease& lease, const std::string& consumer) override;
  Result<bool> Complete(const JobLease& lease, const EvalResult& result) override;
  Status Release(const JobLease& lease, const std::string& consumer) override;

  // The full name of a key ("jobs" -> "hone:jobs"), for tools and tests.
  std::string Key(const std::string& name) const { return options_.prefix + name; }
  const RedisQueueOptions& options() const { return options_; }
  // The command connection, for tests that break it on purpose.
  RedisClient& client() { return client_; }

 private:
  struct Entry {
    std::string entry;  // stream entry id
    std::string id;     // job id
  };

  RedisJobQueue(const RedisClientOptions& redis, const RedisQueueOptions& options);
  Status EnsureGroup();
  // EVALSHA of one of the scripts (loaded on first use or after NOSCRIPT).
  Result<RedisReply> Script(const std::string& name, const std::vector<std::string>& keys,
                            const std::vector<std::string>& args, bool retry);
  Result<std::optional<Entry>> ClaimStale(const std::string& consumer);
  Result<std::optional<Entry>> ReadNew(const std::string& consumer,
                                       std::chrono::milliseconds block);
  Result<std::optional<JobLease>> Lease(const Entry& e);
  Result<std::vector<std::string>> WithResult(const std::vector<std::string>& ids);
  Status Subscribe(const std::vector<std::string>& ids);
  void Unsubscribe();

  RedisQueueOptions options_;
  RedisClient client_;
  RedisClient pubsub_;
  bool subscribed_ = false;
  std::map<std::string, std::string> script_sha_;
  std::string autoclaim_cursor_ = "0-0";
};

// Opens a RedisJobQueue per call: the factory of a QueuePool (a server's
// handler threads each borrow their own connection).
JobQueueFactory RedisJobQueueFactory(RedisClientOptions redis, RedisQueueOptions options);

}  // namespace hone
