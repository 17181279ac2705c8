#include "serve/redis_job_queue.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/json_text.h"
#include "serve/redis_queue_scripts.h"

namespace hone {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using json = nlohmann::json;

// Entries a Take passes over (cancelled or dead-lettered jobs) before it
// gives up for this call: the loop is bounded whatever the stream holds.
constexpr int kMaxSkips = 64;

std::string Str(long long v) { return std::to_string(v); }

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

Status Unexpected(const std::string& what, const RedisReply& r) {
  // An ACL'd Redis met without credentials: say what is missing.
  if (r.error() && StartsWith(r.str, "NOAUTH"))
    return Status::Invalid("redis: " + r.str +
                           " (this Redis wants a user and password: give them with --redis-auth "
                           "FILE, or HONE_REDIS_USER and HONE_REDIS_PASSWORD)");
  return Status::Internal("redis: unexpected reply to " + what +
                          (r.error() ? ": " + r.str : std::string()));
}

// The job id of a stream entry [entry, [field, value, ...]].
std::optional<std::pair<std::string, std::string>> ParseEntry(const RedisReply& e) {
  if (e.type != RedisReply::Type::kArray || e.elements.size() < 2) return std::nullopt;
  const auto& fields = e.elements[1].elements;
  for (size_t i = 0; i + 1 < fields.size(); i += 2)
    if (fields[i].str == "id") return std::make_pair(e.elements[0].str, fields[i + 1].str);
  return std::nullopt;
}

EvalResult CancelledResult(const std::string& id) {
  EvalResult r = InfraErrorResult(id, "cancelled before a result was stored", 0, "");
  r.status = "cancelled";
  return r;
}

}  // namespace

Status CheckRedisQueueOptions(const RedisQueueOptions& o) {
  if (o.prefix.empty()) return Status::Invalid("key prefix: must not be empty");
  if (o.lease < milliseconds(100)) return Status::Invalid("lease: must be at least 100 ms");
  if (o.max_attempts < 1) return Status::Invalid("max attempts: must be at least 1");
  if (o.recheck < milliseconds(10)) return Status::Invalid("recheck: must be at least 10 ms");
  if (o.retention < std::chrono::seconds(1)) return Status::Invalid("retention: at least 1 s");
  return Status::Ok();
}

RedisJobQueue::RedisJobQueue(const RedisClientOptions& redis, const RedisQueueOptions& options)
    : options_(options), client_(redis), pubsub_(redis) {}

Result<std::unique_ptr<RedisJobQueue>> RedisJobQueue::Open(const RedisClientOptions& redis,
                                                           const RedisQueueOptions& options) {
  HONE_RETURN_IF_ERROR(CheckRedisQueueOptions(options));
  std::unique_ptr<RedisJobQueue> q(new RedisJobQueue(redis, options));
  HONE_RETURN_IF_ERROR(q->client_.Connect());
  HONE_RETURN_IF_ERROR(q->EnsureGroup());
  return q;
}

JobQueueFactory RedisJobQueueFactory(RedisClientOptions redis, RedisQueueOptions options) {
  return [redis = std::move(redis),
          options = std::move(options)]() -> Result<std::unique_ptr<JobQueue>> {
    HONE_ASSIGN_OR_RETURN(std::unique_ptr<RedisJobQueue> q, RedisJobQueue::Open(redis, options));
    return std::unique_ptr<JobQueue>(std::move(q));
  };
}

Status RedisJobQueue::EnsureGroup() {
  HONE_ASSIGN_OR_RETURN(RedisReply r, client_.Command({"XGROUP", "CREATE", Key("jobs"),
                                                       options_.group, "0", "MKSTREAM"},
                                                      /*retry=*/true));
  if (r.error() && !StartsWith(r.str, "BUSYGROUP")) return Unexpected("XGROUP CREATE", r);
  return Status::Ok();
}

Result<RedisReply> RedisJobQueue::Script(const std::string& name,
                                         const std::vector<std::string>& keys,
                                         const std::vector<std::string>& args, bool retry) {
  std::string& sha = script_sha_[name];
  for (int round = 0; round < 2; ++round) {
    if (sha.empty()) {
      HONE_ASSIGN_OR_RETURN(RedisReply loaded,
                            OkReply(client_.Command({"SCRIPT", "LOAD", RedisQueueScript(name)},
                                                    /*retry=*/true)));
      sha = loaded.str;
    }
    std::vector<std::string> argv = {"EVALSHA", sha, Str(static_cast<long long>(keys.size()))};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    HONE_ASSIGN_OR_RETURN(RedisReply r, client_.Command(argv, retry));
    // A restarted Redis has forgotten its scripts: load it again.
    if (r.error() && StartsWith(r.str, "NOSCRIPT")) {
      sha.clear();
      continue;
    }
    if (r.error()) return Unexpected(name + " script", r);
    return r;
  }
  return Status::Internal("redis: the " + name + " script could not be loaded");
}

