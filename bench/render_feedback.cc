// Renders the feedback turn a search would send after a verdict, from the
// verdict's JSON (`hone eval --json`) and the prompt templates: how
// docs/PROMPTS.md's complete feedback turn was made, and a way to preview
// an edited template directory.
//   render_feedback VERDICT.json [PROMPTS_DIR]
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/fs.h"
#include "lang/builtin.h"
#include "search/prompt.h"
#include "verify/verdict_json.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: render_feedback VERDICT.json [PROMPTS_DIR]\n");
    return 2;
  }
  std::filesystem::path source = HONE_BENCH_SOURCE_DIR;
  auto text = hone::ReadFile(argv[1]);
  if (!text.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], text.status().message().c_str());
    return 2;
  }
  auto json = nlohmann::json::parse(*text, nullptr, false);
  auto verdict = hone::VerdictFromJson(json);
  if (!verdict.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], verdict.status().message().c_str());
    return 2;
  }
  auto prompts = hone::PromptBuilder::Load(argc > 2 ? argv[2] : source / "prompts",
                                           source / "include", hone::BuiltInLanguages());
  if (!prompts.ok()) {
    std::fprintf(stderr, "%s\n", prompts.status().message().c_str());
    return 2;
  }
  std::printf("%s\n", prompts->FeedbackTurn(*verdict).c_str());
  return 0;
}
