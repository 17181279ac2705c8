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
  l.extensions = {".py"};
  l.claims = [](std::string_view text) {
    return text.find("import tinydsl") != std::string_view::npos;
  };
  l.fences = {"python", "tinydsl"};
  l.defines_entry = DefinesModelNew;
  l.runner = Runner::kModelNew;
  l.devices = {"cpu"};
  l.kernel_names = KernelNames::kSource;
  l.kernel_decorators = {"tinydsl.kernel"};
  l.rules = ModelNewRules();
  l.prompt = {"modelnew", "lang_tinydsl", "example_tinydsl.py", "the interpreter's overhead",
              "the kernel's arguments."};
  l.violation_hint = ModelNewViolationHint;
  l.make_loader = [](const LoaderEnv&) -> std::unique_ptr<ModelNewLoader> {
    return std::make_unique<TinyDslLoader>();
  };
  return l;
}

void RegisterTinyDslLanguage(LanguageRegistry& registry) { registry.Register(TinyDslLanguage()); }

}  // namespace hone::testing
