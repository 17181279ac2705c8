#include "lang/builtin.h"

#include "lang/modelnew_languages.h"
#include "lang/native_languages.h"

namespace hone {

void RegisterBuiltInLanguages(LanguageRegistry& registry) {
  registry.Register(CppLanguage());
  registry.Register(CudaLanguage());
  registry.Register(LoadInlineLanguage());
  registry.Register(TritonLanguage());
}

const LanguageRegistry& BuiltInLanguages() {
  static const LanguageRegistry registry = [] {
    LanguageRegistry r;
    RegisterBuiltInLanguages(r);
    return r;
  }();
  return registry;
}

}  // namespace hone
