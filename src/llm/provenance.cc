#include "llm/provenance.h"

#include <fmt/format.h>

namespace hone {

nlohmann::json SamplingJson(const ChatRequest& r) {
  nlohmann::json j = {{"temperature", nullptr},
                      {"max_tokens", r.max_tokens},
                      {"reasoning_effort", r.reasoning_effort},
                      {"thinking_budget_tokens", r.thinking_budget_tokens}};
  if (r.temperature >= 0) j["temperature"] = r.temperature;
  return j;
}

nlohmann::json ProvenanceJson(const LlmProvenance& p) {
  return {{"provider", p.provider},
          {"model", p.model},
          {"sampling", p.sampling.is_object() ? p.sampling : nlohmann::json::object()},
          {"prompt_version", p.prompt_version}};
}

std::string ProvenanceLine(const LlmProvenance& p) {
  std::string settings;
  auto add = [&](const std::string& s) { settings += (settings.empty() ? "" : ", ") + s; };
  const nlohmann::json& s = p.sampling;
  if (s.is_object() && s.contains("temperature"))
    add(s["temperature"].is_number()
            ? fmt::format("temperature {:g}", s["temperature"].get<double>())
            : std::string("the endpoint's temperature"));
  if (s.is_object() && s.contains("max_tokens") && s["max_tokens"].is_number())
    add(fmt::format("max tokens {}", s["max_tokens"].get<int64_t>()));
  if (s.is_object() && s.value("reasoning_effort", "") != "")
    add("reasoning " + s["reasoning_effort"].get<std::string>());
  if (s.is_object() && s.value("thinking_budget_tokens", 0) > 0)
    add(fmt::format("thinking {} tokens", s["thinking_budget_tokens"].get<int64_t>()));
  if (!p.prompt_version.empty())
    settings += (settings.empty() ? "prompts " : "; prompts ") + p.prompt_version.substr(0, 8);
  return p.provider + ":" + p.model + (settings.empty() ? "" : " (" + settings + ")");
}

}  // namespace hone
