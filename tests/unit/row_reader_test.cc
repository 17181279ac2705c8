#include "store/row_reader.h"

#include <gtest/gtest.h>

#include <cctype>

#include "store/columns.h"

namespace hone {
namespace row_reader_test {

// A database in memory with one table `t` of two rows, the second with NULLs.
Db TwoRows() {
  auto db = Db::Open(":memory:", /*create=*/true);
  EXPECT_TRUE(db.ok()) << db.status().message();
  EXPECT_TRUE(db->Exec("CREATE TABLE t(id INTEGER, name TEXT, score REAL, note TEXT);"
                       "INSERT INTO t VALUES (1, 'one', 1.5, 'first'), (2, 'two', NULL, NULL)")
                  .ok());
  return std::move(db).value();
}

class RowReaderTest : public ::testing::Test {
 protected:
  // The reader of `sql`'s first row, over TwoRows().
  const RowReader& FirstRow(const std::string& sql) {
    auto st = db_.Prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().message();
    st_.emplace(std::move(st).value());
    row_.emplace(*st_);
    auto stepped = st_->Step();
    EXPECT_TRUE(stepped.ok() && *stepped);
    return *row_;
  }

  Db db_ = TwoRows();
  std::optional<Stmt> st_;
  std::optional<RowReader> row_;
};
using RowReaderDeathTest = RowReaderTest;

TEST_F(RowReaderTest, ReadsColumnsByNameWhateverTheirOrder) {
  const RowReader& row = FirstRow("SELECT note, score, name, id FROM t WHERE id = 1");
  EXPECT_EQ(row.Int("id"), 1);
  EXPECT_EQ(row.Int32("id"), 1);
  EXPECT_TRUE(row.Bool("id"));
  EXPECT_EQ(row.Text("name"), "one");
  EXPECT_DOUBLE_EQ(row.Real("score"), 1.5);
  EXPECT_EQ(row.Get<std::optional<std::string>>("note"), "first");
}

TEST_F(RowReaderTest, NullIsAValueOnlyOptionalsAndIsNullTellApart) {
  const RowReader& row = FirstRow("SELECT id, score, note FROM t WHERE id = 2");
  EXPECT_TRUE(row.IsNull("score"));
  EXPECT_FALSE(row.IsNull("id"));
  EXPECT_EQ(row.Get<std::optional<double>>("score"), std::nullopt);
  EXPECT_EQ(row.Get<std::optional<int64_t>>("id"), 2);
  EXPECT_DOUBLE_EQ(row.Real("score"), 0.0);
  EXPECT_EQ(row.Text("note"), "");
}

// SQLite names a plain column reference, qualified or not, after its column;
// the store's queries rely on it (store/row_reader.h).
TEST_F(RowReaderTest, PlainColumnReferencesAreNamedAfterTheColumn) {
  const RowReader& row = FirstRow("SELECT x.id, name, count(*) AS n FROM t x");
  EXPECT_EQ(row.Int("n"), 2);
  EXPECT_FALSE(row.IsNull("id"));
  EXPECT_FALSE(row.IsNull("name"));
}

TEST_F(RowReaderTest, ScopeReadsOneSideOfAJoin) {
  const RowReader& row = FirstRow(
      "SELECT a.id, a.name, b.id AS \"b.id\", b.name AS \"b.name\" FROM t a "
      "JOIN t b ON b.id = a.id + 1");
  const RowReader b = row.Scope("b.");
  EXPECT_EQ(row.Text("name"), "one");
  EXPECT_EQ(b.Text("name"), "two");
  EXPECT_EQ(b.Int("id"), 2);
}

TEST_F(RowReaderDeathTest, AColumnTheQueryDoesNotSelectAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const RowReader& row = FirstRow("SELECT id, name FROM t");
  EXPECT_DEATH(row.Text("nmae"), "column 'nmae'.*it has id, name");
}

TEST_F(RowReaderDeathTest, AColumnNameTwoColumnsShareAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const RowReader& row = FirstRow("SELECT a.id, b.id FROM t a JOIN t b");
  EXPECT_DEATH(row.Int("id"), "column 'id'.*more than one");
}

TEST_F(RowReaderTest, ReadRowsReadsEveryRowAndReadFirstRowOneOrNone) {
  auto all = db_.Prepare("SELECT id FROM t ORDER BY id");
  ASSERT_TRUE(all.ok());
  auto ids = ReadRows(*all, [](const RowReader& r) { return r.Int("id"); });
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, (std::vector<int64_t>{1, 2}));

  auto none = db_.Prepare("SELECT id FROM t WHERE id = 3");
  ASSERT_TRUE(none.ok());
  auto first = ReadFirstRow(*none, [](const RowReader& r) { return r.Int("id"); });
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, std::nullopt);
}

struct Item {
  int64_t id = 0;
  std::string name;
  std::optional<double> score;
  std::string note_upper;
};

void ReadNoteUpper(const RowReader& row, std::string_view name, Item& out) {
  for (char c : row.Text(name)) out.note_upper += static_cast<char>(std::toupper(c));
}

constexpr auto kItemColumns =
    Columns(Col<&Item::id>("id"), Col<&Item::name>("name"), Col<&Item::score>("score"),
            Column<Item>{"note", &ReadNoteUpper});

TEST(ColumnsTest, SelectListNamesEachColumnForARowToRead) {
  EXPECT_EQ(SelectList("x", kItemColumns),
            "x.id AS \"id\", x.name AS \"name\", x.score AS \"score\", x.note AS \"note\"");
  EXPECT_EQ(SelectList("x", kItemColumns, "x."),
            "x.id AS \"x.id\", x.name AS \"x.name\", x.score AS \"x.score\", x.note AS \"x.note\"");
}

TEST(ColumnsTest, ReadsRowsThroughTheMapping) {
  Db db = TwoRows();
  auto st = db.Prepare("SELECT " + SelectList("t", kItemColumns) + " FROM t ORDER BY id");
  ASSERT_TRUE(st.ok());
  auto items = ReadRows(*st, kItemColumns);
  ASSERT_TRUE(items.ok()) << items.status().message();
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ((*items)[0].id, 1);
  EXPECT_EQ((*items)[0].name, "one");
  EXPECT_EQ((*items)[0].score, 1.5);
  EXPECT_EQ((*items)[0].note_upper, "FIRST");
  EXPECT_EQ((*items)[1].score, std::nullopt);
  EXPECT_EQ((*items)[1].note_upper, "");
}

TEST(ColumnsTest, ReadsOneSideOfAJoinThroughAScope) {
  Db db = TwoRows();
  auto st = db.Prepare("SELECT a.id, " + SelectList("b", kItemColumns, "b.") +
                       " FROM t a JOIN t b ON b.id = a.id + 1");
  ASSERT_TRUE(st.ok());
  const RowReader b = RowReader(*st).Scope("b.");
  auto items = ReadRows(*st, [&](const RowReader&) { return ReadColumns(b, kItemColumns); });
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 1u);
  EXPECT_EQ((*items)[0].name, "two");
}

}  // namespace row_reader_test
}  // namespace hone
