// RedisJobQueue against a real redis-server of its own (tests/support/
// redis_server.h) on a loopback port: idempotent submits, first result
// wins, wake-ups by Pub/Sub, stale leases reclaimed, renewals, dead
// letters, cancellation and reconnects. Skipped when redis-server is
// missing.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "serve/redis_job_queue.h"
#include "support/redis_server.h"

namespace hone {
namespace {
// Its own namespace: this file's helpers may share a name with another
// file's in the same unity unit.
namespace redis_queue_test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

EvalJob Job(const std::string& id, const std::string& code = "int x;") {
  EvalJob j;
  j.id = id;
  j.problem_name = "fixture_add";
  j.candidate_code = code;
  j.candidate_kind = "cpp";
  return j;
}

EvalResult Passed(const std::string& id, int attempts = 1) {
  EvalResult r;
  r.id = id;
  r.status = "passed";
  r.compiled = r.correct = true;
  r.attempts = attempts;
  return r;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

class RedisQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = TestRedisServer::Start();
    if (!s.ok()) GTEST_SKIP() << "no redis-server for this test: " << s.status().message();
    server_ = std::move(*s);
  }

  std::unique_ptr<RedisJobQueue> Open(RedisQueueOptions o = {}) {
    auto q = RedisJobQueue::Open(server_->client_options(), o);
    EXPECT_TRUE(q.ok()) << q.status().message();
    return q.ok() ? std::move(*q) : nullptr;
  }

  // Two workers' queues with this lease time, and job "a" submitted.
  std::pair<std::unique_ptr<RedisJobQueue>, std::unique_ptr<RedisJobQueue>> TwoWorkers(
      std::chrono::milliseconds lease) {
    RedisQueueOptions o;
    o.lease = lease;
    auto q1 = Open(o);
    auto q2 = Open(o);
    EXPECT_TRUE(q1->Submit(Job("a")).ok());
    return {std::move(q1), std::move(q2)};
  }

  long long Redis(const std::vector<std::string>& argv) {
    RedisClient c(server_->client_options());
    auto r = c.Command(argv);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->integer : -1;
  }

  std::unique_ptr<TestRedisServer> server_;
};

TEST_F(RedisQueueTest, SubmitIsCreatedAttachedOrConflict) {
  auto q = Open();
  EXPECT_EQ(*q->Submit(Job("a")), SubmitOutcome::kCreated);
  EXPECT_EQ(*q->Submit(Job("a")), SubmitOutcome::kAttached);
  EXPECT_EQ(*q->Submit(Job("a", "int y;")), SubmitOutcome::kConflict);
  EXPECT_EQ(Redis({"XLEN", "hone:jobs"}), 1) << "one entry for one job";
  auto job = q->GetJob("a");
  ASSERT_TRUE(job.ok() && *job);
  EXPECT_EQ((*job)->candidate_code, "int x;");
  EXPECT_FALSE(*q->GetJob("nope"));
  EXPECT_EQ(*q->State("a"), JobState::kQueued);
  EXPECT_EQ(*q->State("nope"), JobState::kUnknown);
  auto stats = q->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->queued, 1);
  EXPECT_EQ(stats->running, 0);
}

TEST_F(RedisQueueTest, FirstResultWins) {
  auto q = Open();
  ASSERT_TRUE(q->Submit(Job("a")).ok());
  auto lease = q->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease);
  EXPECT_EQ((*lease)->attempt, 1);
  EXPECT_EQ(*q->State("a"), JobState::kRunning);
  EXPECT_TRUE(*q->Complete(**lease, Passed("a")));
  EvalResult other = InfraErrorResult("a", "second", 1, "");
  EXPECT_FALSE(*q->Complete(**lease, other)) << "a second result is refused";
  auto r = q->GetResult("a");
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->status, "passed");
  EXPECT_EQ(*q->State("a"), JobState::kDone);
  auto stats = q->Stats();
  EXPECT_EQ(stats->queued, 0);
  EXPECT_EQ(stats->running, 0);
  EXPECT_EQ(stats->done, 1);
  EXPECT_EQ(Redis({"XLEN", "hone:jobs"}), 0) << "done entries leave the stream";
}

