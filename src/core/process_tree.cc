#include "core/process_tree.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

namespace hone {

pid_t ParentOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so
  // the fields after it start at the last ')'.
  const char* close = std::strrchr(buf, ')');
  if (!close) return 0;
  char state = 0;
  int ppid = 0;
  if (std::sscanf(close + 1, " %c %d", &state, &ppid) != 2) return 0;
  return static_cast<pid_t>(ppid);
}

bool DescendsFrom(pid_t pid, pid_t root, const std::function<pid_t(pid_t)>& parent_of) {
  for (int generation = 0; generation < 64 && pid > 0; ++generation) {
    if (pid == root) return true;
    pid = parent_of(pid);
  }
  return false;
}

std::string ProgramOf(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/cmdline", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (!f) return "";
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';  // argv[0] ends at its own NUL
  std::string argv0(buf);
  return argv0.substr(argv0.find_last_of('/') + 1);
}

std::vector<pid_t> DescendantsOf(pid_t root) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid != root && DescendsFrom(pid, root)) found.push_back(pid);
  }
  return found;
}

}  // namespace hone
