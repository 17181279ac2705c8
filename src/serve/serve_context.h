// What every route of `hone serve` shares: its options, the queue pool, the
// metrics, and the helpers that turn queue answers into HTTP answers. The
// routes (native_api, openrlhf_shim, kernelgym_shim) are free functions that
// register handlers on the server with this context. Thread-safe as its parts.
#pragma once

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lang/language.h"
#include "serve/queue_pool.h"
#include "serve/reward.h"
#include "serve/serve_metrics.h"

namespace hone {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8470;    // 0: any free port
  std::string token;  // bearer token; required off loopback
  size_t max_body_bytes = 64u << 20;
  size_t max_items = 4096;                  // per request
  int max_inflight_per_client = 256;        // requests at once from one address
  int threads = 64;                         // handler threads
  long long max_queued = 100000;            // back-pressure: 429 above it
  std::chrono::seconds max_wait{600};       // longest wait_s
  std::chrono::seconds openrlhf_wait{170};  // OpenRLHF's client gives up at 180 s
  std::string default_backend;              // config.backend when a job names none
  Reward reward;                            // config.reward when a job names none
  // The kernel languages a job's candidate.kind may name: the entry
  // point's registry (BuiltInLanguages(), or a test's). Borrowed; required.
  const LanguageRegistry* languages = nullptr;
};

struct ServeContext {
  const ServeOptions& options;
  QueuePool& queues;
  ServeMetrics& metrics;
};

void SendJson(httplib::Response& res, int status, const nlohmann::json& body);
// {"error": message}; 429 and 503 carry Retry-After.
void SendError(httplib::Response& res, int status, const std::string& message);
// A queue failure: 503 with Retry-After (the client retries; nothing is lost).
void SendUnavailable(httplib::Response& res, const Status& st);

// The JSON body, or nullopt after answering 400 (naming the problem).
std::optional<nlohmann::json> ParseBody(const httplib::Request& req, httplib::Response& res);

// `job` with the server's defaults filled in (backend).
EvalJob WithDefaults(EvalJob job, const ServeOptions& options);

// Submits every job (already validated). Fills `outcomes`; Status on a
// queue failure. Refuses with 429 first when the queue is over max_queued
// (returns false after answering).
bool SubmitAll(ServeContext& ctx, const std::vector<EvalJob>& jobs,
               std::vector<SubmitOutcome>& outcomes, httplib::Response& res);

// The stored result of job `id`, if any, scored with the job's reward (or
// the server's): results are stored unscored, so every route scores them.
Result<std::optional<EvalResult>> ScoredResult(const ServeContext& ctx, JobQueue& q,
                                               const std::string& id);

// Waits until every id has a result or `wait` passes; returns the results
// found (by id), scored with each job's reward (or the server's).
Result<std::map<std::string, EvalResult>> AwaitResults(ServeContext& ctx,
                                                       const std::vector<std::string>& ids,
                                                       std::chrono::milliseconds wait);

}  // namespace hone
