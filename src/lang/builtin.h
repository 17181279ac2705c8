// The languages hone ships: C++, CUDA C++, KernelBench ModelNew files with
// load_inline extensions, and Triton. A .py file is Triton's when it
// imports triton, else load_inline's. The CLI registers these; tests
// register what they need, languages of their own included.
#pragma once

#include "lang/language.h"

namespace hone {

void RegisterBuiltInLanguages(LanguageRegistry& registry);
// A registry with the built-in languages, made once; thread-safe.
const LanguageRegistry& BuiltInLanguages();

}  // namespace hone
