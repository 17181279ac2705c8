// Which model, with which settings and prompts, produced a reply: stored
// with every LLM call (store/records.h LlmCallRow), in the run's summary,
// and named in the terminal summary and the report, so a result can be
// traced to what made it. Plain data; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "llm/provider.h"

namespace hone {

struct LlmProvenance {
  std::string provider;        // "openai", "anthropic", "vllm", ...
  std::string model;           // as passed to the API
  nlohmann::json sampling;     // SamplingJson of the request settings
  std::string prompt_version;  // PromptBuilder::version()
};

// {temperature, max_tokens, reasoning_effort, thinking_budget_tokens}; a
// negative temperature (the endpoint's default) is null.
nlohmann::json SamplingJson(const ChatRequest& r);
nlohmann::json ProvenanceJson(const LlmProvenance& p);
// "openai:gpt-4.1 (temperature 0.7, max tokens 8192; prompts 3f2a9c1b)";
// settings `sampling` does not hold (a call stored before they were kept)
// are left out.
std::string ProvenanceLine(const LlmProvenance& p);

}  // namespace hone
