// hone serve: the HTTP front of the evaluation service (serve/http_service.h).
// It validates requests and queues them on Redis for `hone worker`s to
// evaluate; it never evaluates in its own process. It checks that the queue
// can be reached, binds, says where it listens, and serves until SIGTERM or
// SIGINT. docs/SERVE.md, "Running it".

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/eval_flags.h"
#include "cli/number_flags.h"
#include "cli/redis_wait.h"
#include "cli/stop_signals.h"
#include "core/json_text.h"
#include "lang/builtin.h"
#include "serve/http_listener.h"
#include "serve/http_service.h"
#include "serve/redis_credentials.h"
#include "serve/redis_job_queue.h"

namespace hone::cli {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct ServeArgs {
  ServeOptions defaults;  // the server's own defaults, shown in --help
  std::string host = defaults.host;
  int port = defaults.port;
  std::string token;  // else HONE_SERVE_TOKEN
  std::string redis = "127.0.0.1:6379";
  std::string redis_auth;  // a file with the ACL credentials (serve/redis_credentials.h)
  std::string prefix = "hone:";
  std::string reward;   // a preset name or a JSON object; empty: kernelbench
  std::string backend;  // config.backend of jobs naming none
  long long max_queued = defaults.max_queued;
  int max_inflight = defaults.max_inflight_per_client;
  double max_body_mb = static_cast<double>(defaults.max_body_bytes >> 20);
  int threads = defaults.threads;
  double connect_timeout = 60;
  Output out;
};

// Checks the flags; a --connect-timeout past a week is a week.
Status CheckArgs(ServeArgs& a) {
  if (!IsLoopback(a.host) && a.token.empty())
    return Status::Invalid("--host " + a.host +
                           " is not loopback: give a bearer token (--token or HONE_SERVE_TOKEN)");
  if (a.port < 0 || a.port > 65535) return Status::Invalid("--port: expected 0 to 65535");
  if (!a.backend.empty()) HONE_RETURN_IF_ERROR(CheckBackendName(a.backend, "--backend"));
  if (a.max_queued < 1) return Status::Invalid("--max-queued: must be at least 1");
  if (a.max_inflight < 1) return Status::Invalid("--max-inflight-per-client: must be at least 1");
  if (!(a.max_body_mb > 0) || a.max_body_mb > 4096)
    return Status::Invalid("--max-body-mb: expected more than 0 and at most 4096");
  if (a.threads < 1 || a.threads > 4096) return Status::Invalid("--threads: expected 1 to 4096");
  HONE_ASSIGN_OR_RETURN(a.connect_timeout,
                        CheckedSeconds("--connect-timeout", a.connect_timeout, true));
  if (a.prefix.empty()) return Status::Invalid("--key-prefix: must not be empty");
  return Status::Ok();
}

// --reward: a preset name, or a JSON object {"preset": NAME, ...}.
Result<Reward> ParseReward(const std::string& text) {
  if (text.empty()) return Reward{};
  json j = text.front() == '{' ? json::parse(text, nullptr, false) : json(text);
  if (j.is_discarded()) return Status::Invalid("--reward: not a preset name nor a JSON object");
  auto r = Reward::FromJson(j);
  if (!r.ok()) return r.status().With("--reward: ");
  return r;
}

Result<ServeOptions> ToServeOptions(const ServeArgs& a) {
  ServeOptions o = a.defaults;
  o.host = a.host;
  o.port = a.port;
  o.token = a.token;
  o.max_queued = a.max_queued;
  o.max_inflight_per_client = a.max_inflight;
  o.max_body_bytes = static_cast<size_t>(a.max_body_mb * (1 << 20));
  o.threads = a.threads;
  o.default_backend = a.backend;
  o.languages = &BuiltInLanguages();
  HONE_ASSIGN_OR_RETURN(o.reward, ParseReward(a.reward));
  return o;
}

// Redis may come up after the server (a cluster's start): wait for it
// (cli/redis_wait.h), checking with one connection of the queue. False when
// a stop signal came first.
Result<bool> WaitForQueue(const JobQueueFactory& factory, const ServeArgs& a) {
  bool stopped = false;
  HONE_RETURN_IF_ERROR(WaitForRedis(
      {"hone serve", a.redis, a.connect_timeout, a.out.quiet || a.out.json},
      [&] { return factory().status(); }, StopSignalWithin, &stopped));
  return !stopped;
}

void SayListening(const ServeArgs& a, int port) {
  if (a.out.json) {
    std::cout << JsonText(json({{"event", "listening"},
                                {"host", a.host},
                                {"port", port},
                                {"redis", a.redis},
                                {"key_prefix", a.prefix}}))
              << std::endl;
  } else if (!a.out.quiet) {
    std::fprintf(stderr, "hone serve: listening on %s (queue redis %s, keys %s*)\n",
                 HttpUrl(a.host, port).c_str(), a.redis.c_str(), a.prefix.c_str());
  }
}

void SayStopped(const ServeArgs& a) {
  if (a.out.json)
    std::cout << JsonText(json({{"event", "stopped"}})) << std::endl;
  else if (!a.out.quiet)
    std::fprintf(stderr, "hone serve: stopped\n");
}

int RunServe(ServeArgs& a) {
  if (a.token.empty())
    if (const char* t = std::getenv("HONE_SERVE_TOKEN")) a.token = t;
  if (Status st = CheckArgs(a); !st.ok()) return ReportError(st);
  auto redis = RedisOptionsFromFlags(a.redis, a.redis_auth);
  if (!redis.ok()) return ReportError(redis.status());
  auto options = ToServeOptions(a);
  if (!options.ok()) return ReportError(options.status());
  RedisQueueOptions queue;
  queue.prefix = a.prefix;
  if (Status st = CheckRedisQueueOptions(queue); !st.ok()) return ReportError(st);
  JobQueueFactory factory = RedisJobQueueFactory(*redis, queue);
  BlockStopSignals();
  auto reachable = WaitForQueue(factory, a);
  if (!reachable.ok()) return ReportError(reachable.status());
  if (!*reachable) return kExitOk;
  HttpService service(std::move(*options), std::move(factory));
  if (Status st = service.Start(); !st.ok()) return ReportError(st);
  SayListening(a, service.port());
  while (!StopSignalWithin(std::chrono::hours(1))) {
  }
  service.Stop();
  SayStopped(a);
  return kExitOk;
}

}  // namespace

