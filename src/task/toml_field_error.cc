#include "task/toml_field_error.h"

namespace hone {

Status FieldError::operator()(const std::string& field, const std::string& what) const {
  return Status::Invalid(file_ + ": " + field + ": " + what);
}

Status FieldError::operator()(const toml::node& at, const std::string& field,
                              const std::string& what) const {
  auto line = at.source().begin.line;
  if (line == 0) return (*this)(field, what);
  return Status::Invalid(file_ + ":" + std::to_string(line) + ": " + field + ": " + what);
}

Status FieldError::WrongType(const toml::node& at, const std::string& field,
                             const std::string& expected) const {
  return (*this)(at, field, "expected " + expected + ", got " + TomlTypeName(at));
}

std::string TomlTypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

}  // namespace hone
