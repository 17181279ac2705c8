// Loads a native task folder (task.toml + reference source).
//
// Every problem is reported as Status::Invalid with a message that names the
// file and the field ("tasks/x/task.toml: inputs[1].dtype: unknown dtype
// 'f33'"), which the CLI turns into exit code 2. Unknown fields are errors, so
// a misspelt key never silently falls back to a default.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "task/task.h"

namespace hone {

// A device a task may be written for: a registered backend's tasks_as
// (run/backend_registry.h: TaskDevicesOf) and the file its reference has
// when task.toml names none. The host's ("cpu") is always known: its
// reference is `reference` (reference.cpp); another device's is
// `<name>_reference`, optional.
struct TaskDevice {
  std::string name;            // "cpu", "cuda": what `backends = [...]` may say
  std::string reference_file;  // "reference.cu"
};

// `path` is the task's folder, or the task.toml in it. `devices` are those
// its cases may name (an unknown one is an error listing them) and whose
// references it may have.
Result<Task> LoadNativeTask(const std::filesystem::path& path,
                            const std::vector<TaskDevice>& devices);

// The folder of the native task `path` names (itself, or the folder of a
// task.toml), or Status::Invalid saying what `path` is instead: not there,
// a file that is not a task.toml, or a folder without a task.toml.
Result<std::filesystem::path> NativeTaskDir(const std::filesystem::path& path);

// True when dir looks like a native task (has task.toml).
bool IsNativeTaskDir(const std::filesystem::path& dir);

}  // namespace hone
