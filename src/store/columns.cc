#include "store/columns.h"

namespace hone {

void AppendSelected(std::string& list, std::string_view table, std::string_view name,
                    std::string_view as_prefix) {
  if (!list.empty()) list += ", ";
  // Quoted: an AS name with a prefix ("e.id") is not a bare identifier.
  list.append(table).append(".").append(name);
  list.append(" AS \"").append(as_prefix).append(name).append("\"");
}

}  // namespace hone
