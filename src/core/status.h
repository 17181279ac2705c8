// Status and Result<T>: expected failures as values.
//
// A Status is ok or carries a code and a message meant for a person (and an
// LLM reading feedback). Stages return Status or Result<T>; they never throw
// for expected failures such as a malformed task, a compile error or a
// timeout. Programmer errors (broken invariants) abort through HONE_CHECK.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace hone {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,  // bad usage or malformed task: exit code 2
  kNotFound,
  kIoError,
  kUnavailable,  // a facility this machine lacks
  kInternal,
};

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalidInput, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status Io(std::string msg) { return {StatusCode::kIoError, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes context ("file.toml: ") to the message, keeping the code.
  Status With(const std::string& context) const {
    return ok() ? *this : Status(code_, context + message_);
  }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {
    if (std::get<Status>(v_).ok()) {
      std::fprintf(stderr, "hone: Result constructed from an ok Status\n");
      std::abort();
    }
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const std::string& msg);

}  // namespace hone

#define HONE_CHECK(cond, msg)                                   \
  do {                                                          \
    if (!(cond)) ::hone::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#define HONE_RETURN_IF_ERROR(expr)        \
  do {                                    \
    ::hone::Status _st = (expr);          \
    if (!_st.ok()) return _st;            \
  } while (0)

#define HONE_CONCAT_INNER(a, b) a##b
#define HONE_CONCAT(a, b) HONE_CONCAT_INNER(a, b)
#define HONE_ASSIGN_OR_RETURN(lhs, expr) \
  HONE_ASSIGN_OR_RETURN_IMPL(HONE_CONCAT(_res_, __LINE__), lhs, expr)
#define HONE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()
