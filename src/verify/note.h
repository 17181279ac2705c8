// A verdict's note: what a reader should know beside the status and the
// reason (how the timing went, what the memory plan shrank, what the
// sanitizer found), typed by what it is about. Code that keeps or passes on
// some notes (the sanitizer's, when a second evaluation's findings join the
// first verdict) picks them by kind, never by matching their words; the
// words are for people and for the model's feedback.
//
// A verdict's JSON keeps its notes as the list of texts it always had
// ("notes") and adds their kinds beside them ("note_kinds"), so readers of
// the texts are unchanged; a verdict stored before notes had kinds reads
// back with NoteKind::kOther. Plain values; thread-safe.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace hone {

enum class NoteKind {
  kOther,         // read from a verdict stored before notes had kinds
  kInput,         // how hone read the candidate (the file it wrote for it)
  kLint,          // a static rule's warning, or the static lint skipped
  kBuild,         // what was built or loaded: extensions, JIT kernels, calls left to the sandbox
  kSandbox,       // the sandboxes themselves (warm sandboxes off)
  kMemory,        // the memory plan: what shrank to fit the device
  kPrecision,     // the float64 precision reference: where it was cut or skipped
  kTiming,        // how the timing went: held calls, stops, processes, tolerated stalls
  kSharedDevice,  // other processes or lanes on the device, and retries for them
  kBaseline,      // the eager and torch.compile baselines
  kSanitizer,     // compute-sanitizer's findings
  kParts,         // a multi-part task: the parts and their mean
};

struct Note {
  NoteKind kind = NoteKind::kOther;
  std::string text;
  bool operator==(const Note&) const = default;
};

// "timing", "shared_device", ...: the JSON and store name of a kind.
std::string_view NoteKindName(NoteKind kind);
// The kind of a name; nullopt for a name no kind has.
std::optional<NoteKind> ParseNoteKind(std::string_view name);

// "[timing] timed in 4 sandbox processes ...": for test failures and logs.
std::ostream& operator<<(std::ostream& out, const Note& note);

}  // namespace hone
