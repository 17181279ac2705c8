// Which files an MCP client may name: those under the folders the server
// was started with (--root, else the working folder). A client is a model
// acting on someone's behalf; a path it sends is untrusted input, so every
// file argument is resolved (symbolic links and ".." followed, relative
// paths against the first root) and refused unless it lies under a root.
//
// Immutable after construction; thread-safe.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace hone::mcp {

// The path a file: URI names ("file:///home/a%20b" -> "/home/a b"), as MCP
// roots give folders; nullopt for another scheme or a remote host.
std::optional<std::string> PathOfFileUri(std::string_view uri);

class PathGuard {
 public:
  // Roots that do not exist are refused by Make, naming them.
  static Result<PathGuard> Make(const std::vector<std::string>& roots);

  // The real path of `value`, the argument `field`; Status::Invalid naming
  // the field and the path when it does not exist or lies outside every
  // root.
  Result<std::filesystem::path> Existing(std::string_view field, const std::string& value) const;
  // The same for a file the tool will write: its folder must exist and lie
  // under a root; the file itself may not exist yet.
  Result<std::filesystem::path> Writable(std::string_view field, const std::string& value) const;

  const std::vector<std::filesystem::path>& roots() const { return roots_; }

 private:
  explicit PathGuard(std::vector<std::filesystem::path> roots) : roots_(std::move(roots)) {}
  std::filesystem::path Absolute(const std::string& value) const;
  bool Contains(const std::filesystem::path& real) const;
  Status Outside(std::string_view field, const std::string& value) const;

  std::vector<std::filesystem::path> roots_;  // real paths
};

}  // namespace hone::mcp
