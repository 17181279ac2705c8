// A reference kind's words (task/reference_kind.h): what the prompts and
// `hone task show` say of a task because of its kind of reference. The
// problem a prompt shows (search/prompt.h), the lines around the argument
// list (task/task_text.h), the sizes of a one-line listing and the kind's
// part of the task's JSON.
//
// Owned by its kind, which lives for the whole process; const and
// thread-safe. Nothing here fails: a listing that cannot be made is none,
// a line with nothing to say is "". Asking about a task the kind does not
// claim is a programmer error.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "lang/language.h"
#include "task/task.h"

namespace hone {

// The problem as a prompt shows it after the task's description:
// "\n\n<intro>:\n```<fence>\n<source>\n```".
struct ProblemListing {
  std::string intro;     // one sentence saying what the source is and what to do with it
  std::string fence;     // the code fence's tag
  std::string source;    // the text shown
  bool may_cut = false;  // a long source is cut to the prompt's limit; else shown whole
};

class ReferenceText {
 public:
  virtual ~ReferenceText() = default;

  // The problem as a prompt for `language`'s candidates shows it; none when
  // there is nothing to show (a reference file that cannot be read).
  virtual std::optional<ProblemListing> Listing(const Task& task,
                                                const Language& language) const = 0;
  // A line said before the argument list of every case; "" for none (the
  // default).
  virtual std::string ArgumentsPreamble(const Task& task) const;
  // Where input `i` comes from, after its line ("  (forward argument)"); ""
  // when nothing is to be said (the default).
  virtual std::string InputOrigin(const Task& task, size_t i) const;
  // The sizes the problem ran with, for a one-line listing; "" when the
  // task's cases are all there is to say (the default).
  virtual std::string SizesText(const Task& task) const;
  // What `hone task show --json` adds to `j` for this kind; nothing by default.
  virtual void AddJson(const Task& task, nlohmann::json& j) const;
};

}  // namespace hone
