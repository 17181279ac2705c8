// The JSON form of an attempt's prompt that both records of a search keep:
// the run folder (search/run_record.h) and the run store
// (search/run_journal.h). One form, so the two agree and a prompt hashes
// the same wherever it is read from. The reply's is llm/reply_json.h.
#pragma once

#include <nlohmann/json.hpp>

#include "search/strategy.h"

namespace hone {

// {"system": "...", "messages": [{"role": "...", "text": "..."}]}
nlohmann::json PromptToJson(const Proposal& p);

}  // namespace hone
