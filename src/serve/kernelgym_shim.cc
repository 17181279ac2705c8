#include "serve/kernelgym_shim.h"

namespace hone {

namespace {

using json = nlohmann::json;

std::string Str(const json& body, const char* key) {
  return body.contains(key) && body[key].is_string() ? body[key].get<std::string>() : "";
}

void Evaluate(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ParseBody(req, res);
  if (!body) return;
  std::string entry = Str(*body, "entry_point");
  if (!entry.empty() && entry != "Model")
    return SendError(res, 400, "entry_point '" + entry + "': hone evaluates Model/ModelNew pairs");
  // KernelGYM's `backend` names the kernel's language (Dr. Kernel sends
  // "triton"); the kernel is a ModelNew file either way, whose text decides.
  const Language* named = ctx.options.languages->Find(Str(*body, "backend"));
  std::string kind = named && named->run.modelnew() ? named->name : "modelnew";
  json item = {{"id", Str(*body, "task_id")},
               {"problem", {{"code", Str(*body, "reference_code")}}},
               {"candidate", {{"code", Str(*body, "kernel_code")}, {"kind", kind}}}};
  if (body->contains("timeout") && (*body)["timeout"].is_number())
    item["config"] = {{"timeout_s", (*body)["timeout"]}};
  auto job = EvalJobFromJson(item);
  if (!job.ok()) return SendError(res, 400, job.status().message());
  std::vector<SubmitOutcome> outcomes;
  if (!SubmitAll(ctx, {WithDefaults(std::move(*job), ctx.options)}, outcomes, res)) return;
  if (outcomes[0] == SubmitOutcome::kConflict)
    return SendError(res, 409, "task_id '" + Str(*body, "task_id") + "' was used for other code");
  SendJson(res, 200, {{"task_id", Str(*body, "task_id")}, {"status", "submitted"}});
}

// The state in KernelGYM's words, and the result when there is one.
Result<std::pair<std::string, std::optional<EvalResult>>> Lookup(ServeContext& ctx,
                                                                 const std::string& id) {
  HONE_ASSIGN_OR_RETURN(QueuePool::Handle q, ctx.queues.Borrow());
  HONE_ASSIGN_OR_RETURN(std::optional<EvalResult> r, ScoredResult(ctx, *q, id));
  if (r) {
    std::string s = r->status == "cancelled" ? "cancelled"
                    : r->infra_error()       ? "failed"
                                             : "completed";
    return std::make_pair(s, r);
  }
  HONE_ASSIGN_OR_RETURN(JobState state, q->State(id));
  if (state == JobState::kUnknown) return std::make_pair(std::string("unknown"), r);
  return std::make_pair(std::string(state == JobState::kRunning ? "processing" : "pending"), r);
}

void TaskStatus(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string id = req.matches[1];
  auto found = Lookup(ctx, id);
  if (!found.ok()) return SendUnavailable(res, found.status());
  if (found->first == "unknown") return SendError(res, 404, "no task '" + id + "'");
  json out = {{"task_id", id}, {"status", found->first}};
  if (found->second && found->first != "completed") out["error_message"] = found->second->error_msg;
  SendJson(res, 200, out);
}

void Results(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string id = req.matches[1];
  auto found = Lookup(ctx, id);
  if (!found.ok()) return SendUnavailable(res, found.status());
  if (!found->second) return SendError(res, 404, "task '" + id + "' has no result yet");
  const EvalResult& r = *found->second;
  SendJson(res, 200,
           {{"task_id", id},
            {"status", found->first},
            {"compiled", r.compiled},
            {"correctness", r.correct},
            {"speedup", r.speedup},
            {"decoy_kernel", r.error_class == "rejected"},
            {"error_message", r.error_msg},
            {"metadata", EvalResultToJson(r)}});
}

}  // namespace

void RegisterKernelGymShim(httplib::Server& server, ServeContext& ctx) {
  server.Post("/evaluate", [&ctx](const auto& req, auto& res) { Evaluate(ctx, req, res); });
  server.Get(R"(/status/([^/]+))",
             [&ctx](const auto& req, auto& res) { TaskStatus(ctx, req, res); });
  server.Get(R"(/results/([^/]+))", [&ctx](const auto& req, auto& res) { Results(ctx, req, res); });
}

}  // namespace hone
