// The one mapping between a stored type's members and the columns that hold
// them: a query selects the columns through it (SelectList) and a row is read
// back through it (ReadColumns), so each column's name is written once and
// the order of a select list no longer matters.
//
//   constexpr auto kBuildColumns =
//       Columns(Col<&BuildRow::id>("id"), Col<&BuildRow::log>("log"), ...);
//   "SELECT " + SelectList("builds", kBuildColumns) + " FROM builds"
//   ReadRows(st, kBuildColumns)  // a Result<std::vector<BuildRow>>
//
// A member is read as its type says (RowReader::Get); a column stored
// otherwise (JSON text for a list, say) gets a reader of its own. A mapping
// naming a column its query does not select aborts when read
// (store/row_reader.h).
//
// Mappings are constant values: any thread may read them.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/row_reader.h"

namespace hone {

template <typename T>
struct Column {
  std::string_view name;
  void (*read)(const RowReader& row, std::string_view name, T& out);
};

template <typename M>
struct MemberOf;
template <typename C, typename V>
struct MemberOf<V C::*> {
  using Class = C;
  using Value = V;
};

// The column `name` into the member `member` (&Type::field).
template <auto member>
constexpr Column<typename MemberOf<decltype(member)>::Class> Col(std::string_view name) {
  using M = MemberOf<decltype(member)>;
  return {name, [](const RowReader& row, std::string_view column, typename M::Class& out) {
            out.*member = row.Get<typename M::Value>(column);
          }};
}

template <typename T, typename... More>
constexpr std::array<Column<T>, 1 + sizeof...(More)> Columns(Column<T> first, More... more) {
  return {first, more...};
}

template <typename T, std::size_t N>
T ReadColumns(const RowReader& row, const std::array<Column<T>, N>& columns) {
  T out;
  for (const Column<T>& c : columns) c.read(row, c.name, out);
  return out;
}

// Every row of `st` (store/row_reader.h's ReadRows) through the mapping.
template <typename T, std::size_t N>
Result<std::vector<T>> ReadRows(Stmt& st, const std::array<Column<T>, N>& columns) {
  return ReadRows(st, [&](const RowReader& row) { return ReadColumns(row, columns); });
}

// The first row of `st`, or none, through the mapping.
template <typename T, std::size_t N>
Result<std::optional<T>> ReadFirstRow(Stmt& st, const std::array<Column<T>, N>& columns) {
  return ReadFirstRow(st, [&](const RowReader& row) { return ReadColumns(row, columns); });
}

// `table.name AS "prefix.name"`, for one column.
void AppendSelected(std::string& list, std::string_view table, std::string_view name,
                    std::string_view as_prefix);

// `t.a AS "a", t.b AS "b", ...`: the mapping's columns of table (or alias)
// `table`, each named `as_prefix` + its name, for a RowReader scoped to
// `as_prefix` (RowReader::Scope; one side of a join) to read.
template <typename T, std::size_t N>
std::string SelectList(std::string_view table, const std::array<Column<T>, N>& columns,
                       std::string_view as_prefix = "") {
  std::string list;
  for (const Column<T>& c : columns) AppendSelected(list, table, c.name, as_prefix);
  return list;
}

}  // namespace hone
