// `hone serve`'s HTTP service over an in-process queue (tests/support/
// memory_job_queue.h) and a fake worker thread that answers by rule from the
// candidate's code: the native API, idempotency, limits and back-pressure,
// the token, and the OpenRLHF and KernelGYM shims with the bodies those
// projects send. The Redis queue and real workers have their own tests.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <thread>

#include "lang/builtin.h"
#include "serve/http_service.h"
#include "support/memory_job_queue.h"

namespace hone {
namespace {

using json = nlohmann::json;
using testing::MemoryJobQueue;
using testing::MemoryQueueState;

// The fake worker's rule: "pass:2.5" passes at 2.5x, "wrong" is incorrect,
// "infra" is an infra_error, "hack" is rejected, "slow" takes 300 ms.
EvalResult Answer(const JobLease& lease) {
  const std::string& code = lease.job.candidate_code;
  EvalResult r;
  r.id = lease.job.id;
  r.attempts = lease.attempt;
  r.device = "fake";
  if (code.find("infra") != std::string::npos) return InfraErrorResult(r.id, "GPU lost", 1, "fake");
  r.compiled = true;
  if (code.find("pass:") != std::string::npos) {
    r.correct = true;
    r.status = "passed";
    r.speedup = std::stod(code.substr(code.find("pass:") + 5));
  } else if (code.find("hack") != std::string::npos) {
    r.status = "rejected";
    r.error_class = "rejected";
  } else {
    r.status = "incorrect";
    r.error_class = "wrong_output";
  }
  if (code.find("slow") != std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  return r;
}

class ServeHttpTest : public ::testing::Test {
 protected:
  void Start(ServeOptions o = {}, bool worker = true) {
    o.port = 0;
    o.languages = &BuiltInLanguages();
    state_ = std::make_shared<MemoryQueueState>();
    auto state = state_;
    service_ = std::make_unique<HttpService>(o, [state]() -> Result<std::unique_ptr<JobQueue>> {
      return std::unique_ptr<JobQueue>(std::make_unique<MemoryJobQueue>(state));
    });
    ASSERT_TRUE(service_->Start().ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", service_->port());
    client_->set_read_timeout(30, 0);
    if (worker) worker_ = std::thread([this] { Work(); });
  }
  void Work() {
    MemoryJobQueue q(state_);
    while (!stop_) {
      auto lease = q.Take("fake-worker", std::chrono::milliseconds(50));
      if (lease.ok() && *lease) (void)q.Complete(**lease, Answer(**lease));
    }
  }
  void TearDown() override {
    stop_ = true;
    if (worker_.joinable()) worker_.join();
    if (service_) service_->Stop();
  }
  json Post(const std::string& path, const json& body, int* status = nullptr) {
    auto res = client_->Post(path.c_str(), body.dump(), "application/json");
    EXPECT_TRUE(res) << path;
    if (!res) return {};
    if (status) *status = res->status;
    return json::parse(res->body, nullptr, false);
  }
  static json Item(const std::string& id, const std::string& code) {
    return {{"id", id},
            {"problem", "level1/19_ReLU"},
            {"candidate", {{"code", code}, {"kind", "modelnew"}}}};
  }

  std::shared_ptr<MemoryQueueState> state_;
  std::unique_ptr<HttpService> service_;
  std::unique_ptr<httplib::Client> client_;
  std::thread worker_;
  std::atomic<bool> stop_{false};
};

TEST_F(ServeHttpTest, EvalsComeBackInRequestOrderWithTheSameKeysAndAScore) {
  Start();
  int status = 0;
  json r = Post(
      "/v1/evals",
      {{"items", {Item("a", "pass:2.5"), Item("b", "wrong"), Item("c", "infra")}}, {"wait_s", 10}},
      &status);
  ASSERT_EQ(status, 200) << r.dump();
  ASSERT_EQ(r["items"].size(), 3u);
  EXPECT_EQ(r["items"][0]["id"], "a");
  EXPECT_EQ(r["items"][1]["id"], "b");
  EXPECT_EQ(r["items"][2]["id"], "c");
  for (const auto& item : r["items"]) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : item.items()) keys.push_back(k);
    EXPECT_EQ(keys.size(), 13u) << item.dump();
  }
  EXPECT_DOUBLE_EQ(r["items"][0]["score"].get<double>(), 2.5);  // kernelbench: the speedup
  EXPECT_EQ(r["items"][1]["error_class"], "wrong_output");
  EXPECT_DOUBLE_EQ(r["items"][1]["score"].get<double>(), 0);
  EXPECT_EQ(r["items"][2]["error_class"], "infra_error");
  EXPECT_DOUBLE_EQ(r["items"][2]["score"].get<double>(), 0);
}

TEST_F(ServeHttpTest, AnIdIsAnIdempotencyKey) {
  Start();
  int status = 0;
  Post("/v1/evals", {{"items", {Item("same", "pass:1.5")}}, {"wait_s", 10}}, &status);
  EXPECT_EQ(status, 200);
  json again = Post("/v1/evals", {{"items", {Item("same", "pass:1.5")}}, {"wait_s", 10}}, &status);
  EXPECT_EQ(status, 200);
  EXPECT_EQ(again["items"][0]["attempts"], 1);  // attached to the first job, not run again
  EXPECT_EQ(state_->jobs.size(), 1u);
  json conflict = Post("/v1/evals", {{"items", {Item("same", "pass:9")}}}, &status);
  EXPECT_EQ(status, 409) << conflict.dump();
  EXPECT_EQ(conflict["ids"][0], "same");
}

TEST_F(ServeHttpTest, NotDoneInTimeIs202ThenLongPollGetsIt) {
  Start();
  int status = 0;
  json r = Post("/v1/evals", {{"items", {Item("s", "slow pass:1.1")}}, {"wait_s", 0}}, &status);
  EXPECT_EQ(status, 202) << r.dump();
  EXPECT_EQ(r["items"][0]["status"], "queued");
  auto start = std::chrono::steady_clock::now();
  json got = Post("/v1/evals:get", {{"ids", {"s"}}, {"wait_s", 10}}, &status);
  EXPECT_EQ(status, 200) << got.dump();
  EXPECT_EQ(got["items"][0]["status"], "passed");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  auto one = client_->Get("/v1/evals/s");
  ASSERT_TRUE(one);
  EXPECT_EQ(json::parse(one->body)["state"], "done");
  auto unknown_job = client_->Get("/v1/evals/nosuch");
  EXPECT_EQ(unknown_job->status, 404);
  EXPECT_FALSE(json::parse(unknown_job->body, nullptr, false).value("error", "").empty())
      << unknown_job->body;
}

// A route no one serves is a JSON error naming the routes, not an empty 404.
TEST_F(ServeHttpTest, AnUnknownRouteIsNamedWithTheRoutes) {
  Start();
  auto r = client_->Get("/v1/eval");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  json j = json::parse(r->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r->body;
  EXPECT_NE(j.value("error", "").find("no route GET /v1/eval; hone serve answers POST /v1/evals"),
            std::string::npos)
      << r->body;
  EXPECT_NE(j.value("error", "").find("DELETE /v1/evals/ID"), std::string::npos) << r->body;
}

TEST_F(ServeHttpTest, ABadItemRefusesTheRequestAndQueuesNothing) {
  Start();
  int status = 0;
  json bad = Item("x", "pass:1");
  bad["candidate"].erase("code");
  json r = Post("/v1/evals", {{"items", {Item("ok", "pass:1"), bad}}}, &status);
  EXPECT_EQ(status, 400);
  EXPECT_NE(r["error"].get<std::string>().find("items[1].candidate.code"), std::string::npos) << r;
  EXPECT_TRUE(state_->jobs.empty());
  auto res = client_->Post("/v1/evals", "{not json", "application/json");
  EXPECT_EQ(res->status, 400);
}

TEST_F(ServeHttpTest, CancelStopsAQueuedJob) {
  Start({}, /*worker=*/false);
  int status = 0;
  Post("/v1/evals", {{"items", {Item("c1", "pass:1")}}}, &status);
  EXPECT_EQ(status, 202);
  auto del = client_->Delete("/v1/evals/c1");
  ASSERT_TRUE(del);
  EXPECT_EQ(json::parse(del->body)["cancelled"], true);
  json got = Post("/v1/evals:get", {{"ids", {"c1"}}}, &status);
  EXPECT_EQ(got["items"][0]["status"], "cancelled");
}

TEST_F(ServeHttpTest, AFullQueueAnswers429WithRetryAfter) {
  ServeOptions o;
  o.max_queued = 2;
  Start(o, /*worker=*/false);
  int status = 0;
  Post("/v1/evals", {{"items", {Item("q1", "pass:1"), Item("q2", "pass:1")}}}, &status);
  EXPECT_EQ(status, 202);
  auto res = client_->Post("/v1/evals", json{{"items", {Item("q3", "pass:1")}}}.dump(),
                           "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 429);
  EXPECT_EQ(res->get_header_value("Retry-After"), "2");
}

TEST_F(ServeHttpTest, OneClientHasABoundedNumberOfRequestsInFlight) {
  ServeOptions o;
  o.max_inflight_per_client = 1;
  Start(o, /*worker=*/false);
  Post("/v1/evals", {{"items", {Item("w", "pass:1")}}}, nullptr);
  std::thread waiter([&] {
    httplib::Client c("127.0.0.1", service_->port());
    c.Post("/v1/evals:get", json{{"ids", {"w"}}, {"wait_s", 2}}.dump(), "application/json");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto res = client_->Get("/healthz");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 429);
  waiter.join();
  EXPECT_EQ(client_->Get("/healthz")->status, 200);
}

TEST_F(ServeHttpTest, OffLoopbackNeedsATokenAndTheTokenIsChecked) {
  ServeOptions open;
  open.host = "0.0.0.0";
  open.languages = &BuiltInLanguages();
  HttpService refused(open,
                      [] { return Result<std::unique_ptr<JobQueue>>(Status::Internal("unused")); });
  Status st = refused.Start();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("token"), std::string::npos);

  ServeOptions o;
  o.token = "s3cret";
  Start(o);
  EXPECT_EQ(client_->Get("/healthz")->status, 401);
  httplib::Headers auth = {{"Authorization", "Bearer s3cret"}};
  EXPECT_EQ(client_->Get("/healthz", auth)->status, 200);
}

// OpenRLHF's remote reward model: {query, prompts, labels} -> {rewards, ...}.
TEST_F(ServeHttpTest, OpenRlhfGetRewardScoresEachResponseAndDedupesRetries) {
  Start();
  std::string prompt = "Write ModelNew for ReLU.\n";
  json body = {{"query",
                {prompt + "```python\nclass ModelNew: pass  # pass:3\n```", prompt + "I cannot.",
                 prompt + "```python\nclass ModelNew: pass  # wrong\n```"}},
               {"prompts", {prompt, prompt, prompt}},
               {"labels", {"level1/19_ReLU", "level1/19_ReLU", "level1/19_ReLU"}}};
  int status = 0;
  json r = Post("/get_reward", body, &status);
  ASSERT_EQ(status, 200) << r.dump();
  ASSERT_EQ(r["rewards"].size(), 3u);
  EXPECT_DOUBLE_EQ(r["rewards"][0].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(r["rewards"][1].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["rewards"][2].get<double>(), 0.0);
  EXPECT_EQ(r["extra_logs"]["correct"], json({1, 0, 0}));
  size_t jobs = state_->jobs.size();
  Post("/get_reward", body, &status);  // a retry: the same jobs
  EXPECT_EQ(state_->jobs.size(), jobs);
}

// Dr. Kernel's reward client: POST /evaluate, poll /status, GET /results.
TEST_F(ServeHttpTest, KernelGymSubmitPollAndFetch) {
  Start();
  json task = {{"task_id", "parallel_task_000001_ab12cd34"},
               {"reference_code", "class Model: pass"},
               {"kernel_code", "class ModelNew: pass  # pass:1.7"},
               {"backend", "triton"},
               {"num_correct_trials", 5},
               {"num_perf_trials", 100},
               {"timeout", 300},
               {"priority", "normal"},
               {"entry_point", "Model"},
               {"is_valid", nullptr},
               {"verbose_errors", true},
               {"enable_profiling", true},
               {"detect_decoy_kernel", true},
               {"reference_backend", nullptr}};
  int status = 0;
  json sub = Post("/evaluate", task, &status);
  ASSERT_EQ(status, 200) << sub.dump();
  std::string state;
  for (int i = 0; i < 100 && state != "completed"; ++i) {
    auto s = client_->Get("/status/parallel_task_000001_ab12cd34");
    ASSERT_TRUE(s);
    state = json::parse(s->body)["status"];
    if (state != "completed") std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(state, "completed");
  json result = json::parse(client_->Get("/results/parallel_task_000001_ab12cd34")->body);
  EXPECT_EQ(result["correctness"], true);
  EXPECT_EQ(result["compiled"], true);
  EXPECT_DOUBLE_EQ(result["speedup"].get<double>(), 1.7);
  EXPECT_EQ(result["decoy_kernel"], false);
  // Scored like every route's results (the server's default reward,
  // kernelbench: the speedup of a correct kernel), not left as stored.
  EXPECT_DOUBLE_EQ(result["metadata"]["score"].get<double>(), 1.7);

  task["task_id"] = "t-infra";
  task["kernel_code"] = "class ModelNew: pass  # infra";
  Post("/evaluate", task, &status);
  for (int i = 0; i < 100 && state != "failed"; ++i) {
    state = json::parse(client_->Get("/status/t-infra")->body)["status"];
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(state, "failed");  // an infra fault: never "completed" with a wrong kernel
}

TEST_F(ServeHttpTest, MetricsCountRequestsAndJobs) {
  Start();
  Post("/v1/evals", {{"items", {Item("m", "pass:1")}}, {"wait_s", 10}}, nullptr);
  // A request is counted by the server's logger, which runs once its
  // response is written: the client may read that response first.
  const std::string counted = "hone_http_requests_total{route=\"/v1/evals\",code=\"200\"} 1";
  auto res = client_->Get("/metrics");
  for (int i = 0; i < 100 && res && res->body.find(counted) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    res = client_->Get("/metrics");
  }
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find(counted), std::string::npos) << res->body;
  EXPECT_NE(res->body.find("hone_jobs_submitted_total{outcome=\"created\"} 1"), std::string::npos);
  EXPECT_NE(res->body.find("hone_queue_jobs{state=\"done\"} 1"), std::string::npos);
  // Paths no route serves share one label: random URLs make no new series.
  for (const char* path : {"/nope/1", "/nope/2", "/v1/evals/a/b"}) client_->Get(path);
  const std::string other = "hone_http_requests_total{route=\"other\",code=\"404\"} 3";
  for (int i = 0; i < 100 && res && res->body.find(other) == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    res = client_->Get("/metrics");
  }
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find(other), std::string::npos) << res->body;
  EXPECT_EQ(res->body.find("/nope"), std::string::npos) << res->body;
}

}  // namespace
}  // namespace hone
