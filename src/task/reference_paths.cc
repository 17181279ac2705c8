#include "task/reference_paths.h"

namespace hone {

bool ReferencePaths::ClaimsProblemPath(const std::filesystem::path&) const { return false; }

std::filesystem::path ReferencePaths::SolutionsFolder(const std::filesystem::path& problem,
                                                      const std::filesystem::path&,
                                                      const std::string&) const {
  return problem / "solutions";
}

}  // namespace hone