// ---- the server's side

Result<SubmitOutcome> RedisJobQueue::Submit(const EvalJob& job) {
  // Safe to repeat: a second run of a first that went through says attached.
  HONE_ASSIGN_OR_RETURN(RedisReply r,
                        Script("submit", {Key("job:" + job.id), Key("jobs")},
                               {job.ContentKey(), JsonText(EvalJobToJson(job)), job.id}, true));
  if (r.integer == 0) return SubmitOutcome::kCreated;
  if (r.integer == 1) return SubmitOutcome::kAttached;
  return SubmitOutcome::kConflict;
}

Result<std::optional<EvalResult>> RedisJobQueue::GetResult(const std::string& id) {
  HONE_ASSIGN_OR_RETURN(RedisReply r, OkReply(client_.Command({"GET", Key("result:" + id)}, true)));
  if (r.nil()) return std::optional<EvalResult>();
  json j = json::parse(r.str, nullptr, false);
  auto result = EvalResultFromJson(j);
  if (!result.ok()) return result.status().With("stored result of " + id + ": ");
  return std::optional<EvalResult>(std::move(*result));
}

Result<std::optional<EvalJob>> RedisJobQueue::GetJob(const std::string& id) {
  HONE_ASSIGN_OR_RETURN(RedisReply r,
                        OkReply(client_.Command({"HGET", Key("job:" + id), "body"}, true)));
  if (r.nil()) return std::optional<EvalJob>();
  auto job = EvalJobFromJson(json::parse(r.str, nullptr, false), "", SIZE_MAX);
  if (!job.ok()) return job.status().With("stored job " + id + ": ");
  return std::optional<EvalJob>(std::move(*job));
}

Result<JobState> RedisJobQueue::State(const std::string& id) {
  HONE_ASSIGN_OR_RETURN(auto rs, client_.Pipeline({{"EXISTS", Key("result:" + id)},
                                                   {"HGET", Key("job:" + id), "attempts"}},
                                                  true));
  if (rs[0].error() || rs[1].error())
    return Unexpected("EXISTS/HGET", rs[0].error() ? rs[0] : rs[1]);
  if (rs[0].integer == 1) return JobState::kDone;
  if (rs[1].nil()) return JobState::kUnknown;
  return rs[1].str == "0" ? JobState::kQueued : JobState::kRunning;
}

Result<bool> RedisJobQueue::Cancel(const std::string& id) {
  std::string result = JsonText(EvalResultToJson(CancelledResult(id)));
  HONE_ASSIGN_OR_RETURN(
      RedisReply r, Script("cancel", {Key("job:" + id), Key("result:" + id), Key("stat:done")},
                           {result, Key("done:" + id), id, Str(options_.retention.count())}, true));
  if (r.integer < 0) return Status::NotFound("no job with id " + id);
  return r.integer == 1;
}

Result<QueueStats> RedisJobQueue::Stats() {
  HONE_ASSIGN_OR_RETURN(auto rs, client_.Pipeline({{"XLEN", Key("jobs")},
                                                   {"XPENDING", Key("jobs"), options_.group},
                                                   {"GET", Key("stat:done")},
                                                   {"GET", Key("stat:dead")}},
                                                  true));
  for (const auto& r : rs)
    if (r.error()) return Unexpected("XLEN/XPENDING/GET", r);
  QueueStats s;
  long long length = rs[0].integer;
  if (!rs[1].elements.empty()) s.running = rs[1].elements[0].integer;
  // Done entries are deleted from the stream: what is left is queued or taken.
  s.queued = std::max(0LL, length - s.running);
  s.done = rs[2].nil() ? 0 : std::atoll(rs[2].str.c_str());
  s.dead = rs[3].nil() ? 0 : std::atoll(rs[3].str.c_str());
  return s;
}

Result<std::vector<std::string>> RedisJobQueue::WithResult(const std::vector<std::string>& ids) {
  std::vector<std::vector<std::string>> commands;
  commands.reserve(ids.size());
  for (const auto& id : ids) commands.push_back({"EXISTS", Key("result:" + id)});
  HONE_ASSIGN_OR_RETURN(auto rs, client_.Pipeline(commands, true));
  std::vector<std::string> done;
  for (size_t i = 0; i < ids.size(); ++i)
    if (rs[i].integer == 1) done.push_back(ids[i]);
  return done;
}

