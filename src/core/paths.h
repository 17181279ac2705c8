// Where hone's own files are: the candidate header and the sandbox
// executable. Looked up next to the running binary first (build tree or
// install), then in the source tree this binary was built from.
#pragma once

#include <filesystem>

#include "core/status.h"

namespace hone {

std::filesystem::path ExecutableDir();
// Directory holding hone/kernel.h ($HONE_INCLUDE_DIR overrides).
Result<std::filesystem::path> FindIncludeDir();
// The hone-sandbox program ($HONE_SANDBOX overrides).
Result<std::filesystem::path> FindSandboxExecutable();

}  // namespace hone
