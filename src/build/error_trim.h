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

// Every occurrence of `from` in `s` made `to`, left to right, never
// re-reading what was put in (a `to` that contains `from` is fine); an
// empty `from` changes nothing. How a compiler's output names its file is
// rewritten: a build's private path, a cached log's placeholder, a run's
// attempt number.
void ReplaceAll(std::string& s, const std::string& from, const std::string& to);

}  // namespace hone
