// TinyDSL: a kernel language that exists only in the tests, registered the
// way a new language of hone's would be (CuTe DSL, TileLang): one
// descriptor, with the Python package its files import
// (tests/languages/tinydsl/python/tinydsl.py: a @tinydsl.kernel decorator
// that reads its function's source, as Triton's does), its prompts and its
// loader. Its files are KernelBench ModelNew files that import tinydsl; they
// run on the CPU through the compat runner. tests/integration/
// language_seam_test.cc runs evaluations, lint, prompts and extraction on
// it; nothing outside this folder and that test names it.
#pragma once

#include <filesystem>

#include "lang/language.h"

namespace hone::testing {

inline constexpr const char* kTinyDsl = "tinydsl";

// The folder of this language's files (prompts/, python/).
std::filesystem::path TinyDslDir();
Language TinyDslLanguage();
void RegisterTinyDslLanguage(LanguageRegistry& registry);

}  // namespace hone::testing
