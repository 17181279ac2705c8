// A gcc precompiled header of torch/extension.h for the C++ step of torch
// extension builds (TorchExtensionBuilder).
//
// Compiling main.cpp of a load_inline extension is mostly parsing
// torch/extension.h (16.5 s of 17 on an H100 host). The header is
// precompiled once per (compiler, flag set, torch include directory) into
// <dir>/<hash>/torch/extension.h.gch, beside a copy of extension.h; a
// compile that puts -I<dir>/<hash> first finds the .gch where it would find
// the header, and gcc falls back to the copy (identical text) when the .gch
// does not fit (-Winvalid-pch says so in the log).
//
// A header is large (about 600 MB for torch 1.13 with gcc 12), so the folder
// keeps the `keep` most recently used ones and removes older ones before it
// builds another; a compile that loses its header to that falls back to
// torch's own extension.h (the -I folder is simply gone).
//
// Off the critical path by default (`background`): a compile whose header
// is not there yet goes without it, as torch's own load_inline would, and
// the header is built once the evaluation has its verdict
// (StartWantedBuilds) by a detached process (core/detached_process.h, at
// the lowest CPU priority) that outlives this one. On a fresh 2-core host
// the first build pays 19 s (the compile alone) instead of 46 s (the
// header, then the compile with it); a header built beside that compile
// would slow it by half (the two cores are one core's hyperthreads). Later
// builds find the header. While one is being built, other compiles go
// without it too.
// Without `background` (the tests of the header itself), a compile waits
// for the header to be built.
//
// Thread-safe and safe across processes: one process builds a given header
// at a time (a lock file, <hash>.lock, beside it: a detached build holds it
// until it ends; past the build's timeout a waiter builds its own); each
// build happens in a private temporary folder renamed into place, so a
// reader never sees half a .gch. A header that fails to build is remembered
// (<hash>.failed) and not used: the compile then runs without it. Nothing
// here fails a build.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"

namespace hone {

class TorchPch {
 public:
  TorchPch(std::filesystem::path dir, std::chrono::seconds timeout, bool background = true,
           size_t keep = 4);

  // The command to run instead of `argv`, a C++ compile of `source`: with the
  // precompiled header's folder first on the include path when one applies
  // (gcc, torch's headers on the include path), otherwise `argv` unchanged.
  // `note` (may be null) receives one line on what happened, for the log.
  std::vector<std::string> Apply(const std::vector<std::string>& argv,
                                 const std::filesystem::path& source, std::string* note);

  // The flags a header is precompiled with: the compile's own, less its
  // input, output, dependency-file options and -DTORCH_EXTENSION_NAME.
  static std::vector<std::string> HeaderFlags(const std::vector<std::string>& argv,
                                              const std::filesystem::path& source);
  // The first include directory in `argv` holding torch/extension.h, or "".
  static std::filesystem::path TorchIncludeDir(const std::vector<std::string>& argv);

  // Starts the builds of the headers that compiles went without since the
  // last call, each in a detached process (unless another process is
  // building it already). Called once the work that must not wait for them
  // is done (an evaluation's verdict), so they do not slow its own compile.
  void StartWantedBuilds();
  // Waits, up to `limit`, for the headers this object's compiles went
  // without: those it started building in the background and those another
  // process was building (`hone prepare` builds what later candidates use).
  void WaitForBackgroundBuilds(std::chrono::seconds limit);

 private:
  bool IsGcc(const std::string& compiler);
  // The folder holding torch/extension.h(.gch) for these flags, or "" when
  // none could be built.
  std::filesystem::path Ensure(const std::string& compiler, const std::vector<std::string>& flags,
                               const std::filesystem::path& torch_include, std::string* note);
  struct Header {
    std::string hash, compiler;
    std::vector<std::string> flags;
    std::filesystem::path header;  // torch's extension.h
  };
  // Remembers the header for StartWantedBuilds; "" (this compile goes
  // without it).
  std::filesystem::path Want(Header h, std::string* note);
  // Starts the header's build in a detached process unless one is under
  // way, it is there, or it failed before.
  void StartInBackground(const Header& h);
  // torch's extension.h copied into the private folder `tmp`, and the
  // compile that precompiles the copy there (the .gch beside it).
  static Result<std::vector<std::string>> HeaderCompile(const Header& h,
                                                        const std::filesystem::path& tmp);
  std::filesystem::path BuildHeader(const Header& h, std::string* note);
  std::shared_ptr<std::mutex> LockFor(const std::string& hash);
  // Removes the least recently used headers until fewer than keep_ remain,
  // and the private folders of builds that were killed.
  void Evict();

  std::filesystem::path dir_;
  std::chrono::seconds timeout_;
  bool background_;
  size_t keep_;
  std::mutex mu_;  // guards the maps
  std::map<std::string, bool> is_gcc_;
  std::map<std::string, std::shared_ptr<std::mutex>> building_;
  std::vector<Header> wanted_;        // compiles went without them
  std::vector<std::string> started_;  // hashes being built in the background, to wait for
};

}  // namespace hone
