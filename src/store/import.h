// Imports a run folder written by search/run_record.h (attempts.jsonl, the
// candidates/ sources and summary.json) into the store as a new, finished
// optimize run, so that runs from before the store are not lost.
//
// The record does not carry the task's content hash, only its name, so an
// imported run's task is keyed "imported:" + a hash of the name, with an
// empty definition. Each attempt becomes a candidate (source read from its
// candidates/ file), its LLM call an llm_calls row, and its verdict a
// finished evaluation (with the build it describes), written through the
// store's ordinary calls. A malformed line stops the import with a Status
// naming the file and line; the rows before it stay, in a run marked failed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "core/status.h"
#include "store/store.h"

namespace hone {

struct ImportResult {
  int64_t run_id = 0;
  int attempts = 0;
  int evaluations = 0;
};

// The backend a candidate file ran on, from its name, for an attempt the
// record keeps no verdict of (the entry point answers from its languages
// and backends: a .cu file's is cuda); "" for the store's default.
using BackendOfFile = std::function<std::string(const std::filesystem::path&)>;

// An attempt without a verdict and without `backend_of` keeps the store's
// default backend.
Result<ImportResult> ImportRunFolder(Store& store, const std::filesystem::path& dir,
                                     const BackendOfFile& backend_of = nullptr);

}  // namespace hone
