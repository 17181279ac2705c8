#include "store/sqlite_db.h"

#include "core/json_text.h"

namespace hone {

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

Result<Db> Db::Open(const std::string& path, bool create) {
  Db db;
  db.path_ = path;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc);
    return Status::Io(path + ": cannot open the store: " + msg);
  }
  sqlite3_extended_result_codes(db.db_, 1);
  return db;
}

Status Db::Error(std::string_view what) const {
  int code = sqlite3_errcode(db_);
  std::string msg = path_ + ": " + std::string(what) + ": " + sqlite3_errmsg(db_);
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT)
    return Status::Invalid(msg);
  return Status::Io(msg);
}

Status Db::Exec(std::string_view sql) {
  std::string s(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  int base = rc & 0xff;
  std::string full = path_ + ": " + msg;
  if (base == SQLITE_NOTADB || base == SQLITE_CORRUPT) return Status::Invalid(full);
  return Status::Io(full);
}

Result<Stmt> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) return Error("cannot prepare a query");
  return Stmt(this, s);
}

Result<int64_t> Db::QueryInt(std::string_view sql) {
  HONE_ASSIGN_OR_RETURN(Stmt st, Prepare(sql));
  HONE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::Internal(path_ + ": no row from: " + std::string(sql));
  return st.Int(0);
}

Stmt& Stmt::Bind(int i, int64_t v) {
  int rc = sqlite3_bind_int64(s_, i, v);
  if (rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Stmt& Stmt::Bind(int i, double v) {
  int rc = sqlite3_bind_double(s_, i, v);
  if (rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Stmt& Stmt::Bind(int i, std::string_view v) {
  const std::string text = ValidUtf8(v);
  int rc = sqlite3_bind_text64(s_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Stmt& Stmt::BindBytes(int i, std::string_view v) {
  if (ValidUtf8(v) == v) return Bind(i, v);
  int rc = sqlite3_bind_blob64(s_, i, v.data(), v.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Stmt& Stmt::BindNull(int i) {
  int rc = sqlite3_bind_null(s_, i);
  if (rc != SQLITE_OK) bind_error_ = rc;
  return *this;
}

Result<bool> Stmt::Step() {
  if (bind_error_ != SQLITE_OK)
    return Status::Internal(db_->path() +
                            ": cannot bind a parameter: " + sqlite3_errstr(bind_error_));
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error("query failed");
}

Status Stmt::Run() {
  HONE_ASSIGN_OR_RETURN(bool row, Step());
  (void)row;
  return Status::Ok();
}

std::string Stmt::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(s_, col);
  if (!t) return {};
  return std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(s_, col));
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.raw(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::Begin() {
  HONE_RETURN_IF_ERROR(db_.Exec("BEGIN IMMEDIATE"));
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  HONE_RETURN_IF_ERROR(db_.Exec("COMMIT"));
  open_ = false;
  return Status::Ok();
}

}  // namespace hone