// Subscribed before the first check, so a completion between the check and
// the wait is a message, not a miss.
Status RedisJobQueue::Subscribe(const std::vector<std::string>& ids) {
  std::vector<std::string> argv = {"SUBSCRIBE"};
  for (const auto& id : ids) argv.push_back(Key("done:" + id));
  HONE_RETURN_IF_ERROR(pubsub_.Send(argv));
  subscribed_ = true;
  size_t confirmed = 0;
  auto deadline = Clock::now() + milliseconds(5000);
  while (confirmed < ids.size()) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    HONE_ASSIGN_OR_RETURN(auto r, pubsub_.Read(std::max(left, milliseconds(0))));
    if (!r) return Status::Unavailable("redis: SUBSCRIBE was not confirmed in time");
    if (!r->elements.empty() && r->elements[0].str == "subscribe") ++confirmed;
  }
  return Status::Ok();
}

// Reads until Redis confirms that no channel is left, so that the next
// call starts on a quiet connection; a connection that misbehaves is dropped.
void RedisJobQueue::Unsubscribe() {
  if (!subscribed_) return;
  subscribed_ = false;
  if (!pubsub_.connected() || !pubsub_.Send({"UNSUBSCRIBE"}).ok()) return pubsub_.Disconnect();
  auto deadline = Clock::now() + milliseconds(5000);
  while (Clock::now() < deadline) {
    auto r = pubsub_.Read(milliseconds(1000));
    if (!r.ok() || !*r) break;
    const auto& e = (*r)->elements;
    if (e.size() == 3 && e[0].str == "unsubscribe" && e[2].integer == 0) return;
  }
  pubsub_.Disconnect();
}

Result<std::vector<std::string>> RedisJobQueue::WaitForAny(const std::vector<std::string>& ids,
                                                           milliseconds timeout) {
  if (ids.empty()) return std::vector<std::string>();
  auto deadline = Clock::now() + timeout;
  std::vector<std::string> done;
  while (true) {
    // Without a subscription (Redis refused it, the connection dropped)
    // the check every `recheck` still finds the results.
    if (!subscribed_ && !Subscribe(ids).ok()) {
      subscribed_ = false;
      pubsub_.Disconnect();
    }
    auto checked = WithResult(ids);
    if (!checked.ok()) {
      Unsubscribe();
      return checked.status();
    }
    done = std::move(*checked);
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (!done.empty() || left.count() <= 0) break;
    auto wait = std::min(left, options_.recheck);
    if (!subscribed_) {
      std::this_thread::sleep_for(wait);
      continue;
    }
    // Any message is a reason to check again; a broken connection is
    // remade at the top of the loop.
    if (auto m = pubsub_.Read(wait); !m.ok()) subscribed_ = false;
  }
  Unsubscribe();
  return done;
}

// ---- the workers' side

Result<std::optional<RedisJobQueue::Entry>> RedisJobQueue::ClaimStale(const std::string& consumer) {
  HONE_ASSIGN_OR_RETURN(
      RedisReply r, client_.Command({"XAUTOCLAIM", Key("jobs"), options_.group, consumer,
                                     Str(options_.lease.count()), autoclaim_cursor_, "COUNT", "1"},
                                    /*retry=*/true));
  if (r.error() && StartsWith(r.str, "NOGROUP")) {
    HONE_RETURN_IF_ERROR(EnsureGroup());
    return std::optional<Entry>();
  }
  if (r.error() || r.elements.size() < 2) return Unexpected("XAUTOCLAIM", r);
  // The cursor walks the pending list across calls; 0-0 starts it over. (A
  // repeated claim whose first reply was lost leaves that entry idle again
  // for a lease: late, never lost.)
  autoclaim_cursor_ = r.elements[0].str;
  for (const auto& e : r.elements[1].elements)
    if (auto parsed = ParseEntry(e))
      return std::optional<Entry>(Entry{parsed->first, parsed->second});
  return std::optional<Entry>();
}

