#include "store/store_connection.h"

#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <system_error>
#include <thread>

#include "store/row_reader.h"
#include "store/schema.h"

namespace hone {
namespace {

// How long a connection waits for another's lock, in SQLite's busy handler
// and in Open's retries of the set-up alike.
constexpr std::chrono::milliseconds kBusyWait{10000};

// The connection's settings, the store's identity, WAL and the schema.
Status SetUpConnection(Db& db, const std::filesystem::path& path) {
  HONE_RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON"));
  // Reading the header is the first access: a file that is not a hone store
  // (or is from a newer hone) is refused here, before anything is written.
  HONE_RETURN_IF_ERROR(CheckStoreIdentity(db));
  {
    HONE_ASSIGN_OR_RETURN(Stmt st, db.Prepare("PRAGMA journal_mode = WAL"));
    HONE_ASSIGN_OR_RETURN(std::optional<std::string> mode, ReadFirstRow(st, [](const RowReader& r) {
                            return r.Text("journal_mode");
                          }));
    if (mode != "wal")
      return Status::Io(path.string() + ": cannot switch the store to WAL mode (" +
                        mode.value_or("no answer") + "); is it on a network file system?");
  }
  HONE_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  return MigrateToCurrent(db);
}

}  // namespace

Result<Db> OpenStoreConnection(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      return Status::Io(path.string() + ": cannot create the store's folder: " + ec.message());
  }
  if (std::filesystem::is_directory(path, ec))
    return Status::Invalid(path.string() + ": not a hone store (a directory)");
  HONE_ASSIGN_OR_RETURN(Db db, Db::Open(path.string(), /*create=*/true));
  // The busy timeout first: the journal-mode switch below needs a lock.
  sqlite3_busy_timeout(db.raw(), static_cast<int>(kBusyWait.count()));
  // Connections that set up one new store at once can still be told "busy"
  // at once (SQLite's deadlock avoidance: two readers that both want the
  // exclusive lock of the switch to WAL): every step is idempotent, so the
  // set-up is tried again for as long as the busy timeout would wait.
  const auto deadline = std::chrono::steady_clock::now() + kBusyWait;
  std::mt19937 jitter(std::random_device{}());
  while (true) {
    Status s = SetUpConnection(db, path);
    if (s.ok()) break;
    const bool busy = (sqlite3_errcode(db.raw()) & 0xff) == SQLITE_BUSY;
    if (!busy || std::chrono::steady_clock::now() > deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + jitter() % 20));
  }
  return db;
}

}  // namespace hone
