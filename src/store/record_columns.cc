#include "store/record_columns.h"

#include <nlohmann/json.hpp>

#include "core/json_text.h"

namespace hone {
namespace {

using json = nlohmann::json;

std::vector<int> ParseParents(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  std::vector<int> out;
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_number_integer()) out.push_back(x.get<int>());
  return out;
}

}  // namespace

std::string ParentsJson(const std::vector<int>& parents) { return JsonText(json(parents)); }

void ReadParents(const RowReader& row, std::string_view name, CandidateRow& out) {
  out.parents = ParseParents(row.Text(name));
}

}  // namespace hone
