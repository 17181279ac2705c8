// Where hone's own files are: the candidate header, the prompt templates, the
// Python oracle and the sandbox executables.
//
// Each is looked up in this order, the first that holds the file winning:
//   1. its environment variable, when set (an override: no fallback);
//   2. relative to the running executable (/proc/self/exe), so an installed
//      or moved copy finds its own files: PREFIX/bin/hone uses
//      PREFIX/include and PREFIX/share/hone/... (`cmake --install`, the .deb),
//      and build/hone uses the source tree above it;
//   3. the source tree this binary was built from (compiled-in paths).
// Failures are NotFound values naming every place tried and the variable
// that overrides them.
#pragma once

#include <filesystem>
#include <string>

#include "core/status.h"

namespace hone {

// The folder of the running executable (the current directory when
// /proc/self/exe cannot be read).
std::filesystem::path ExecutableDir();

// Directory holding hone/kernel.h ($HONE_INCLUDE_DIR overrides): ../include
// or include next to the binary, then the source tree's include/.
Result<std::filesystem::path> FindIncludeDir();

// Directory holding the prompt templates (prompts/system.txt, ...)
// ($HONE_PROMPTS overrides): ../share/hone/prompts next to the binary, then
// the source tree's prompts/.
Result<std::filesystem::path> FindPromptsDir();

// Directory holding hone's Python files (hone_oracle.py with its parts
// hone_oracle_*.py, hone_compat.py, hone_pyscan.py, hone_extbuild.py)
// ($HONE_PYTHON_DIR overrides):
// ../share/hone/python next to the binary, then the source tree's python/.
// $HONE_ORACLE still names the oracle's script alone (task/oracle_client.h).
Result<std::filesystem::path> FindPythonDir();

// A sandbox program next to hone: "hone-sandbox", or a backend's own
// ("hone-sandbox-cuda"); the variable of its name in capitals with '_' for
// '-' overrides ($HONE_SANDBOX, $HONE_SANDBOX_CUDA).
Result<std::filesystem::path> FindSandboxExecutable(const std::string& name = "hone-sandbox");

}  // namespace hone