Command RegisterServe(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* sub = app.add_subcommand(
      "serve", "Serve evaluations over HTTP: validate requests and queue them for hone worker");
  sub->add_option("--host", a->host, "Address to bind (off loopback a --token is required)")
      ->capture_default_str();
  sub->add_option("--port", a->port, "Port to listen on (0: any free port)")->capture_default_str();
  sub->add_option("--token", a->token,
                  "Bearer token clients must send (default: $HONE_SERVE_TOKEN)");
  sub->add_option("--redis", a->redis, "The queue's Redis, HOST:PORT")->capture_default_str();
  sub->add_option("--redis-auth", a->redis_auth,
                  "A file (chmod 600) with the Redis ACL credentials: 'USER PASSWORD' or "
                  "'PASSWORD'; else HONE_REDIS_USER and HONE_REDIS_PASSWORD");
  sub->add_option("--key-prefix", a->prefix, "Prefix of every Redis key of the queue")
      ->capture_default_str();
  sub->add_option("--reward", a->reward,
                  "Reward of jobs naming none: a preset (kernelbench, fast_p, bands, weighted, "
                  "binary) or a JSON object {\"preset\": NAME, ...}");
  sub->add_option("--backend", a->backend, "Backend of jobs naming none: cpu or cuda");
  sub->add_option("--max-queued", a->max_queued, "Jobs waiting in the queue before 429")
      ->capture_default_str();
  sub->add_option("--max-inflight-per-client", a->max_inflight,
                  "Requests at once from one client address before 429")
      ->capture_default_str();
  sub->add_option("--max-body-mb", a->max_body_mb, "Largest request body, in MiB (else 413)")
      ->capture_default_str();
  sub->add_option("--threads", a->threads, "Request handler threads")->capture_default_str();
  sub->add_option("--connect-timeout", a->connect_timeout, "Seconds to wait for Redis at start-up")
      ->capture_default_str();
  AddOutputFlags(sub, a->out);
  return [a] { return RunServe(*a); };
}

}  // namespace hone::cli
