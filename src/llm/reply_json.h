// The one JSON form of an LLM reply, kept by both records of a search: the
// run folder (search/run_record.h) and the run store (search/run_journal.h).
// Pure functions; nothing is thrown.
#pragma once

#include <nlohmann/json.hpp>

#include "llm/provider.h"

namespace hone {

// Every HTTP exchange of a reply: request and response bodies, status,
// transport error, seconds. Headers are not kept, so API keys never are.
nlohmann::json ExchangesToJson(const ChatReply& r);
// The whole reply: ok, error, text, finish reason, truncation, tokens, cost,
// attempts, seconds, and its exchanges as above.
nlohmann::json ReplyToJson(const ChatReply& r);

}  // namespace hone
