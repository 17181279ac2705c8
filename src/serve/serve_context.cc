#include "serve/serve_context.h"

#include <set>

#include "core/json_text.h"

namespace hone {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

Reward RewardFor(const ServeContext& ctx, JobQueue& q, const std::string& id) {
  auto job = q.GetJob(id);
  if (job.ok() && *job && (*job)->config.contains("reward")) {
    auto r = Reward::FromJson((*job)->config["reward"]);
    if (r.ok()) return *r;
  }
  return ctx.options.reward;
}

}  // namespace

Result<std::optional<EvalResult>> ScoredResult(const ServeContext& ctx, JobQueue& q,
                                               const std::string& id) {
  HONE_ASSIGN_OR_RETURN(std::optional<EvalResult> r, q.GetResult(id));
  if (r) r->score = RewardFor(ctx, q, id).Score(*r);
  return r;
}

void SendJson(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(JsonText(body), "application/json");
}

void SendError(httplib::Response& res, int status, const std::string& message) {
  if (status == 429 || status == 503) res.set_header("Retry-After", status == 429 ? "2" : "5");
  SendJson(res, status, {{"error", message}});
}

void SendUnavailable(httplib::Response& res, const Status& st) {
  SendError(res, 503, "the job queue is unavailable: " + st.message());
}

std::optional<json> ParseBody(const httplib::Request& req, httplib::Response& res) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) {
    SendError(res, 400, "the body is not JSON");
    return std::nullopt;
  }
  if (!body.is_object()) {
    SendError(res, 400, "the body must be a JSON object");
    return std::nullopt;
  }
  return body;
}

EvalJob WithDefaults(EvalJob job, const ServeOptions& options) {
  if (!job.config.contains("backend") && !options.default_backend.empty())
    job.config["backend"] = options.default_backend;
  return job;
}

bool SubmitAll(ServeContext& ctx, const std::vector<EvalJob>& jobs,
               std::vector<SubmitOutcome>& outcomes, httplib::Response& res) {
  auto q = ctx.queues.Borrow();
  if (!q.ok()) {
    SendUnavailable(res, q.status());
    return false;
  }
  auto stats = (*q)->Stats();
  if (!stats.ok()) {
    q->Discard();
    SendUnavailable(res, stats.status());
    return false;
  }
  if (stats->queued + static_cast<long long>(jobs.size()) > ctx.options.max_queued) {
    SendError(res, 429,
              "the queue holds " + std::to_string(stats->queued) + " jobs; it takes at most " +
                  std::to_string(ctx.options.max_queued));
    return false;
  }
  outcomes.clear();
  for (const auto& job : jobs) {
    auto o = (*q)->Submit(job);
    if (!o.ok()) {
      q->Discard();
      SendUnavailable(res, o.status());
      return false;
    }
    ctx.metrics.Submitted(*o);
    outcomes.push_back(*o);
  }
  return true;
}

Result<std::map<std::string, EvalResult>> AwaitResults(ServeContext& ctx,
                                                       const std::vector<std::string>& ids,
                                                       std::chrono::milliseconds wait) {
  HONE_ASSIGN_OR_RETURN(QueuePool::Handle q, ctx.queues.Borrow());
  std::map<std::string, EvalResult> found;
  std::set<std::string> pending(ids.begin(), ids.end());
  auto deadline = Clock::now() + wait;
  while (true) {
    for (auto it = pending.begin(); it != pending.end();) {
      HONE_ASSIGN_OR_RETURN(std::optional<EvalResult> r, ScoredResult(ctx, *q, *it));
      if (!r) {
        ++it;
        continue;
      }
      ctx.metrics.Served(*r);
      found[*it] = std::move(*r);
      it = pending.erase(it);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (pending.empty() || left.count() <= 0) return found;
    HONE_RETURN_IF_ERROR(
        q->WaitForAny(std::vector<std::string>(pending.begin(), pending.end()), left).status());
  }
}

}  // namespace hone
