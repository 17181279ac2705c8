// The run store's schema and its migrations.
//
// A store is an SQLite file whose `PRAGMA application_id` is kHoneAppId and
// whose `PRAGMA user_version` is the number of migration steps applied.
// Migrations() lists the steps in order; step i (1-based) takes a store
// from version i-1 to version i and runs in one transaction together with
// the user_version bump, so a crash mid-upgrade leaves the old version
// intact. Steps are append-only: a released step is never edited, a change
// is a new step. docs/STORE.md describes the tables.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/sqlite_db.h"

namespace hone {

inline constexpr int kHoneAppId = 0x686f6e65;  // "hone"

struct Migration {
  int version;           // the version this step produces
  std::string_view sql;  // statements, run in one transaction
};

const std::vector<Migration>& Migrations();
int CurrentSchemaVersion();

// Reads only: ok for an empty file, a hone store of this or an older
// version; otherwise a Status naming the file (not a hone store, written
// by a newer hone, not a database at all). Changes nothing.
Status CheckStoreIdentity(Db& db);

// Brings the open database to CurrentSchemaVersion(): stamps an empty file
// as a hone store, upgrades an older store step by step, and refuses (with
// a Status naming the file) a file that is not a hone store or was written
// by a newer hone.
Status MigrateToCurrent(Db& db);

}  // namespace hone
