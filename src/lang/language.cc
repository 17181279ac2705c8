#include "lang/language.h"

#include <algorithm>
#include <cctype>

#include "core/fs.h"
#include "core/wording.h"

namespace hone {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string Names(const std::vector<Language>& languages) {
  std::string out;
  for (const auto& l : languages) out += (out.empty() ? "" : ", ") + l.name;
  return out.empty() ? "none" : out;
}

}  // namespace

bool LanguageRun::RunsOn(std::string_view device) const { return Contains(devices, device); }

const LanguageRule* LanguageLint::Rule(std::string_view rule) const {
  for (const auto& r : rules)
    if (r.name == rule) return &r;
  return nullptr;
}

void LanguageRegistry::Register(Language language) {
  HONE_CHECK(!language.name.empty() && !language.source.extensions.empty() &&
                 !language.source.fences.empty(),
             "a language needs a name, an extension and a code fence");
  for (auto& l : languages_)
    if (l.name == language.name) {
      l = std::move(language);
      return;
    }
  languages_.push_back(std::move(language));
}

const Language* LanguageRegistry::Find(std::string_view name) const {
  const std::string key = Lower(name);
  for (const auto& l : languages_)
    if (l.name == key || Contains(l.aliases, key)) return &l;
  return nullptr;
}

Result<const Language*> LanguageRegistry::Get(std::string_view name) const {
  if (const Language* l = Find(name)) return l;
  return Status::Invalid("unknown language '" + std::string(name) +
                         "' (known: " + Names(languages_) + ")");
}

Result<const Language*> LanguageRegistry::ForSource(const std::filesystem::path& file,
                                                    std::string_view source) const {
  const std::string ext = Lower(file.extension().string());
  const Language* fallback = nullptr;  // the extension's language that claims no text
  int sharing = 0;
  for (const auto& l : languages_) {
    if (!Contains(l.source.extensions, ext)) continue;
    ++sharing;
    if (!l.source.claims) {
      if (!fallback) fallback = &l;
    } else if (l.source.claims(source)) {
      return &l;
    }
  }
  if (fallback) return fallback;
  if (sharing > 0)
    return Status::Invalid(file.string() + ": no language takes this " + ext +
                           " file's text (known: " + Names(languages_) + ")");
  return Status::Invalid(file.string() + ": " +
                         (ext.empty() ? std::string("no extension")
                                      : "unknown extension '" + file.extension().string() + "'") +
                         "; a candidate is " + ExtensionsText());
}

Result<const Language*> LanguageRegistry::ForFile(const std::filesystem::path& file) const {
  const std::string ext = Lower(file.extension().string());
  bool text_decides = false;
  for (const auto& l : languages_)
    if (Contains(l.source.extensions, ext) && l.source.claims) text_decides = true;
  if (!text_decides) return ForSource(file, "");
  HONE_ASSIGN_OR_RETURN(std::string source, ReadFile(file));
  return ForSource(file, source);
}

bool LanguageRegistry::KnowsExtension(std::string_view extension) const {
  const std::string ext = Lower(extension);
  for (const auto& l : languages_)
    if (Contains(l.source.extensions, ext)) return true;
  return false;
}

const Language* LanguageRegistry::NativeFor(std::string_view device) const {
  for (const auto& l : languages_)
    if (!l.run.modelnew() && l.run.RunsOn(device)) return &l;
  return nullptr;
}

bool LanguageRegistry::IsModelNew(const std::filesystem::path& file) const {
  auto language = ForFile(file);
  return language.ok() && (*language)->run.modelnew();
}

std::vector<const Language*> LanguageRegistry::ForFence(std::string_view tag) const {
  std::vector<const Language*> out;
  const std::string key = Lower(tag);
  for (const auto& l : languages_)
    if (Contains(l.source.fences, key)) out.push_back(&l);
  return out;
}

std::string LanguageRegistry::ExtensionsText() const {
  // Languages that share an extension are named together: ".py (a
  // KernelBench ModelNew file: load_inline CUDA/C++ or Triton)".
  std::vector<std::pair<std::string, std::string>> groups;  // extensions -> labels
  for (const auto& l : languages_) {
    const std::string exts = OneOf(l.source.extensions);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == exts; });
    if (it == groups.end())
      groups.emplace_back(exts, l.label);
    else
      it->second += " or " + l.label;
  }
  std::string out;
  for (size_t i = 0; i < groups.size(); ++i)
    out += (i == 0                   ? ""
            : i + 1 == groups.size() ? " or "
                                     : ", ") +
           ("a " + groups[i].first + " file (" + groups[i].second + ")");
  return out;
}

std::vector<std::string> LanguageRegistry::KernelDecorators() const {
  std::vector<std::string> out;
  for (const auto& l : languages_)
    for (const auto& d : l.loading.kernel_decorators)
      if (!Contains(out, d)) out.push_back(d);
  return out;
}

std::vector<const LanguageRule*> LanguageRegistry::AllRules() const {
  std::vector<const LanguageRule*> out;
  for (const auto& l : languages_)
    for (const auto& r : l.lint.rules)
      if (std::none_of(out.begin(), out.end(),
                       [&](const LanguageRule* o) { return o->name == r.name; }))
        out.push_back(&r);
  return out;
}

bool LanguageRegistry::IsRule(std::string_view name) const {
  for (const auto& l : languages_)
    if (l.lint.Rule(name)) return true;
  return false;
}

LintOutcome JudgeFindings(const Language& language, const std::vector<LintFinding>& findings,
                          const std::set<std::string>& allowed) {
  LintOutcome out;
  for (const LintFinding& f : findings) {
    const LanguageRule* rule = language.lint.Rule(f.rule);
    if (allowed.count(f.rule) ||
        (rule && !rule->allowed_by.empty() && allowed.count(rule->allowed_by)))
      continue;
    if (rule && rule->severity == LanguageRule::Severity::kWarn) {
      out.warnings.push_back(f);
    } else if (!out.rejection) {
      out.rejection = f;
    }
  }
  return out;
}

}  // namespace hone
