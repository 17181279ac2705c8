// A thin RAII layer over the SQLite C API for the run store: one connection
// (Db) and prepared statements (Stmt) whose failures come back as Status
// values naming the database file. Not thread-safe by itself: the Store
// serialises its use (store/store.h).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace hone {

class Stmt;

class Db {
 public:
  Db() = default;
  ~Db();
  Db(Db&& o) noexcept : db_(o.db_), path_(std::move(o.path_)) { o.db_ = nullptr; }
  Db& operator=(Db&&) = delete;
  Db(const Db&) = delete;

  // Opens (creating unless `create` is false) the file at `path`.
  static Result<Db> Open(const std::string& path, bool create);

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  Result<Stmt> Prepare(std::string_view sql);
  // The single integer a query such as "PRAGMA user_version" returns.
  Result<int64_t> QueryInt(std::string_view sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  // "PATH: what SQLite said" for the last failure on this connection.
  Status Error(std::string_view what) const;
  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement. Bind parameters by 1-based index, then Step until
// it returns false (done) or an error. Text is bound as valid UTF-8: bytes
// that are not (a compiler's Latin-1 quote, a candidate's or a model's
// stray bytes) become U+FFFD (core/json_text.h: ValidUtf8), so every text
// column reads back as text; BindBytes keeps bytes exactly instead.
class Stmt {
 public:
  Stmt(const Db* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(Stmt&& o) noexcept : db_(o.db_), s_(o.s_) { o.s_ = nullptr; }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  Stmt& Bind(int i, bool v) { return Bind(i, static_cast<int64_t>(v ? 1 : 0)); }
  Stmt& Bind(int i, double v);
  Stmt& Bind(int i, std::string_view v);
  Stmt& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  // Bytes kept exactly (a candidate's source, which is evaluated again from
  // the store and whose hash is of its bytes): text where they are UTF-8,
  // else a BLOB, which SQLite keeps in any column and Text() reads back
  // byte for byte.
  Stmt& BindBytes(int i, std::string_view v);
  Stmt& BindBytes(int i, const std::optional<std::string>& v) {
    return v ? BindBytes(i, std::string_view(*v)) : BindNull(i);
  }
  Stmt& BindNull(int i);
  template <typename T>
  Stmt& Bind(int i, const std::optional<T>& v) {
    return v ? Bind(i, *v) : BindNull(i);
  }

  // True when a row is available, false when done.
  Result<bool> Step();
  // Steps a statement that returns no rows.
  Status Run();

  // The result's columns, known once the statement is prepared
  // (store/row_reader.h reads them by these names).
  int ColumnCount() const { return sqlite3_column_count(s_); }
  // Empty when SQLite runs out of memory naming it.
  std::string_view ColumnName(int col) const {
    const char* name = sqlite3_column_name(s_, col);
    return name ? name : "";
  }
  bool IsNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  double Real(int col) const { return sqlite3_column_double(s_, col); }
  std::string Text(int col) const;
  std::optional<double> OptReal(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<double>(Real(col));
  }

 private:
  const Db* db_;
  sqlite3_stmt* s_;
  int bind_error_ = SQLITE_OK;
};

// BEGIN IMMEDIATE on construction; rolls back on destruction unless
// Commit() succeeded. IMMEDIATE takes the write lock up front, so two
// writers wait on busy_timeout instead of failing on a lock upgrade.
class Transaction {
 public:
  explicit Transaction(Db& db) : db_(db) {}
  ~Transaction();
  Status Begin();
  Status Commit();

 private:
  Db& db_;
  bool open_ = false;
};

}  // namespace hone
