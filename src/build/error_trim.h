// Trims compiler output to what a person or an LLM needs to fix the code:
// the first errors with their source excerpts, temporary paths replaced by
// the candidate's file name, include chains and repeated notes dropped.
#pragma once

#include <string>

namespace hone {

std::string TrimCompilerOutput(const std::string& output, const std::string& source_path,
                               const std::string& display_name, size_t max_errors = 8,
                               size_t max_bytes = 4096);

}  // namespace hone
