// OpenRLHF's remote reward model, unchanged on the trainer's side
// (`--remote_rm_url http://HOST:PORT/get_reward`):
//   POST /get_reward {"query": [prompt + response...], "prompts": [...], "labels": [...]}
//   -> {"rewards": [...], "scores": [...], "extra_logs": {...}}
// Blocking: it answers within ServeOptions::openrlhf_wait (OpenRLHF's client
// gives up at 180 s); an item not done by then scores 0 and is marked in
// extra_logs.pending. Each label names the problem ("level1/19_ReLU"), or is
// a JSON object {"problem": ..., "config": {...}}. The candidate is the
// ModelNew file in the response (the last fenced block defining ModelNew).
// A retried request maps to the same jobs (ids are content hashes), so a
// retry never evaluates twice.
#pragma once

#include <string>

#include "serve/serve_context.h"

namespace hone {

void RegisterOpenRlhfShim(httplib::Server& server, ServeContext& ctx);

// The ModelNew source in a model's response: the last fenced block that
// defines ModelNew, else the last fenced block, else the whole text when it
// defines ModelNew; "" when there is none.
std::string ModelNewFromResponse(const std::string& response);

}  // namespace hone
