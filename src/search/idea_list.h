// The optimisation ideas in an LLM reply, for the tree strategy
// (search/tree_strategy.h), and the form two ideas are compared in.
//
// The prompt (prompts/ideas.txt) asks for a numbered list in a fenced block
// tagged `ideas`; replies are often sloppier, so the parser also takes an
// untagged fence, a list with no fence at all, bullets instead of numbers,
// an item's wrapped lines and nested bullets (joined to their item),
// markdown bold, and as a last resort plain paragraphs. Code blocks are
// never read as ideas. Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

// At most this many bytes of one idea are kept (cut at a word, with "...").
inline constexpr size_t kMaxIdeaChars = 400;

// The reply's ideas in order, each on one line, with duplicates (equal
// NormalizeIdea) dropped; at most `max_ideas`. Empty when the reply has
// none.
std::vector<std::string> ParseIdeas(std::string_view reply, size_t max_ideas);

// An idea as compared for "the same idea again": lower case, every run of
// characters other than ASCII letters and digits made one space, trimmed.
std::string NormalizeIdea(std::string_view idea);

}  // namespace hone
