// What may be given beside --resume. A resumed run continues with the
// options it was started with (stored with it), so a flag that would change
// them would be silently ignored: that is refused (exit 2), naming the
// flags. Whether a flag was given is what counts, not whether its value is
// the default: restating a default over a stored run that set another value
// is a change. Restating the run's own options (the same command line
// again, with --resume) is fine, and so are flags that change where or how
// visibly the work runs, not what it computes (--store, --json, --quiet,
// --log, a bench's --lanes and --devices), and the run's own task or suite
// (checked against the stored one by the command).
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

// Sets the variables the options `given` (GivenFlags' names) of the parsed
// `sub` are bound to again, from what was typed: each option's callback runs
// again. Run over a stored run's options applied to those same variables, it
// leaves what the command line would make of the run.
void RestateGivenFlags(CLI::App& sub, const std::vector<std::string>& given);

// Ok when `given` is empty or changes nothing: `restated` (the stored
// options applied to the command's arguments, then the given flags restated
// over them, as the command stores a run's configuration) is `as_stored`
// (the stored options applied alone, read back the same way).
// Status::Invalid naming `given` otherwise.
Status CheckFlagsBesideResume(const std::vector<std::string>& given, const nlohmann::json& restated,
                              const nlohmann::json& as_stored);

}  // namespace hone::cli
