// What may be given beside --resume. A resumed run continues with the
// options it was started with (stored with it), so a flag that would change
// them would be silently ignored: that is refused (exit 2), naming the
// flags. Restating the run's own options (the same command line again, with
// --resume) is fine, and so are flags that change where or how visibly the
// work runs, not what it computes (--store, --json, --quiet, --log, a
// bench's --lanes and --devices), and the run's own task or suite (checked
// against the stored one by the command).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone::cli {

// The options of `sub` given on its command line (names as CLI11 gives
// them: "--backend", a positional's name), less --resume and `allowed`.
std::vector<std::string> GivenFlags(const CLI::App& sub, const std::set<std::string>& allowed);

// Ok when `given` is empty or changes nothing: the configuration the command
// line describes (`asked`, as the command stores a run's) differs from the
// stored one (`stored`) only where it is the default (`defaults`).
// Status::Invalid naming `given` otherwise.
Status CheckFlagsBesideResume(const std::vector<std::string>& given, const nlohmann::json& asked,
                              const nlohmann::json& defaults, const nlohmann::json& stored);

}  // namespace hone::cli
