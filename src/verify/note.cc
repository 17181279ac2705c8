#include "verify/note.h"

#include <array>
#include <ostream>
#include <utility>

namespace hone {
namespace {

constexpr std::array<std::pair<NoteKind, std::string_view>, 12> kNoteKindNames = {{
    {NoteKind::kOther, "other"},
    {NoteKind::kInput, "input"},
    {NoteKind::kLint, "lint"},
    {NoteKind::kBuild, "build"},
    {NoteKind::kSandbox, "sandbox"},
    {NoteKind::kMemory, "memory"},
    {NoteKind::kPrecision, "precision"},
    {NoteKind::kTiming, "timing"},
    {NoteKind::kSharedDevice, "shared_device"},
    {NoteKind::kBaseline, "baseline"},
    {NoteKind::kSanitizer, "sanitizer"},
    {NoteKind::kParts, "parts"},
}};

}  // namespace

std::string_view NoteKindName(NoteKind kind) {
  for (const auto& [k, name] : kNoteKindNames)
    if (k == kind) return name;
  return "other";
}

std::optional<NoteKind> ParseNoteKind(std::string_view name) {
  for (const auto& [k, n] : kNoteKindNames)
    if (n == name) return k;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, const Note& note) {
  return out << '[' << NoteKindName(note.kind) << "] " << note.text;
}

}  // namespace hone