TEST_F(RedisQueueTest, WaitForAnyWakesOnCompletionNotOnPolling) {
  RedisQueueOptions o;
  o.recheck = 10s;  // the safety net cannot be what wakes it
  auto server = Open(o);
  auto worker = Open(o);
  ASSERT_TRUE(server->Submit(Job("a")).ok());
  ASSERT_TRUE(server->Submit(Job("b")).ok());
  auto lease = worker->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease);
  Clock::time_point completed;
  auto waiter = std::async(std::launch::async, [&] {
    auto ids = server->WaitForAny({"b", (*lease)->job.id}, 5s);
    return std::make_pair(Clock::now(), ids);
  });
  std::this_thread::sleep_for(300ms);
  completed = Clock::now();
  ASSERT_TRUE(*worker->Complete(**lease, Passed((*lease)->job.id)));
  auto [woke, ids] = waiter.get();
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  ASSERT_EQ(ids->size(), 1u);
  EXPECT_EQ(ids->front(), (*lease)->job.id);
  double latency = Ms(woke - completed);
  std::printf("WaitForAny woke %.2f ms after Complete\n", latency);
  EXPECT_LT(latency, 100);
  // Done already: at once. Nothing done: empty at the timeout.
  auto start = Clock::now();
  EXPECT_EQ(server->WaitForAny({(*lease)->job.id}, 5s)->size(), 1u);
  EXPECT_LT(Ms(Clock::now() - start), 100);
  start = Clock::now();
  EXPECT_TRUE(server->WaitForAny({"b"}, 200ms)->empty());
  EXPECT_GE(Ms(Clock::now() - start), 190);
}

TEST_F(RedisQueueTest, StaleLeaseIsReclaimedAndCountsAnAttempt) {
  auto [q1, q2] = TwoWorkers(300ms);
  auto first = q1->Take("w1", 0ms);
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_FALSE(*q2->Take("w2", 0ms)) << "a fresh lease is not taken";
  std::this_thread::sleep_for(450ms);  // w1 "died": no renewal
  auto second = q2->Take("w2", 0ms);
  ASSERT_TRUE(second.ok() && *second);
  EXPECT_EQ((*second)->job.id, "a");
  EXPECT_EQ((*second)->attempt, 2);
  EXPECT_FALSE(q1->Renew(**first, "w1").ok()) << "w1's lease is gone";
  EXPECT_TRUE(*q2->Complete(**second, Passed("a", 2)));
  EXPECT_FALSE(*q1->Complete(**first, Passed("a", 1))) << "the late result is dropped";
  EXPECT_EQ((*q1->GetResult("a"))->attempts, 2);
}

TEST_F(RedisQueueTest, RenewKeepsTheLease) {
  auto [q1, q2] = TwoWorkers(400ms);
  auto lease = q1->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease);
  for (int i = 0; i < 8; ++i) {  // 1.2 s, three leases' worth
    std::this_thread::sleep_for(150ms);
    ASSERT_TRUE(q1->Renew(**lease, "w1").ok());
    EXPECT_FALSE(*q2->Take("w2", 0ms)) << "renewed at " << i;
  }
  EXPECT_FALSE(q1->Renew(**lease, "w2").ok()) << "only the owner renews";
  EXPECT_EQ(*q1->State("a"), JobState::kRunning);
  RedisClient c(server_->client_options());
  EXPECT_EQ(c.Command({"HGET", "hone:job:a", "attempts"})->str, "1") << "renewals are not attempts";
}

