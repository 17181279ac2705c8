// The run store as the subcommands see it: the --store flag (default
// $HONE_STORE, else hone-runs/hone.db under the working directory), opening
// it, and naming a run on the command line ("12", or "last" for the newest).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "store/store.h"

namespace hone::cli {

std::string DefaultStorePath();
void AddStoreFlag(CLI::App* app, std::string& path);
// Errors name the file (docs/STORE.md lists them).
Result<std::unique_ptr<Store>> OpenStore(const std::string& path);
// "12" or "last"/"latest". A malformed id, an unknown run and "last" in a
// store with no runs are all kInvalidInput (bad input: exit 2), the last two
// naming the store; a store that cannot be read is its own error.
Result<int64_t> ResolveRun(Store& store, const std::string& text);

}  // namespace hone::cli
