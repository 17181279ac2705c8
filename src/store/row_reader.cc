#include "store/row_reader.h"

namespace hone {

RowReader::RowReader(const Stmt& st) : st_(&st) {
  for (int i = 0; i < st.ColumnCount(); ++i) {
    auto [it, inserted] = index_.emplace(std::string(st.ColumnName(i)), i);
    if (!inserted) it->second = kAmbiguous;
  }
}

RowReader RowReader::Scope(std::string_view prefix) const {
  std::map<std::string, int, std::less<>> scoped;
  for (const auto& [name, i] : index_)
    if (name.size() > prefix.size() && name.starts_with(prefix))
      scoped.emplace(name.substr(prefix.size()), i);
  return RowReader(st_, std::move(scoped));
}

int RowReader::Index(std::string_view name) const {
  auto it = index_.find(name);
  HONE_CHECK(it != index_.end(), "the store reads a column '" + std::string(name) +
                                     "' that its query does not select (it has " + Names() + ")");
  HONE_CHECK(it->second != kAmbiguous, "the store reads a column '" + std::string(name) +
                                           "' that more than one of its query's columns is named");
  return it->second;
}

std::string RowReader::Names() const {
  std::string out;
  for (const auto& [name, i] : index_) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool RowReader::IsNull(std::string_view name) const { return st_->IsNull(Index(name)); }
int64_t RowReader::Int(std::string_view name) const { return st_->Int(Index(name)); }
double RowReader::Real(std::string_view name) const { return st_->Real(Index(name)); }
std::string RowReader::Text(std::string_view name) const { return st_->Text(Index(name)); }

}  // namespace hone