// A worker that cannot run a job hands it back: the next Take of another
// worker gets it at once, as its next attempt, long before the lease ends.
TEST_F(RedisQueueTest, ReleaseHandsTheJobToTheNextTakeAtOnce) {
  auto [q1, q2] = TwoWorkers(60s);
  auto lease = q1->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease);
  EXPECT_FALSE(q1->Release(**lease, "w2").ok()) << "only the owner releases";
  EXPECT_FALSE(*q2->Take("w2", 0ms)) << "not released yet";
  ASSERT_TRUE(q1->Release(**lease, "w1").ok());
  auto again = q2->Take("w2", 0ms);
  ASSERT_TRUE(again.ok() && *again) << "taken again at once";
  EXPECT_EQ((*again)->job.id, "a");
  EXPECT_EQ((*again)->attempt, 2);
  EXPECT_FALSE(*q2->GetResult("a")) << "a release stores nothing";
}

TEST_F(RedisQueueTest, DeadLetterAfterMaxAttempts) {
  RedisQueueOptions o;
  o.lease = 200ms;
  o.max_attempts = 2;
  auto q = Open(o);
  ASSERT_TRUE(q->Submit(Job("killer")).ok());
  ASSERT_TRUE(q->Submit(Job("fine")).ok());
  auto first = q->Take("w1", 0ms);
  ASSERT_EQ((*first)->job.id, "killer");
  std::this_thread::sleep_for(300ms);
  auto second = q->Take("w2", 0ms);
  ASSERT_EQ((*second)->job.id, "killer");
  EXPECT_EQ((*second)->attempt, 2);
  std::this_thread::sleep_for(300ms);
  // The third take dead-letters "killer" and goes on to the next job.
  auto third = q->Take("w3", 0ms);
  ASSERT_TRUE(third.ok() && *third);
  EXPECT_EQ((*third)->job.id, "fine");
  auto r = q->GetResult("killer");
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ((*r)->status, "infra_error");
  EXPECT_TRUE((*r)->infra_error());
  EXPECT_EQ((*r)->attempts, 2);
  EXPECT_NE((*r)->error_msg.find("dead-lettered"), std::string::npos) << (*r)->error_msg;
  EXPECT_EQ(Redis({"XLEN", "hone:dead"}), 1);
  EXPECT_EQ(q->Stats()->dead, 1);
  EXPECT_EQ(*q->State("killer"), JobState::kDone);
  EXPECT_FALSE(*q->Complete(**second, Passed("killer", 2))) << "a late worker does not override";
}

TEST_F(RedisQueueTest, CancelStoresAResultAndTheWorkerSkipsTheJob) {
  auto q = Open();
  ASSERT_TRUE(q->Submit(Job("a")).ok());
  ASSERT_TRUE(q->Submit(Job("b")).ok());
  EXPECT_TRUE(*q->Cancel("a"));
  EXPECT_FALSE(*q->Cancel("a")) << "done already";
  EXPECT_EQ(q->Cancel("nope").status().code(), StatusCode::kNotFound);
  auto r = q->GetResult("a");
  EXPECT_EQ((*r)->status, "cancelled");
  EXPECT_TRUE((*r)->infra_error()) << "a cancelled job says nothing about its candidate";
  auto lease = q->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease);
  EXPECT_EQ((*lease)->job.id, "b") << "the cancelled job is skipped";
  EXPECT_EQ(q->Stats()->running, 1);
  EXPECT_EQ(q->Stats()->queued, 0);
}

