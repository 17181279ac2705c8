#include "mcp/path_guard.h"

#include <algorithm>
#include <cctype>

namespace hone::mcp {

namespace fs = std::filesystem;

std::optional<std::string> PathOfFileUri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  uri.remove_prefix(kScheme.size());
  size_t slash = uri.find('/');
  std::string_view host = uri.substr(0, slash);
  if (slash == std::string_view::npos || !(host.empty() || host == "localhost"))
    return std::nullopt;
  std::string path;
  for (size_t i = slash; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(uri[i + 2]))) {
      path += static_cast<char>(std::stoi(std::string(uri.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

Result<PathGuard> PathGuard::Make(const std::vector<std::string>& roots) {
  std::vector<fs::path> real;
  for (const std::string& r : roots.empty() ? std::vector<std::string>{"."} : roots) {
    std::error_code ec;
    fs::path p = fs::canonical(r, ec);
    if (ec || !fs::is_directory(p, ec))
      return Status::Invalid("--root " + r + ": not a folder that exists");
    real.push_back(p);
  }
  return PathGuard(std::move(real));
}

fs::path PathGuard::Absolute(const std::string& value) const {
  fs::path p(value);
  return p.is_absolute() ? p : roots_.front() / p;
}

bool PathGuard::Contains(const fs::path& real) const {
  return std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& root) {
    auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    return r == root.end();
  });
}

Status PathGuard::Outside(std::string_view field, const std::string& value) const {
  std::string list;
  for (const fs::path& r : roots_) list += (list.empty() ? "" : ", ") + r.string();
  return Status::Invalid(std::string(field) + ": " + value +
                         " is outside the folders this server may read (" + list +
                         "; start hone mcp with --root to add one)");
}

Result<fs::path> PathGuard::Existing(std::string_view field, const std::string& value) const {
  if (value.empty()) return Status::Invalid(std::string(field) + ": empty path");
  std::error_code ec;
  fs::path real = fs::canonical(Absolute(value), ec);
  if (ec) return Status::Invalid(std::string(field) + ": " + value + ": no such file or folder");
  if (!Contains(real)) return Outside(field, value);
  return real;
}

Result<fs::path> PathGuard::Writable(std::string_view field, const std::string& value) const {
  if (value.empty()) return Status::Invalid(std::string(field) + ": empty path");
  fs::path absolute = Absolute(value);
  if (!absolute.has_filename())
    return Status::Invalid(std::string(field) + ": " + value + ": names a folder, not a file");
  std::error_code ec;
  fs::path folder = fs::canonical(absolute.parent_path(), ec);
  if (ec) return Status::Invalid(std::string(field) + ": " + value + ": its folder does not exist");
  fs::path real = folder / absolute.filename();
  if (fs::is_symlink(real, ec)) return Outside(field, value);  // a link could point anywhere
  if (!Contains(real)) return Outside(field, value);
  return real;
}

}  // namespace hone::mcp
