#include "compat/baseline_cache.h"

#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "core/hash.h"
#include "core/json_text.h"

namespace hone {
namespace {

using json = nlohmann::json;

// Raised when what a baseline is, or how it is timed, changes: older entries
// are then not reused. 3: timed in a compat sandbox like candidates. 4: with
// the host time per launch.
constexpr int kBaselineProtocol = 4;

json TimingToJson(const BaselineTiming& t) {
  json samples = json::array();
  for (double s : t.samples) samples.push_back(s);
  return {{"available", t.available},
          {"reason", t.reason},
          {"samples", samples},
          {"median", t.median},
          {"warmup_calls", t.warmup_calls},
          {"timer", t.timer},
          {"host_seconds_per_launch", t.host_seconds_per_launch},
          {"launches_per_call", t.launches_per_call},
          {"held", t.held}};
}

BaselineTiming TimingFromJson(const json& j) {
  BaselineTiming t;
  t.available = j.value("available", false);
  t.reason = j.value("reason", "");
  t.median = j.value("median", 0.0);
  t.warmup_calls = j.value("warmup_calls", 0);
  t.timer = j.value("timer", "");
  t.host_seconds_per_launch = j.value("host_seconds_per_launch", 0.0);
  t.launches_per_call = j.value("launches_per_call", 0.0);
  t.held = j.value("held", true);
  for (const auto& s : j.value("samples", json::array()))
    if (s.is_number()) t.samples.push_back(s.get<double>());
  return t;
}

}  // namespace

std::string BaselineKey::Hash() const {
  return ContentHash({task_hash, device, torch_version, flush, std::to_string(kBaselineProtocol)});
}

std::filesystem::path BaselineCache::PathFor(const BaselineKey& key) const {
  return dir_ / (key.Hash() + ".json");
}

std::optional<Baselines> BaselineCache::Lookup(const BaselineKey& key) const {
  auto text = ReadFile(PathFor(key));
  if (!text.ok()) return std::nullopt;
  json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("eager") || !j.contains("compile")) return std::nullopt;
  Baselines b;
  b.eager = TimingFromJson(j["eager"]);
  b.compiled = TimingFromJson(j["compile"]);
  b.cached = true;
  b.device = key.device;
  b.torch_version = key.torch_version;
  if (b.eager.available && (b.eager.samples.empty() || b.eager.median <= 0)) return std::nullopt;
  return b;
}

Status BaselineCache::Store(const BaselineKey& key, const Baselines& b) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Status::Io(dir_.string() + ": " + ec.message());
  json j = {{"task_hash", key.task_hash},         {"device", key.device},
            {"torch", key.torch_version},         {"flush", key.flush},
            {"protocol", kBaselineProtocol},      {"eager", TimingToJson(b.eager)},
            {"compile", TimingToJson(b.compiled)}};
  return WriteFileAtomic(PathFor(key), JsonText(j));
}

}  // namespace hone
