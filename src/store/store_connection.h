// The run store's one SQLite connection, opened and set up (store/store.h's
// Store::Open): the store's folder created, a file that is not a hone store
// (or is from a newer hone) refused before anything is written, WAL and
// synchronous = FULL switched on, the schema brought to the current version
// (store/schema.h), and a busy timeout of 10 s for other connections' locks.
//
// Any thread; the connection it returns is the caller's. Failure: a Status
// naming the file; a set-up told "busy" is tried again for as long as the
// busy timeout would wait.
#pragma once

#include <filesystem>

#include "core/status.h"
#include "store/sqlite_db.h"

namespace hone {

Result<Db> OpenStoreConnection(const std::filesystem::path& path);

}  // namespace hone