Result<std::optional<RedisJobQueue::Entry>> RedisJobQueue::ReadNew(const std::string& consumer,
                                                                   milliseconds block) {
  std::vector<std::string> argv = {"XREADGROUP", "GROUP", options_.group, consumer, "COUNT", "1"};
  // BLOCK 0 would wait forever: no block time means no BLOCK at all.
  if (block.count() > 0) {
    argv.push_back("BLOCK");
    argv.push_back(Str(block.count()));
  }
  argv.insert(argv.end(), {"STREAMS", Key("jobs"), ">"});
  // Repeating a read whose reply was lost leaves that entry in this
  // consumer's pending list, where it goes stale and is reclaimed: late,
  // never lost.
  HONE_ASSIGN_OR_RETURN(RedisReply r, client_.Command(argv, true, block + milliseconds(5000)));
  if (r.error() && StartsWith(r.str, "NOGROUP")) {
    HONE_RETURN_IF_ERROR(EnsureGroup());
    return std::optional<Entry>();
  }
  if (r.error()) return Unexpected("XREADGROUP", r);
  if (r.nil() || r.elements.empty() || r.elements[0].elements.size() < 2)
    return std::optional<Entry>();
  for (const auto& e : r.elements[0].elements[1].elements)
    if (auto parsed = ParseEntry(e))
      return std::optional<Entry>(Entry{parsed->first, parsed->second});
  return std::optional<Entry>();
}

Result<std::optional<JobLease>> RedisJobQueue::Lease(const Entry& e) {
  EvalResult dead =
      InfraErrorResult(e.id,
                       "dead-lettered: the worker was lost " + Str(options_.max_attempts) +
                           " times while evaluating this job (the candidate may kill the worker)",
                       options_.max_attempts, "");
  // Not retried: a second run would count a second attempt.
  HONE_ASSIGN_OR_RETURN(
      RedisReply r,
      Script("lease",
             {Key("job:" + e.id), Key("result:" + e.id), Key("jobs"), Key("dead"), Key("stat:done"),
              Key("stat:dead")},
             {options_.group, e.entry, Str(options_.max_attempts), JsonText(EvalResultToJson(dead)),
              Key("done:" + e.id), e.id, Str(options_.retention.count())},
             false));
  if (r.elements.empty()) return Unexpected("lease script", r);
  long long attempt = r.elements[0].integer;
  if (attempt <= 0) return std::optional<JobLease>();
  if (r.elements.size() < 2) return Unexpected("lease script", r);
  auto job = EvalJobFromJson(json::parse(r.elements[1].str, nullptr, false), "", SIZE_MAX);
  if (!job.ok()) return job.status().With("stored job " + e.id + ": ");
  JobLease lease;
  lease.job = std::move(*job);
  lease.entry = e.entry;
  lease.attempt = static_cast<int>(attempt);
  return std::optional<JobLease>(std::move(lease));
}

Result<std::optional<JobLease>> RedisJobQueue::Take(const std::string& consumer,
                                                    milliseconds block) {
  for (int i = 0; i < kMaxSkips; ++i) {
    HONE_ASSIGN_OR_RETURN(auto entry, ClaimStale(consumer));
    if (!entry) {
      HONE_ASSIGN_OR_RETURN(entry, ReadNew(consumer, block));
    }
    if (!entry) return std::optional<JobLease>();
    HONE_ASSIGN_OR_RETURN(auto lease, Lease(*entry));
    if (lease) return lease;
  }
  return std::optional<JobLease>();
}

Status RedisJobQueue::Renew(const JobLease& lease, const std::string& consumer) {
  HONE_ASSIGN_OR_RETURN(
      RedisReply r, Script("renew", {Key("jobs")}, {options_.group, lease.entry, consumer}, true));
  if (r.integer != 1)
    return Status::NotFound("lease of " + lease.job.id + " (entry " + lease.entry +
                            ") is no longer " + consumer + "'s");
  return Status::Ok();
}

Status RedisJobQueue::Release(const JobLease& lease, const std::string& consumer) {
  HONE_ASSIGN_OR_RETURN(
      RedisReply r,
      Script("release", {Key("jobs")},
             {options_.group, lease.entry, consumer, Str(options_.lease.count())}, true));
  if (r.integer != 1)
    return Status::NotFound("lease of " + lease.job.id + " (entry " + lease.entry +
                            ") is no longer " + consumer + "'s");
  return Status::Ok();
}

Result<bool> RedisJobQueue::Complete(const JobLease& lease, const EvalResult& result) {
  const std::string& id = lease.job.id;
  HONE_ASSIGN_OR_RETURN(
      RedisReply r,
      Script("complete", {Key("result:" + id), Key("jobs"), Key("job:" + id), Key("stat:done")},
             {JsonText(EvalResultToJson(result)), options_.group, lease.entry, Key("done:" + id),
              id, Str(options_.retention.count())},
             true));
  return r.integer == 1;
}

}  // namespace hone
