#include "task/reference_programs.h"

namespace hone {

std::optional<std::filesystem::path> ReferencePrograms::ReferenceProgram(const Task&,
                                                                         const std::string&) const {
  return std::nullopt;
}

}  // namespace hone
