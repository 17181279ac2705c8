#include "sandbox/warm_start.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sandbox/control_channel.h"
#include "sandbox/own_threads.h"
#include "wire/handoff.h"

namespace hone::sandbox {

void Prewarm(const Options& o, EmbeddedPython& python) {
  void* lib = dlopen(o.prewarm_python.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) Die((std::string("prewarm: cannot load ") + o.prewarm_python).c_str());
  auto init = reinterpret_cast<void (*)(int)>(dlsym(lib, "Py_InitializeEx"));
  auto run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "PyRun_SimpleString"));
  auto save = reinterpret_cast<void* (*)()>(dlsym(lib, "PyEval_SaveThread"));
  if (!init || !run || !save) Die("prewarm: the Python library lacks its C API");
  FILE* f = std::fopen(o.prewarm_runner.c_str(), "r");
  if (!f) Die((std::string("prewarm: cannot read ") + o.prewarm_runner).c_str());
  std::string source;
  char buf[65536];
  for (size_t k; (k = std::fread(buf, 1, sizeof buf, f)) > 0;) source.append(buf, k);
  std::fclose(f);
  init(0);
  // The runner's folder, as a Python string: its language parts
  // (hone_lang_*.py) add their own imports.
  const std::string& runner = o.prewarm_runner;
  const size_t slash = runner.rfind('/');
  std::string dir = "'";
  for (char c : slash == std::string::npos ? std::string(".") : runner.substr(0, slash)) {
    if (c == '\\' || c == '\'') dir += '\\';
    dir += c;
  }
  dir += "'";
  if (run((source + "\nhone_compat_prewarm(" + dir + ")\n").c_str()) != 0)
    Die("prewarm: importing failed");
  python.library = lib;
  python.thread_state = save();  // the shim's constructor takes the interpreter lock back
  std::fflush(stdout);
  std::fflush(stderr);
  std::vector<std::string> names = sandbox::OwnThreadNames();
  std::erase_if(names, [](const std::string& n) { return n.rfind("cuda", 0) == 0; });
  if (names.size() != 1)
    Die(("prewarm: " + std::to_string(names.size()) +
         " threads besides the CUDA driver's after importing (1 expected): " +
         sandbox::NameList(names))
            .c_str());
}

void LeaveIdlePriority() {
  DIR* d = opendir("/proc/self/task");
  if (!d) Die("cannot list the sandbox's threads");
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    sched_param none{};
    if (sched_setscheduler(std::atoi(e->d_name), SCHED_OTHER, &none) != 0)
      Die("cannot return to normal priority after warming");
  }
  closedir(d);
}

void ReceiveHandoff(Options& o) {
  std::vector<std::string> args;
  std::vector<int> fds;
  std::string error;
  if (!handoff::Receive(o.handoff_fd, &args, &fds, &error)) Die(error.c_str());
  close(o.handoff_fd);
  o.handoff_fd = -1;
  args.insert(args.begin(), "hone-sandbox");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  if (fds.empty()) Die("bad hand-off: no candidate library");
  o.library_fd = fds[0];
  if (!ParseArgs(static_cast<int>(argv.size()), argv.data(), o)) Die("bad hand-off");
  if (fds.size() > 1) o.arena_fd = fds[1];  // the CPU arena (its --arena-fd names Spawn's number)
  auto lower = [](int resource, size_t bytes) {
    rlimit rl{bytes, bytes};
    if (bytes > 0 && setrlimit(resource, &rl) != 0) Die("cannot set the memory limit");
  };
  lower(RLIMIT_AS, o.rlimit_as);
  lower(RLIMIT_DATA, o.rlimit_data);
}

}  // namespace hone::sandbox
