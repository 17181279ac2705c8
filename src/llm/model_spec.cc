// ParseModelSpec: the table of known providers (declared in llm/provider.h).
#include <cstdlib>

#include "llm/provider.h"

namespace hone {
namespace {

struct ProviderInfo {
  const char* name;
  const char* api;
  const char* base_url;  // "" : a base URL must be given
  const char* key_env;   // "" : none read
  bool key_required;
};

constexpr ProviderInfo kProviders[] = {
    {"openai", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", true},
    {"anthropic", "anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", true},
    {"openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", true},
    {"deepseek", "openai", "https://api.deepseek.com", "DEEPSEEK_API_KEY", true},
    {"together", "openai", "https://api.together.xyz/v1", "TOGETHER_API_KEY", true},
    {"vllm", "openai", "http://localhost:8000/v1", "VLLM_API_KEY", false},
    {"sglang", "openai", "http://localhost:30000/v1", "SGLANG_API_KEY", false},
    {"ollama", "openai", "http://localhost:11434/v1", "", false},
    {"llamacpp", "openai", "http://localhost:8080/v1", "LLAMACPP_API_KEY", false},
    // Its own variable: an OpenAI key must not go to whatever server this points at.
    {"openai-compatible", "openai", "", "HONE_LLM_API_KEY", false},
};

std::string KnownProviders() {
  std::string list;
  for (const auto& p : kProviders) list += (list.empty() ? "" : ", ") + std::string(p.name);
  return list;
}

const ProviderInfo* FindProvider(const std::string& name) {
  for (const auto& p : kProviders) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string StripTrailingSlashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The override, else the provider's environment variable, else its default.
std::string ChooseBaseUrl(const ProviderInfo& p, const std::string& override_url) {
  if (!override_url.empty()) return StripTrailingSlashes(override_url);
  std::string name = p.name;
  if (name == "openai" && !Env("OPENAI_BASE_URL").empty()) {
    return StripTrailingSlashes(Env("OPENAI_BASE_URL"));
  }
  if (name == "anthropic" && !Env("ANTHROPIC_BASE_URL").empty()) {
    std::string url = StripTrailingSlashes(Env("ANTHROPIC_BASE_URL"));
    bool has_version = url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0;
    return has_version ? url : url + "/v1";
  }
  return p.base_url;
}

bool IsHttpUrl(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

}  // namespace

Result<ModelSpec> ParseModelSpec(const std::string& text, const std::string& base_url) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    return Status::Invalid("model '" + text +
                           "' names no provider: write PROVIDER:MODEL, e.g. openai:gpt-4.1 "
                           "(providers: " +
                           KnownProviders() + ")");
  }
  std::string provider = text.substr(0, colon), model = text.substr(colon + 1);
  const ProviderInfo* info = FindProvider(provider);
  if (!info) {
    return Status::Invalid("model '" + text + "': unknown provider '" + provider +
                           "' (providers: " + KnownProviders() + ")");
  }
  if (model.empty()) return Status::Invalid("model '" + text + "': the model name is empty");
  ModelSpec spec{provider,          model, info->api, ChooseBaseUrl(*info, base_url), info->key_env,
                 info->key_required};
  if (spec.base_url.empty()) {
    return Status::Invalid("model '" + text + "': provider '" + provider +
                           "' needs a base URL (e.g. http://localhost:8000/v1)");
  }
  if (!IsHttpUrl(spec.base_url)) {
    return Status::Invalid("model '" + text + "': base URL '" + spec.base_url +
                           "' is not an http:// or https:// URL");
  }
  return spec;
}

}  // namespace hone
