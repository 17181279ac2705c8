// Errors about one field of a parsed TOML file, naming the file, the line
// toml++ read the field at, and the field's path:
//   "tasks/x/task.toml:12: inputs[0].shape: expected an array ..., got a string".
// A plain value; no I/O.
#pragma once

#include <toml++/toml.h>

#include <string>

#include "core/status.h"

namespace hone {

class FieldError {
 public:
  explicit FieldError(std::string file) : file_(std::move(file)) {}

  // Status::Invalid "file: field: what" (no position known).
  Status operator()(const std::string& field, const std::string& what) const;
  // Status::Invalid "file:LINE: field: what", LINE being where `at` starts.
  Status operator()(const toml::node& at, const std::string& field, const std::string& what) const;
  // A value of the wrong type: "... field: expected <expected>, got a string".
  Status WrongType(const toml::node& at, const std::string& field,
                   const std::string& expected) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// What a node holds, with its article: "a string", "an integer", "a table".
std::string TomlTypeName(const toml::node& n);

}  // namespace hone
