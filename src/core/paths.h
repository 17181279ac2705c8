// Where hone's own files are: the candidate header, the prompt templates and
// the sandbox executable. Looked up next to the running binary first (build tree or
// install), then in the source tree this binary was built from.
#pragma once

#include <filesystem>

#include "core/status.h"

namespace hone {

std::filesystem::path ExecutableDir();
// Directory holding hone/kernel.h ($HONE_INCLUDE_DIR overrides).
Result<std::filesystem::path> FindIncludeDir();
// Directory holding the prompt templates (prompts/system.txt, ...):
// $HONE_PROMPTS when set, else prompts/ of the source tree this binary was
// built from, else ../share/hone/prompts next to the binary (an install).
Result<std::filesystem::path> FindPromptsDir();
// A sandbox program next to hone: "hone-sandbox" ($HONE_SANDBOX overrides)
// or "hone-sandbox-cuda" ($HONE_SANDBOX_CUDA overrides).
Result<std::filesystem::path> FindSandboxExecutable(const std::string& name = "hone-sandbox");

}  // namespace hone
