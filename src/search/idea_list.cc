#include "search/idea_list.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace hone {
namespace {

struct Line {
  size_t indent = 0;
  std::string_view text;  // without the indent
};

std::vector<Line> LinesOf(std::string_view s) {
  std::vector<Line> out;
  while (!s.empty()) {
    size_t nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t indent = line.find_first_not_of(" \t");
    out.push_back({indent == std::string_view::npos ? 0 : indent,
                   indent == std::string_view::npos ? std::string_view() : line.substr(indent)});
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

bool IsFence(std::string_view text) { return text.starts_with("```") || text.starts_with("~~~"); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The tag of an opening fence ("```ideas" -> "ideas").
std::string FenceTag(std::string_view text) {
  text.remove_prefix(text.find_first_not_of("`~"));
  size_t start = text.find_first_not_of(" \t{.");
  if (start == std::string_view::npos) return "";
  text.remove_prefix(start);
  return Lower(text.substr(0, text.find_first_of(" \t}")));
}

struct Fenced {
  std::string tag;
  std::vector<Line> lines;
};

// The reply split into its fenced blocks and the lines outside them.
void SplitFences(const std::vector<Line>& lines, std::vector<Fenced>& blocks,
                 std::vector<Line>& outside) {
  std::optional<Fenced> open;
  for (const Line& l : lines) {
    if (IsFence(l.text)) {
      if (open) {
        blocks.push_back(std::move(*open));
        open.reset();
      } else {
        open = Fenced{FenceTag(l.text), {}};
      }
      continue;
    }
    (open ? open->lines : outside).push_back(l);
  }
  if (open) blocks.push_back(std::move(*open));  // unterminated: still read it
}

// The text after a list marker ("1.", "2)", "3:", "-", "*", "+", "•"), or
// nullopt when the line is not a list item.
std::optional<std::string_view> ItemText(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  // "1. x", "2) x", "3: x"; not "1.5x faster".
  if (digits > 0 && digits + 1 < text.size() &&
      std::string_view(".):").find(text[digits]) != std::string_view::npos &&
      (text[digits + 1] == ' ' || text[digits + 1] == '\t'))
    return text.substr(digits + 2);
  for (std::string_view bullet : {"- ", "* ", "+ ", "\u2022 "})
    if (text.starts_with(bullet)) return text.substr(bullet.size());
  return std::nullopt;
}

// List items: a marker at the outermost indent starts one; deeper items
// and wrapped lines join it; a blank line or text at the outer indent that
// is not an item ends it.
std::vector<std::string> ListItems(const std::vector<Line>& lines) {
  std::vector<std::string> items;
  std::optional<size_t> outer;
  bool in_item = false;
  for (const Line& l : lines) {
    if (l.text.empty()) {
      in_item = false;
      continue;
    }
    auto item = ItemText(l.text);
    if (item && (!outer || l.indent <= *outer)) {
      outer = outer ? *outer : l.indent;
      items.emplace_back(*item);
      in_item = true;
    } else if (!items.empty() && (in_item || (outer && l.indent > *outer))) {
      items.back() += ' ';
      items.back() += item ? *item : l.text;
      in_item = true;
    }
  }
  return items;
}

// Paragraphs (blank-line separated), except those that only introduce
// something (ending in ':').
std::vector<std::string> Paragraphs(const std::vector<Line>& lines) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    while (!current.empty() && std::isspace(static_cast<unsigned char>(current.back())))
      current.pop_back();
    if (!current.empty() && current.back() != ':') out.push_back(current);
    current.clear();
  };
  for (const Line& l : lines) {
    if (l.text.empty()) {
      flush();
      continue;
    }
    if (!current.empty()) current += ' ';
    current += l.text;
  }
  flush();
  return out;
}

// A paragraph that only frames the reply ("Here is ...", "Sure!"), no idea.
bool FramesTheReply(const std::string& paragraph) {
  static const char* const kOpenings[] = {"here is",   "here are",  "here's",   "sure",
                                          "certainly", "of course", "below is", "below are"};
  const std::string lower = Lower(paragraph.substr(0, 16));
  for (const char* opening : kOpenings)
    if (lower.rfind(opening, 0) == 0) return true;
  return false;
}

// "Idea 2: text" -> "text".
std::string_view WithoutIdeaPrefix(std::string_view s) {
  if (Lower(s.substr(0, 5)) != "idea ") return s;
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon > 9) return s;
  s.remove_prefix(colon + 1);
  size_t start = s.find_first_not_of(' ');
  return start == std::string_view::npos ? std::string_view() : s.substr(start);
}

// One line: bold markers and an "Idea 2:" prefix dropped, white space
// collapsed, at most kMaxIdeaChars bytes.
std::string Clean(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    // Bold ("**x**"); "__" is left alone: identifiers such as __restrict__ have it.
    if (text[i] == '*' && i + 1 < text.size() && text[i + 1] == '*') {
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    out += text[i];
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out = std::string(WithoutIdeaPrefix(out));
  if (out.size() > kMaxIdeaChars) {
    size_t cut = out.rfind(' ', kMaxIdeaChars - 3);
    if (cut == std::string::npos || cut < kMaxIdeaChars / 2) cut = kMaxIdeaChars - 3;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

// Where the ideas are: the block tagged `ideas`, else the first fenced
// block that is a list (and not code in the backend's language), else the
// lines outside every fence.
std::vector<std::string> Candidates(std::string_view reply) {
  std::vector<Fenced> blocks;
  std::vector<Line> outside;
  SplitFences(LinesOf(reply), blocks, outside);
  for (const Fenced& b : blocks)
    if (b.tag == "ideas") return ListItems(b.lines);
  for (const Fenced& b : blocks)
    if (b.tag.empty() || b.tag == "text" || b.tag == "markdown" || b.tag == "md")
      if (auto items = ListItems(b.lines); !items.empty()) return items;
  if (auto items = ListItems(outside); !items.empty()) return items;
  // A reply with code and no list answered with a kernel, not ideas: its
  // prose frames the code ("Here is a kernel for this task.").
  if (!blocks.empty()) return {};
  std::vector<std::string> paragraphs = Paragraphs(outside);
  std::erase_if(paragraphs, FramesTheReply);
  return paragraphs;
}

}  // namespace

std::string NormalizeIdea(std::string_view idea) {
  std::string out;
  for (char c : idea) {
    if (std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> ParseIdeas(std::string_view reply, size_t max_ideas) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& raw : Candidates(reply)) {
    if (out.size() >= max_ideas) break;
    std::string idea = Clean(raw);
    std::string key = NormalizeIdea(idea);
    if (key.empty() || !seen.insert(key).second) continue;
    out.push_back(std::move(idea));
  }
  return out;
}

}  // namespace hone
