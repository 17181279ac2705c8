// Trims compiler output to what a person or an LLM needs to fix the code:
// the first errors with their source excerpts, temporary paths replaced by
// the candidate's file name, include chains and repeated notes dropped.
#pragma once

#include <string>

namespace hone {

std::string TrimCompilerOutput(const std::string& output, const std::string& source_path,
                               const std::string& display_name, size_t max_errors = 8,
                               size_t max_bytes = 4096);

// The first error of a compiler's or linker's output, one line, for the first
// line of a verdict (a live progress line, a report's failure reasons show
// only that): gcc's and clang's "file:line:col: error: ...", nvcc's
// "file(line): error: ...", "undefined reference to ...". The first
// non-empty line when none is recognised; "" for empty output.
std::string FirstCompilerError(const std::string& output, size_t max_chars = 240);

}  // namespace hone
