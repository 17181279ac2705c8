// The JSON forms of an attempt's parts that both records of a search keep:
// the run folder (search/run_record.h) and the run store
// (search/run_journal.h). One form, so the two agree and a prompt hashes
// the same wherever it is read from.
#pragma once

#include <nlohmann/json.hpp>

#include "search/strategy.h"

namespace hone {

// {"system": "...", "messages": [{"role": "...", "text": "..."}]}
nlohmann::json PromptToJson(const Proposal& p);
// Every HTTP exchange of a reply: request and response bodies, status,
// transport error, seconds. Headers are not kept, so API keys never are.
nlohmann::json ExchangesToJson(const ChatReply& r);

}  // namespace hone
