#include "build/error_trim.h"

#include <sstream>
#include <vector>

namespace hone {
namespace {

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

std::string TrimCompilerOutput(const std::string& output, const std::string& source_path,
                               const std::string& display_name, size_t max_errors,
                               size_t max_bytes) {
  std::string text = output;
  ReplaceAll(text, source_path, display_name);
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> kept;
  size_t errors = 0;
  bool in_error = false;
  while (std::getline(in, line)) {
    if (line.rfind("In file included from", 0) == 0 || line.rfind("                 from", 0) == 0)
      continue;
    bool is_diag = Contains(line, ": error") || Contains(line, ": fatal error") ||
                   Contains(line, "undefined reference") || Contains(line, "ld returned");
    bool is_header = Contains(line, ": In function") || Contains(line, ": In instantiation") ||
                     Contains(line, ": At global scope");
    if (is_diag) {
      if (Contains(line, ": error") || Contains(line, "undefined reference")) ++errors;
      if (errors > max_errors) break;
      in_error = true;
      kept.push_back(line);
    } else if (is_header) {
      in_error = false;
      kept.push_back(line);
    } else if (Contains(line, ": warning") || Contains(line, ": note")) {
      in_error = Contains(line, ": note") && in_error;
      if (in_error) kept.push_back(line);
    } else if (in_error) {
      kept.push_back(line);  // source excerpt and caret lines
    }
  }
  std::string out;
  for (const auto& l : kept) {
    if (out.size() + l.size() + 1 > max_bytes) {
      out += "... (trimmed)\n";
      break;
    }
    out += l + "\n";
  }
  if (out.empty()) {
    out = text.substr(0, max_bytes);
    if (text.size() > max_bytes) out += "\n... (trimmed)\n";
  }
  return out;
}

std::string FirstCompilerError(const std::string& output, size_t max_chars) {
  std::istringstream in(output);
  std::string first_nonempty;
  for (std::string line; std::getline(in, line);) {
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    line = line.substr(begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (first_nonempty.empty()) first_nonempty = line;
    if (Contains(line, ": error") || Contains(line, ": fatal error") ||
        Contains(line, "undefined reference") || Contains(line, "): error") ||
        line.rfind("error:", 0) == 0) {
      first_nonempty = line;
      break;
    }
  }
  if (first_nonempty.size() > max_chars)
    first_nonempty = first_nonempty.substr(0, max_chars) + "...";
  return first_nonempty;
}

}  // namespace hone
