#include "task/reference_text.h"

namespace hone {

std::string ReferenceText::ArgumentsPreamble(const Task&) const { return ""; }

std::string ReferenceText::InputOrigin(const Task&, size_t) const { return ""; }

std::string ReferenceText::SizesText(const Task&) const { return ""; }

void ReferenceText::AddJson(const Task&, nlohmann::json&) const {}

}  // namespace hone
