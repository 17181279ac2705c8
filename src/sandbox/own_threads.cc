#include "sandbox/own_threads.h"

#include <dirent.h>

#include <cstdio>
#include <cstring>

namespace hone::sandbox {

std::vector<std::string> OwnThreadNames() {
  std::vector<std::string> names;
  DIR* d = opendir("/proc/self/task");
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string name = "?";
    if (FILE* f =
            std::fopen((std::string("/proc/self/task/") + e->d_name + "/comm").c_str(), "r")) {
      char buf[64] = {};
      if (std::fgets(buf, sizeof buf, f)) name.assign(buf, std::strcspn(buf, "\n"));
      std::fclose(f);
    }
    names.push_back(name);
  }
  closedir(d);
  return names;
}

std::string NameList(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

}  // namespace hone::sandbox
