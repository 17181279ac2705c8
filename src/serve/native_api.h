// hone's own HTTP API (docs/SERVE.md):
//   POST   /v1/evals      {items: [job...], wait_s} -> 200 when every item is
//                          done within wait_s, else 202; items in request order
//   POST   /v1/evals:get  {ids: [...], wait_s}      -> the same, for known ids
//   GET    /v1/evals/{id}                            -> the job, its state, its result
//   DELETE /v1/evals/{id}                            -> cancels it unless done
//   GET    /healthz, GET /metrics (Prometheus text)
// A bad item refuses the whole request (400 naming the field) before
// anything is queued; an id reused with other content is 409.
#pragma once

#include "serve/serve_context.h"

namespace hone {

void RegisterNativeApi(httplib::Server& server, ServeContext& ctx);

// One item of a response: the result's keys when done, else the id and
// "queued" or "running" (score 0).
nlohmann::json ItemJson(const std::string& id, const std::map<std::string, EvalResult>& done,
                        const std::string& pending_status = "queued");

}  // namespace hone
