// Loads a native task folder (task.toml + reference source).
//
// Every problem is reported as Status::Invalid with a message that names the
// file and the field ("tasks/x/task.toml: inputs[1].dtype: unknown dtype
// 'f33'"), which the CLI turns into exit code 2. Unknown fields are errors, so
// a misspelt key never silently falls back to a default.
#pragma once

#include <filesystem>

#include "task/task.h"

namespace hone {

// `path` is the task's folder, or the task.toml in it.
Result<Task> LoadNativeTask(const std::filesystem::path& path);

// The folder of the native task `path` names (itself, or the folder of a
// task.toml), or Status::Invalid saying what `path` is instead: not there,
// a file that is not a task.toml, or a folder without a task.toml.
Result<std::filesystem::path> NativeTaskDir(const std::filesystem::path& path);

// True when dir looks like a native task (has task.toml).
bool IsNativeTaskDir(const std::filesystem::path& dir);

}  // namespace hone
