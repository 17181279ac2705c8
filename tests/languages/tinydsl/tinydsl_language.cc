#include "languages/tinydsl/tinydsl_language.h"

#include "lang/entry_points.h"
#include "lang/modelnew_languages.h"
#include "support/source_dir.h"

namespace hone::testing {
namespace {

// Its package is no installed module: the runner puts its folder on
// sys.path, and the sandbox may read it.
class TinyDslLoader : public ModelNewLoader {
 public:
  void Configure(std::string_view, nlohmann::json& runner_config,
                 std::vector<std::string>& read_dirs) override {
    const std::string dir = (TinyDslDir() / "python").string();
    runner_config["sys_path"] = nlohmann::json::array({dir});
    read_dirs.push_back(dir);
  }
  void Loaded(const std::filesystem::path&) override {}
};

}  // namespace

std::filesystem::path TinyDslDir() { return SourceDir() / "tests" / "languages" / "tinydsl"; }

Language TinyDslLanguage() {
  Language l;
  l.name = kTinyDsl;
  l.label = "TinyDSL";
  l.source.extensions = {".py"};
  l.source.claims = [](std::string_view text) {
    return text.find("import tinydsl") != std::string_view::npos;
  };
  l.source.fences = {"python", "tinydsl"};
  l.source.defines_entry = DefinesModelNew;
  l.run.runner = Runner::kModelNew;
  l.run.devices = {"cpu"};
  l.run.kernel_names = KernelNames::kSource;
  l.loading.kernel_decorators = {"tinydsl.kernel"};
  l.lint.rules = ModelNewRules();
  l.prompt = {"modelnew", "lang_tinydsl", "example_tinydsl.py", "the interpreter's overhead",
              "the kernel's arguments."};
  l.hints.violation_hint = ModelNewViolationHint;
  l.loading.make_loader = [](const LoaderEnv&) -> std::unique_ptr<ModelNewLoader> {
    return std::make_unique<TinyDslLoader>();
  };
  return l;
}

void RegisterTinyDslLanguage(LanguageRegistry& registry) { registry.Register(TinyDslLanguage()); }

}  // namespace hone::testing
