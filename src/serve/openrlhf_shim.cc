#include "serve/openrlhf_shim.h"

#include "core/hash.h"
#include "core/json_text.h"
#include "serve/native_api.h"

namespace hone {

namespace {

using json = nlohmann::json;

std::vector<std::string> FencedBlocks(const std::string& text) {
  std::vector<std::string> blocks;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("```", pos);
    if (open == std::string::npos) break;
    size_t body = text.find('\n', open);
    if (body == std::string::npos) break;
    size_t close = text.find("```", body);
    if (close == std::string::npos) break;
    blocks.push_back(text.substr(body + 1, close - body - 1));
    pos = close + 3;
  }
  return blocks;
}

bool DefinesModelNew(const std::string& code) {
  return code.find("class ModelNew") != std::string::npos ||
         code.find("ModelNew =") != std::string::npos;
}

// The job for item i: the label names the problem (or carries it with a config).
Result<EvalJob> JobFor(const std::string& query, const std::string& prompt,
                       const std::string& label) {
  std::string response = query.rfind(prompt, 0) == 0 ? query.substr(prompt.size()) : query;
  json item = {{"candidate", {{"code", ModelNewFromResponse(response)}, {"kind", "modelnew"}}}};
  json parsed = json::parse(label, nullptr, false);
  if (parsed.is_object() && parsed.contains("problem")) {
    item["problem"] = parsed["problem"];
    if (parsed.contains("config")) item["config"] = parsed["config"];
  } else {
    item["problem"] = label;
  }
  item["id"] = "openrlhf-" + ContentHash({JsonText(item)}).substr(0, 24);
  return EvalJobFromJson(item, "labels: ");
}

std::vector<std::string> Strings(const json& body, const char* key) {
  std::vector<std::string> out;
  if (!body.contains(key) || !body[key].is_array()) return out;
  for (const auto& v : body[key]) out.push_back(v.is_string() ? v.get<std::string>() : JsonText(v));
  return out;
}

void GetReward(ServeContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto body = ParseBody(req, res);
  if (!body) return;
  std::vector<std::string> queries = Strings(*body, "query"), prompts = Strings(*body, "prompts"),
                           labels = Strings(*body, "labels");
  if (queries.empty() || labels.size() != queries.size())
    return SendError(res, 400, "query and labels must be lists of the same, non-zero length");
  prompts.resize(queries.size());
  std::vector<EvalJob> jobs;
  for (size_t i = 0; i < queries.size(); ++i) {
    auto job = JobFor(queries[i], prompts[i], labels[i]);
    if (!job.ok())
      return SendError(res, 400, "item " + std::to_string(i) + ": " + job.status().message());
    jobs.push_back(WithDefaults(std::move(*job), ctx.options));
  }
  std::vector<SubmitOutcome> outcomes;
  if (!SubmitAll(ctx, jobs, outcomes, res)) return;
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(j.id);
  auto done = AwaitResults(ctx, ids, ctx.options.openrlhf_wait);
  if (!done.ok()) return SendUnavailable(res, done.status());
  json rewards = json::array(), logs = {{"correct", json::array()},
                                        {"speedup", json::array()},
                                        {"error_class", json::array()},
                                        {"pending", json::array()}};
  for (const auto& id : ids) {
    json r = ItemJson(id, *done, "pending");
    rewards.push_back(r["score"]);
    logs["correct"].push_back(r["correct"].get<bool>() ? 1 : 0);
    logs["speedup"].push_back(r["speedup"]);
    logs["error_class"].push_back(r["error_class"]);
    logs["pending"].push_back(done->count(id) ? 0 : 1);
  }
  SendJson(res, 200, {{"rewards", rewards}, {"scores", rewards}, {"extra_logs", logs}});
}

}  // namespace

std::string ModelNewFromResponse(const std::string& response) {
  std::vector<std::string> blocks = FencedBlocks(response);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (DefinesModelNew(*it)) return *it;
  if (!blocks.empty()) return blocks.back();
  return DefinesModelNew(response) ? response : "";
}

void RegisterOpenRlhfShim(httplib::Server& server, ServeContext& ctx) {
  server.Post("/get_reward", [&ctx](const auto& req, auto& res) { GetReward(ctx, req, res); });
}

}  // namespace hone
