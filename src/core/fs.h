// Small file-system helpers. All return values, none throw.
#pragma once

#include <filesystem>
#include <string>

#include "core/status.h"

namespace hone {

namespace fs = std::filesystem;

Result<std::string> ReadFile(const fs::path& path);
// Writes via a temporary file and rename, so readers never see a partial file.
Status WriteFileAtomic(const fs::path& path, std::string_view content);
// $HONE_CACHE, else $XDG_CACHE_HOME/hone, else ~/.cache/hone; created, and
// returned as an absolute path.
Result<fs::path> CacheDir();

// `path` absolute and normalised, as runs store paths (so a resumed run
// finds them from any working directory); "" stays "".
std::string AbsolutePath(const fs::path& path);

// "2_x.py" before "10_x.py": digit runs compare as numbers (KernelBench's
// problem order).
bool NaturalLess(const std::string& a, const std::string& b);
// A fresh private directory (mode 0700) under base, named prefix-XXXXXX.
Result<fs::path> MakeTempDir(const fs::path& base, const std::string& prefix);

// `p` readable by every user (a folder also listable and enterable), writable
// by its owner only: what a root-run sandbox ('nobody') reads.
void MakeReadableByAll(const fs::path& p, std::error_code& ec);

// Whether any user may list and enter `dir`: it is an absolute directory
// readable and searchable by others, and every folder above it searchable.
// (A root-run sandbox is 'nobody', who reaches only such folders.)
bool OthersCanReach(const fs::path& dir);

// Where hone's own oracle keeps Python bytecode: the cache's
// python-bytecode/, or, when the cache is private to root (root's home),
// /var/tmp/hone-python-bytecode-0, which root-run sandboxes can read; that
// one only when root owns it and nobody else may write it. Empty when
// there is no cache.
fs::path PythonBytecodeDir();

}  // namespace hone