TEST_F(RedisQueueTest, ServerViewSurvivesAReconnect) {
  RedisQueueOptions o;
  o.recheck = 10s;
  auto server = Open(o);
  auto worker = Open(o);
  ASSERT_TRUE(server->Submit(Job("a")).ok());
  uint64_t before = server->client().connections();
  // Every client connection dropped (a Redis failover, a proxy restart).
  EXPECT_GE(Redis({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"}), 2);
  EXPECT_EQ(*server->State("a"), JobState::kQueued);
  EXPECT_GT(server->client().connections(), before) << "reconnected";
  EXPECT_EQ(*server->Submit(Job("a")), SubmitOutcome::kAttached);
  // A wait whose subscription is cut mid-way still wakes on the result.
  auto lease = worker->Take("w1", 0ms);
  ASSERT_TRUE(lease.ok() && *lease) << lease.status().message();
  auto waiter = std::async(std::launch::async, [&] {
    auto ids = server->WaitForAny({"a"}, 5s);
    return std::make_pair(Clock::now(), ids);
  });
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(Redis({"CLIENT", "KILL", "TYPE", "pubsub"}), 1);
  std::this_thread::sleep_for(200ms);
  auto completed = Clock::now();
  ASSERT_TRUE(*worker->Complete(**lease, Passed("a")));
  auto [woke, ids] = waiter.get();
  ASSERT_TRUE(ids.ok()) << ids.status().message();
  EXPECT_EQ(ids->size(), 1u);
  std::printf("after the subscription was cut, WaitForAny woke %.2f ms after Complete\n",
              Ms(woke - completed));
  EXPECT_LT(Ms(woke - completed), 100) << "resubscribed, not the 10 s re-check";
  EXPECT_EQ((*server->GetResult("a"))->status, "passed");
}

TEST_F(RedisQueueTest, ClientOutlivesAClosedConnection) {
  RedisClient c(server_->client_options());
  ASSERT_TRUE(c.Command({"PING"}).ok());
  std::string big(8 << 20, 'x');  // larger than the socket buffers: written in pieces
  for (int i = 0; i < 3; ++i) {
    Redis({"CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"});
    // The write into the closed connection fails (no SIGPIPE ends the
    // test); the retry reconnects.
    auto r = c.Command({"SET", "big", big}, /*retry=*/true);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->str, "OK");
  }
  auto n = c.Command({"STRLEN", "big"});
  EXPECT_EQ(n->integer, static_cast<long long>(big.size()));
  auto p = c.Pipeline({{"SET", "k", "1"}, {"INCR", "k"}, {"GET", "k"}});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[2].str, "2");
  EXPECT_TRUE(c.Command({"NOSUCHCOMMAND"})->error()) << "an error reply is a value";
  EXPECT_FALSE(OkReply(c.Command({"NOSUCHCOMMAND"})).ok());
}

TEST_F(RedisQueueTest, TakeWaitsForANewJob) {
  auto server = Open();
  auto worker = Open();
  auto taker = std::async(std::launch::async, [&] { return worker->Take("w1", 3s); });
  std::this_thread::sleep_for(200ms);
  auto submitted = Clock::now();
  ASSERT_TRUE(server->Submit(Job("late")).ok());
  auto lease = taker.get();
  ASSERT_TRUE(lease.ok() && *lease);
  EXPECT_EQ((*lease)->job.id, "late");
  EXPECT_LT(Ms(Clock::now() - submitted), 500) << "woken by XREADGROUP BLOCK, not a poll";
  auto start = Clock::now();
  EXPECT_FALSE(*worker->Take("w1", 200ms));
  EXPECT_GE(Ms(Clock::now() - start), 190);
}

TEST_F(RedisQueueTest, APoolOfConnectionsForAServer) {
  QueuePool pool(RedisJobQueueFactory(server_->client_options(), {}));
  {
    auto q = pool.Borrow();
    ASSERT_TRUE(q.ok()) << q.status().message();
    EXPECT_EQ(*(*q)->Submit(Job("a")), SubmitOutcome::kCreated);
  }
  auto again = pool.Borrow();  // the same connection, given back
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*(*again)->State("a"), JobState::kQueued);
}

TEST_F(RedisQueueTest, UnreachableRedisIsUnavailable) {
  RedisClientOptions c = server_->client_options();
  server_.reset();  // stopped
  auto q = RedisJobQueue::Open(c, {});
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(q.status().message().find(std::to_string(c.address.port)), std::string::npos);
}

}  // namespace redis_queue_test
}  // namespace
}  // namespace hone
