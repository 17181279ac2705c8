#include "serve/native_api.h"

#include <algorithm>

namespace hone {

namespace {

using json = nlohmann::json;

std::chrono::milliseconds WaitOf(const json& body, const ServeOptions& o) {
  double s =
      body.contains("wait_s") && body["wait_s"].is_number() ? body["wait_s"].get<double>() : 0;
  s = std::clamp(s, 0.0, static_cast<double>(o.max_wait.count()));
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

// The response for `ids` after waiting: 200 when all are done, else 202.
void Answer(ServeContext& ctx, const std::vector<std::string>& ids, std::chrono::milliseconds wait,
            httplib::Response& res) {
  auto done = AwaitResults(ctx, ids, wait);
  if (!done.ok()) return SendUnavailable(res, done.status());
  json items = json::array();
  for (const auto& id : ids) items.push_back(ItemJson(id, *done));
  SendJson(res, done->size() == ids.size() ? 200 : 202,
           {{"items", items}, {"done", done->size()}, {"total", ids.size()}});
}

std::optional<std::vector<EvalJob>> ParseItems(const json& body, const ServeOptions& o,
                                               httplib::Response& res) {
  if (!body.contains("items") || !body["items"].is_array() || body["items"].empty()) {
    SendError(res, 400, "items must be a non-empty list");
    return std::nullopt;
  }
  if (body["items"].size() > o.max_items) {
    SendError(res, 413, "at most " + std::to_string(o.max_items) + " items per request");
    return std::nullopt;
  }
  std::vector<EvalJob> jobs;
  for (size_t i = 0; i < body["items"].size(); ++i) {
    const std::string where = "items[" + std::to_string(i) + "].";
    auto job = EvalJobFromJson(body["items"][i], where);
    Status kind = job.ok() ? CheckJobKind(*job, *o.languages, where) : job.status();
    if (!kind.ok()) {
      SendError(res, 400, kind.message());
      return std::nullopt;
    }
    if (job->config.contains("reward")) {
      if (auto w = Reward::FromJson(job->config["reward"]); !w.ok()) {
        SendError(res, 400, "items[" + std::to_string(i) + "].config." + w.status().message());
        return std::nullopt;
      }
    }
    jobs.push_back(WithDefaults(std::move(*job), o));
  }
  return jobs;
}

void PostEvals(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ParseBody(req, res);
  if (!body) return;
  auto jobs = ParseItems(*body, ctx.options, res);
  if (!jobs) return;
  std::vector<SubmitOutcome> outcomes;
  if (!SubmitAll(ctx, *jobs, outcomes, res)) return;
  json conflicts = json::array();
  std::vector<std::string> ids;
  for (size_t i = 0; i < jobs->size(); ++i) {
    ids.push_back((*jobs)[i].id);
    if (outcomes[i] == SubmitOutcome::kConflict) conflicts.push_back((*jobs)[i].id);
  }
  if (!conflicts.empty())
    return SendJson(res, 409,
                    {{"error",
                      "ids already used for other content (the other items "
                      "are queued)"},
                     {"ids", conflicts}});
  Answer(ctx, ids, WaitOf(*body, ctx.options), res);
}

void PostEvalsGet(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ParseBody(req, res);
  if (!body) return;
  if (!body->contains("ids") || !(*body)["ids"].is_array())
    return SendError(res, 400, "ids must be a list of strings");
  std::vector<std::string> ids;
  for (const auto& id : (*body)["ids"]) {
    if (!id.is_string()) return SendError(res, 400, "ids must be a list of strings");
    ids.push_back(id.get<std::string>());
  }
  Answer(ctx, ids, WaitOf(*body, ctx.options), res);
}

const char* StateName(JobState s) {
  switch (s) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kUnknown:
      break;
  }
  return "unknown";
}

void GetEval(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string id = req.matches[1];
  auto q = ctx.queues.Borrow();
  if (!q.ok()) return SendUnavailable(res, q.status());
  auto job = (*q)->GetJob(id);
  auto state = (*q)->State(id);
  if (!job.ok() || !state.ok())
    return SendUnavailable(res, !job.ok() ? job.status() : state.status());
  if (!*job) return SendError(res, 404, "no job '" + id + "'");
  auto done = AwaitResults(ctx, {id}, std::chrono::milliseconds(0));
  if (!done.ok()) return SendUnavailable(res, done.status());
  SendJson(res, 200,
           {{"job", EvalJobToJson(**job)},
            {"state", StateName(*state)},
            {"result", ItemJson(id, *done)}});
}

void DeleteEval(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string id = req.matches[1];
  auto q = ctx.queues.Borrow();
  if (!q.ok()) return SendUnavailable(res, q.status());
  auto job = (*q)->GetJob(id);
  if (!job.ok()) return SendUnavailable(res, job.status());
  if (!*job) return SendError(res, 404, "no job '" + id + "'");
  auto cancelled = (*q)->Cancel(id);
  if (!cancelled.ok()) return SendUnavailable(res, cancelled.status());
  SendJson(res, 200, {{"id", id}, {"cancelled", *cancelled}});
}

}  // namespace

json ItemJson(const std::string& id, const std::map<std::string, EvalResult>& done,
              const std::string& pending_status) {
  auto it = done.find(id);
  if (it != done.end()) return EvalResultToJson(it->second);
  EvalResult pending;
  pending.id = id;
  pending.status = pending_status;
  return EvalResultToJson(pending);
}

void RegisterNativeApi(httplib::Server& server, ServeContext& ctx) {
  server.Post("/v1/evals", [&ctx](const auto& req, auto& res) { PostEvals(ctx, req, res); });
  server.Post("/v1/evals:get", [&ctx](const auto& req, auto& res) { PostEvalsGet(ctx, req, res); });
  server.Get(R"(/v1/evals/([^/]+))",
             [&ctx](const auto& req, auto& res) { GetEval(ctx, req, res); });
  server.Delete(R"(/v1/evals/([^/]+))",
                [&ctx](const auto& req, auto& res) { DeleteEval(ctx, req, res); });
  server.Get("/healthz", [&ctx](const httplib::Request&, httplib::Response& res) {
    auto q = ctx.queues.Borrow();
    auto stats = q.ok() ? (*q)->Stats() : Result<QueueStats>(q.status());
    if (!stats.ok()) return SendUnavailable(res, stats.status());
    SendJson(res, 200, {{"ok", true}, {"queued", stats->queued}, {"running", stats->running}});
  });
  server.Get("/metrics", [&ctx](const httplib::Request&, httplib::Response& res) {
    auto q = ctx.queues.Borrow();
    auto stats = q.ok() ? (*q)->Stats() : Result<QueueStats>(q.status());
    res.set_content(ctx.metrics.Prometheus(stats.ok() ? &*stats : nullptr),
                    "text/plain; version=0.0.4");
  });
}

}  // namespace hone
