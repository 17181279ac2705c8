// Whether a piece of source defines the entry point a contract asks for:
// hone_forward with a body (include/hone/kernel.h) or a KernelBench ModelNew
// class. Used by languages to recognise their code in an LLM's reply.
// Pure functions over text; any input is fine.
#pragma once

#include <string_view>

namespace hone {

// `hone_forward(...) {`: the name, a parameter list, then a body (a
// declaration or a call does not count).
bool DefinesHoneForward(std::string_view code);
// `class ModelNew(` or `class ModelNew:` at the start of a line.
bool DefinesModelNew(std::string_view code);
// Whether Python text imports Triton (`import triton`, `from triton...`).
bool ImportsTriton(std::string_view code);

}  // namespace hone
