#include "store/candidate_kind.h"

namespace hone {

std::string_view OwnKind(std::string_view kind) {
  size_t colon = kind.rfind(':');
  return colon == std::string_view::npos ? kind : kind.substr(colon + 1);
}

std::string_view ArmOfKind(std::string_view kind) { return kind.substr(0, kind.find(':')); }

std::string ArmKind(std::string_view arm, std::string_view kind) {
  if (kind == arm) return std::string(arm);
  return std::string(arm) + ":" + std::string(kind);
}

bool AsksForCode(std::string_view kind) { return OwnKind(kind) != kIdeasKind; }

}  // namespace hone
