#include "cli/store_flags.h"

#include <cstdlib>

namespace hone::cli {

std::string DefaultStorePath() {
  const char* env = std::getenv("HONE_STORE");
  return env && *env ? env : "hone-runs/hone.db";
}

void AddStoreFlag(CLI::App* app, std::string& path) {
  path = DefaultStorePath();
  app->add_option("--store", path,
                  "The run store (SQLite; default $HONE_STORE or hone-runs/hone.db)")
      ->capture_default_str();
}

Result<std::unique_ptr<Store>> OpenStore(const std::string& path) { return Store::Open(path); }

Result<int64_t> ResolveRun(Store& store, const std::string& text) {
  if (text == "last" || text == "latest") {
    HONE_ASSIGN_OR_RETURN(auto runs, store.ListRuns());
    if (runs.empty())
      return Status::Invalid(store.path().string() + ": no runs yet, so no '" + text + "' run");
    return runs.front().id;
  }
  char* end = nullptr;
  long long id = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || id <= 0)
    return Status::Invalid("run: expected a run id (a positive number) or 'last', got '" + text +
                           "'");
  auto run = store.GetRun(id);
  if (!run.ok() && run.status().code() == StatusCode::kNotFound)
    return Status::Invalid(run.status().message());
  if (!run.ok()) return run.status();
  return run->id;
}

}  // namespace hone::cli
