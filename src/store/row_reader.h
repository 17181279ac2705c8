// Reads a statement's rows by column name, so that a reader names the
// columns it wants instead of counting their places in a SELECT list, and a
// column added to a list (or a list reordered) cannot shift what the others
// read.
//
// A RowReader maps each result column's name to its place once, when it is
// made from a prepared statement; a getter then reads that column of the row
// the statement was last stepped to. A column's name is its AS name; SQLite
// names a plain column reference (`e.status`, `status`) after the column,
// and anything else (`count(*)`, `coalesce(...)`) needs an AS name to be
// read (store/columns.h's SelectList writes them).
//
// Failure: asking for a name the statement does not have, or that two of its
// columns share (a join's `id`), is a programmer error and aborts
// (HONE_CHECK) naming the column and the names there are. A stored NULL is a
// value: IsNull and Get<std::optional<...>> tell it apart, the plain getters
// read it as SQLite converts it (0, 0.0, "").
//
// Ownership and threads: a RowReader refers to its statement, which must
// outlive it, and is used where the statement is (sqlite_db.h: not
// thread-safe).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/status.h"
#include "store/sqlite_db.h"

namespace hone {

class RowReader {
 public:
  explicit RowReader(const Stmt& st);

  // The columns whose names start with `prefix`, read by the rest of their
  // name: one side of a join whose select list gave them that prefix
  // (store/columns.h's SelectList), read by its table's own reader.
  RowReader Scope(std::string_view prefix) const;

  bool IsNull(std::string_view name) const;
  int64_t Int(std::string_view name) const;
  int Int32(std::string_view name) const { return static_cast<int>(Int(name)); }
  bool Bool(std::string_view name) const { return Int(name) != 0; }
  double Real(std::string_view name) const;
  std::string Text(std::string_view name) const;
  // One of the types above, or a std::optional of one (nullopt for NULL),
  // chosen by type: for readers generic in what they fill (store/columns.h).
  template <typename V>
  V Get(std::string_view name) const;

 private:
  RowReader(const Stmt* st, std::map<std::string, int, std::less<>> index)
      : st_(st), index_(std::move(index)) {}
  int Index(std::string_view name) const;  // aborts on a name it cannot read
  std::string Names() const;               // for the abort's message

  const Stmt* st_;
  // Name to place; kAmbiguous for a name that more than one column has.
  std::map<std::string, int, std::less<>> index_;
  static constexpr int kAmbiguous = -1;
};

template <typename V>
struct IsOptional : std::false_type {};
template <typename V>
struct IsOptional<std::optional<V>> : std::true_type {};

template <typename V>
V RowReader::Get(std::string_view name) const {
  if constexpr (IsOptional<V>::value) {
    return IsNull(name) ? V() : V(Get<typename V::value_type>(name));
  } else if constexpr (std::is_same_v<V, int64_t>) {
    return Int(name);
  } else if constexpr (std::is_same_v<V, int>) {
    return Int32(name);
  } else if constexpr (std::is_same_v<V, bool>) {
    return Bool(name);
  } else if constexpr (std::is_same_v<V, double>) {
    return Real(name);
  } else {
    static_assert(std::is_same_v<V, std::string>, "a RowReader reads no column as this type");
    return Text(name);
  }
}

// Steps `st` to its end and reads every row with `read(const RowReader&)`;
// the first failure to step comes back instead.
template <typename Read>
Result<std::vector<std::invoke_result_t<Read, const RowReader&>>> ReadRows(Stmt& st, Read read) {
  const RowReader row(st);
  std::vector<std::invoke_result_t<Read, const RowReader&>> out;
  while (true) {
    HONE_ASSIGN_OR_RETURN(bool more, st.Step());
    if (!more) return out;
    out.push_back(read(row));
  }
}

// Steps `st` once: its first row read with `read(const RowReader&)`, or none.
template <typename Read>
Result<std::optional<std::invoke_result_t<Read, const RowReader&>>> ReadFirstRow(Stmt& st,
                                                                                 Read read) {
  const RowReader row(st);
  HONE_ASSIGN_OR_RETURN(bool found, st.Step());
  if (!found) return std::optional<std::invoke_result_t<Read, const RowReader&>>();
  return std::optional(read(row));
}

}  // namespace hone
