// The prompts of the search, rendered from the text templates in prompts/
// (placeholders written {{name}}; docs/PROMPTS.md lists the templates and
// the placeholders each may use). Load checks every template against the
// placeholders it knows, so an unknown one is an error naming the file and
// the line at Load, and rendering afterwards cannot fail.
//
// What goes in: the contract the candidate's language is written to (the
// candidate contract, include/hone/kernel.h, or a KernelBench ModelNew
// module) and the language's worked example and rules (lang/language.h:
// Language::prompt), the task (description, the contract's argument list
// with shapes and dtypes, the shape cases, tolerances), the hardware (GPU
// name, SMs, L2, measured bandwidth and FP32 rate; or CPU model, cores, LLC,
// measured bandwidth and FMA rate), and for later turns the feedback on the
// previous candidate: trimmed compiler errors, the verifier's mismatch
// summary, timings, speedup, SOL %, compiler resource usage.
// Thread-safe after Load (const).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "lang/builtin.h"
#include "lang/language.h"
#include "measure/machine.h"
#include "search/extract.h"
#include "task/task.h"
#include "verify/verdict.h"

namespace hone {

// The reference's (or, for a PyTorch task, torch eager's) measured time on
// the timed case, when the search measured it first; 0: not measured.
struct ReferenceTiming {
  double seconds = 0;
  std::string what = "the reference";
};

// One evaluated candidate as later prompts show it.
struct PromptAttempt {
  std::string code;
  Verdict verdict;
};

// Tree strategy: what a call for ideas on one kernel shows besides the
// kernel, so the model neither repeats itself nor proposes what failed.
struct IdeaHistory {
  std::vector<std::string> applied;  // the ideas that led from the root to the kernel, in order
  // Ideas already tried, each with its outcome ("passed, 1.12x the speed of
  // the kernel it changed", "compile_error: ..."): those tried on this
  // kernel and those that failed anywhere in the search.
  std::vector<std::string> tried;
};

// At most this many lessons go into a prompt's "Lessons from similar tasks"
// section, each cut to about 600 characters.
inline constexpr size_t kMaxPromptLessons = 3;

// Replaces every {{name}} in `text` (spaces inside the braces allowed) with
// its value, in one pass: values are not searched for placeholders. A
// placeholder without a value, or "{{" without "}}", is Status::Invalid
// naming `file`, the line and the placeholder.
Result<std::string> RenderTemplate(std::string_view text,
                                   const std::map<std::string, std::string>& values,
                                   const std::string& file);

class PromptBuilder {
 public:
  // Reads every template in `dir` (prompts/ of the checkout by default:
  // FindPromptsDir in core/paths.h), each language's rules and example that
  // `languages` names, and the contract header from
  // `include_dir`/hone/kernel.h. Fails naming the file when one is missing
  // or a template uses a placeholder it does not know. Keeps a copy of
  // `languages`: a verdict's feedback is in its candidate's language.
  static Result<PromptBuilder> Load(const std::filesystem::path& dir,
                                    const std::filesystem::path& include_dir,
                                    const LanguageRegistry& languages);

  std::string System(const Language& language) const;
  // The first user message: contract, example, task (a native task's
  // reference source too), hardware, the reference's measured time, and
  // lessons from similar tasks (one line each, search/lesson_recall.h): a
  // section of its own only when there are some, at most kMaxPromptLessons.
  std::string FirstTurn(const Task& task, const Language& language, const MachineInfo& machine,
                        const ReferenceTiming& reference = {},
                        const std::vector<std::string>& lessons = {}) const;
  // A later turn of a refinement chain: what happened to the last candidate.
  std::string FeedbackTurn(const Verdict& v) const;
  // A later turn when no candidate came out of the reply at all.
  std::string ExtractionFailedTurn(const Extraction& e) const;
  // Evolution: the task's first turn plus parents with their results, asking
  // for one faster kernel (one parent: mutation; two: crossover).
  std::string EvolveTurn(const Task& task, const Language& language, const MachineInfo& machine,
                         const std::vector<PromptAttempt>& parents,
                         const ReferenceTiming& reference = {},
                         const std::vector<std::string>& lessons = {}) const;
  // Tree: the context, one kernel with its result and the ideas of
  // `history`, asking for `count` new optimisation ideas as a numbered list
  // (search/idea_list.h reads it) and no code.
  std::string IdeasTurn(const Task& task, const Language& language, const MachineInfo& machine,
                        const PromptAttempt& kernel, const IdeaHistory& history, int count,
                        const ReferenceTiming& reference = {},
                        const std::vector<std::string>& lessons = {}) const;
  // Tree: the context, one kernel with its result and one idea, asking for
  // the kernel with that idea applied.
  std::string IdeaTurn(const Task& task, const Language& language, const MachineInfo& machine,
                       const PromptAttempt& kernel, const std::string& idea,
                       const ReferenceTiming& reference = {},
                       const std::vector<std::string>& lessons = {}) const;
  // A content hash of every template and the contract header: which prompts
  // a stored reply answered.
  std::string version() const;

 private:
  // Renders a template Load checked; `values` holds all its placeholders.
  std::string Render(const std::string& stem,
                     const std::map<std::string, std::string>& values) const;
  static std::map<std::string, std::string> LanguageValues(const Language& language);
  // The language a verdict's candidate was written in (Verdict::language;
  // for an older verdict, its backend's native language).
  const Language& LanguageOf(const Verdict& v) const;
  // Contract, example, task, language rules, hardware and lessons: the start
  // of the first turn and of an evolution turn.
  std::string Context(const Task& task, const Language& language, const MachineInfo& machine,
                      const ReferenceTiming& reference,
                      const std::vector<std::string>& lessons) const;
  // The language's values, the context, and one kernel's code and result:
  // what the tree's templates share.
  std::map<std::string, std::string> KernelValues(const Task& task, const Language& language,
                                                  const MachineInfo& machine,
                                                  const PromptAttempt& kernel,
                                                  const ReferenceTiming& reference,
                                                  const std::vector<std::string>& lessons) const;
  // lessons.txt rendered after a blank line, or "" when there are none.
  std::string LessonsSection(const std::vector<std::string>& lessons) const;

  std::map<std::string, std::string> templates_;  // file stem -> text
  std::map<std::string, std::string> examples_;   // a language's example file -> its text
  std::string contract_;                          // kernel.h
  LanguageRegistry languages_;                    // whose prompts it renders
  std::filesystem::path dir_;
};

// The verdict as feedback text for a prompt. The candidate's file is named
// your_file.EXT, as the prompts name it, whatever it was called in the run
// (a prompt must not depend on which attempt number a reply got).
std::string FeedbackSummary(const Verdict& v);

}  // namespace hone
