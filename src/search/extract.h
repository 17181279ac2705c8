// Pulls the candidate source out of an LLM reply.
//
// Copes with several fenced blocks (prefers the one that defines the
// language's entry point, hone_forward or ModelNew; else the longest in the
// language), fences with or
// without a language tag, prose around the code, and replies that are all
// code without fences. A reply cut off by the token limit, or with an
// unterminated fence, is a named failure (kTruncated), never a crash; a
// reply with no code at all is kNoCode. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lang/language.h"

namespace hone {

enum class ExtractFailure { kNone, kNoCode, kTruncated };
std::string ExtractFailureName(ExtractFailure f);  // "none", "no_code", "truncated"

struct Extraction {
  std::string code;  // empty unless failure == kNone
  ExtractFailure failure = ExtractFailure::kNone;
  std::string detail;  // one line for the feedback and the run record
};

// `language`: what the reply was asked for (lang/language.h: its fences and
// entry point); truncated_by_limit: the API said the reply stopped at its
// token limit.
Extraction ExtractCode(std::string_view reply, const Language& language, bool truncated_by_limit);

// What the reply says besides its code: the text outside its fenced blocks
// on one line (runs of white space made one space), at most about
// `max_chars` bytes, cut at a word with "..."; "" for a reply that is all
// code.
std::string ReplyProse(std::string_view reply, size_t max_chars);

}  // namespace hone
