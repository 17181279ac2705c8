#include "search/extract.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "lang/entry_points.h"

namespace hone {
namespace {

// An opening code fence: three or more backticks or tildes, maybe indented,
// then an info string whose first word is the language tag.
struct Fence {
  char marker = '`';
  size_t length = 0;
  size_t indent = 0;
  std::string tag;  // lower case, "" when absent
};

struct Block {
  std::string tag;
  std::string code;  // the lines between the fences, joined with '\n'
};

// Every fenced block of a reply, in order; `unclosed` when the reply ends
// inside one.
struct Scan {
  std::vector<Block> blocks;
  bool unclosed = false;
};

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

size_t LeadingWhitespace(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// "\r\n" and a lone "\r" become "\n".
std::string NormalizeNewlines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\r') {
      out += s[i];
    } else if (i + 1 >= s.size() || s[i + 1] != '\n') {
      out += '\n';
    }
  }
  return out;
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  while (!s.empty()) {
    size_t nl = s.find('\n');
    lines.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return lines;
}

// "{.cpp}", "C++ title=x.cu" -> "cpp", "c++".
std::string TagOf(std::string_view info) {
  size_t start = info.find_first_not_of(" \t{.");
  if (start == std::string_view::npos) return "";
  size_t end = info.find_first_of(" \t}", start);
  std::string tag(info.substr(start, end == std::string_view::npos ? end : end - start));
  for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tag;
}

size_t MarkerRun(std::string_view s, size_t from, char marker) {
  size_t i = from;
  while (i < s.size() && s[i] == marker) ++i;
  return i - from;
}

// A fence opens only at the start of a line (after indentation), so a run of
// backticks inside a sentence is prose. As in CommonMark, a backtick fence's
// info string holds no backtick ("```x```" on one line is inline code).
std::optional<Fence> ParseOpening(std::string_view line) {
  Fence f;
  f.indent = LeadingWhitespace(line);
  if (f.indent >= line.size() || (line[f.indent] != '`' && line[f.indent] != '~')) return {};
  f.marker = line[f.indent];
  f.length = MarkerRun(line, f.indent, f.marker);
  if (f.length < 3) return {};
  std::string_view info = line.substr(f.indent + f.length);
  if (f.marker == '`' && info.find('`') != std::string_view::npos) return {};
  f.tag = TagOf(info);
  return f;
}

bool IsClosing(std::string_view line, const Fence& f) {
  size_t at = LeadingWhitespace(line);
  size_t run = MarkerRun(line, at, f.marker);
  return run >= f.length && IsBlank(line.substr(at + run));
}

// Some models close a block on the last line of code ("}```"). Returns the
// line without that closing run, or nullopt when the line does not end so.
// Only used when no proper closing line follows.
std::optional<std::string_view> BeforeTrailingFence(std::string_view line, const Fence& f) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
    line.remove_suffix(1);
  size_t run = 0;
  while (run < line.size() && line[line.size() - 1 - run] == f.marker) ++run;
  if (run < f.length || IsBlank(line.substr(0, line.size() - run))) return {};
  return line.substr(0, line.size() - run);
}

// A content line with up to the fence's indentation removed.
std::string_view Dedent(std::string_view line, size_t indent) {
  size_t n = std::min(indent, LeadingWhitespace(line));
  return line.substr(n);
}

std::string JoinLines(const std::vector<std::string_view>& lines, size_t begin, size_t end,
                      size_t indent) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    out += Dedent(lines[i], indent);
    out += '\n';
  }
  return out;
}

// Index of the line that closes the block opened at `open`, or npos.
size_t FindClosing(const std::vector<std::string_view>& lines, size_t open, const Fence& f) {
  for (size_t i = open + 1; i < lines.size(); ++i)
    if (IsClosing(lines[i], f)) return i;
  return std::string_view::npos;
}

// Reads the block opened at line `open`; returns the index after it, or
// npos when the block is never closed.
size_t ReadBlock(const std::vector<std::string_view>& lines, size_t open, const Fence& f,
                 Scan& scan) {
  size_t close = FindClosing(lines, open, f);
  if (close != std::string_view::npos) {
    scan.blocks.push_back({f.tag, JoinLines(lines, open + 1, close, f.indent)});
    return close + 1;
  }
  for (size_t i = open + 1; i < lines.size(); ++i) {
    std::optional<std::string_view> last = BeforeTrailingFence(lines[i], f);
    if (!last) continue;
    std::string code = JoinLines(lines, open + 1, i, f.indent);
    code += Dedent(*last, f.indent);
    scan.blocks.push_back({f.tag, code + "\n"});
    return i + 1;
  }
  scan.unclosed = true;
  return std::string_view::npos;
}

Scan FindBlocks(const std::string& text) {
  Scan scan;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size();) {
    std::optional<Fence> f = ParseOpening(lines[i]);
    if (!f) {
      ++i;
      continue;
    }
    i = ReadBlock(lines, i, *f, scan);
  }
  return scan;
}

bool InLanguage(const std::string& tag, const Language& language) {
  return std::find(language.source.fences.begin(), language.source.fences.end(), tag) !=
         language.source.fences.end();
}

// The longest non-blank block that satisfies `want`, or nullptr.
template <typename Pred>
const Block* Longest(const std::vector<Block>& blocks, Pred want) {
  const Block* best = nullptr;
  for (const Block& b : blocks)
    if (!IsBlank(b.code) && want(b) && (!best || b.code.size() > best->code.size())) best = &b;
  return best;
}

// The block to use, and why it was chosen (for the detail line).
std::pair<const Block*, std::string> Choose(const std::vector<Block>& blocks,
                                            const Language& language) {
  auto entry = [&](const Block& x) {
    return language.source.defines_entry && language.source.defines_entry(x.code);
  };
  if (const Block* b = Longest(blocks, entry)) return {b, "defines its entry point"};
  if (const Block* b = Longest(blocks, [&](const Block& x) { return InLanguage(x.tag, language); }))
    return {b, "the longest in " + language.label + "; it does not define its entry point"};
  return {Longest(blocks, [](const Block&) { return true; }),
          "the longest block; none is tagged " + language.source.fence()};
}

// The code without blank lines before or after it, ending in one newline.
std::string StripBlankLines(std::string_view code) {
  std::vector<std::string_view> lines = SplitLines(code);
  size_t begin = 0, end = lines.size();
  while (begin < end && IsBlank(lines[begin])) ++begin;
  while (end > begin && IsBlank(lines[end - 1])) --end;
  return JoinLines(lines, begin, end, 0);
}

// The first ~80 characters of the reply on one line, for a detail.
std::string Opening(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() <= 80) return out;
  size_t cut = 80;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return out.substr(0, cut) + "...";
}

bool LooksLikeCode(std::string_view text) {
  return text.find("hone_forward") != std::string_view::npos ||
         text.find("#include") != std::string_view::npos || DefinesModelNew(text);
}

Extraction Fail(ExtractFailure f, std::string detail) { return {"", f, std::move(detail)}; }

Extraction FromBlocks(const Scan& scan, const Language& language) {
  auto [block, why] = Choose(scan.blocks, language);
  if (!block)
    return Fail(ExtractFailure::kNoCode,
                fmt::format("the reply's {} code block(s) are all empty", scan.blocks.size()));
  size_t index = static_cast<size_t>(block - scan.blocks.data()) + 1;
  std::string tag = block->tag.empty() ? "untagged" : "```" + block->tag;
  return {StripBlankLines(block->code), ExtractFailure::kNone,
          fmt::format("code block {} of {} ({}): {}", index, scan.blocks.size(), tag, why)};
}

Extraction NoCode(std::string_view text) {
  if (IsBlank(text)) return Fail(ExtractFailure::kNoCode, "the reply is empty");
  return Fail(ExtractFailure::kNoCode,
              fmt::format("no code block in the reply, which begins: \"{}\"", Opening(text)));
}

// The lines of `text` outside its fenced blocks (an unclosed block runs to
// the end).
std::string OutsideFences(const std::string& text) {
  std::vector<std::string_view> lines = SplitLines(text);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::optional<Fence> f = ParseOpening(lines[i])) {
      size_t close = FindClosing(lines, i, *f);
      if (close == std::string_view::npos) break;
      i = close;
      out += '\n';
      continue;
    }
    out += lines[i];
    out += '\n';
  }
  return out;
}

// At most `max_chars` bytes, cut at a space when one is near, never inside
// a UTF-8 sequence, with "..." when cut.
std::string CapWords(std::string s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = s.rfind(' ', max_chars);
  if (cut == std::string::npos || cut < max_chars / 2) cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  s.resize(cut);
  while (!s.empty() && (s.back() == ' ' || s.back() == ',' || s.back() == ':')) s.pop_back();
  return s + "...";
}

}  // namespace

std::string ReplyProse(std::string_view reply, size_t max_chars) {
  const std::string text = NormalizeNewlines(reply);
  if (FindBlocks(text).blocks.empty() && LooksLikeCode(text)) return "";
  std::string out;
  for (char c : OutsideFences(text)) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return CapWords(std::move(out), max_chars);
}

std::string ExtractFailureName(ExtractFailure f) {
  switch (f) {
    case ExtractFailure::kNone:
      return "none";
    case ExtractFailure::kNoCode:
      return "no_code";
    case ExtractFailure::kTruncated:
      return "truncated";
  }
  return "unknown";
}

Extraction ExtractCode(std::string_view reply, const Language& language, bool truncated_by_limit) {
  const std::string text = NormalizeNewlines(reply);
  const Scan scan = FindBlocks(text);
  if (scan.unclosed)
    return Fail(ExtractFailure::kTruncated,
                truncated_by_limit
                    ? "the reply stopped at the token limit inside a code block (the code block "
                      "was not closed)"
                    : "the code block was not closed: the reply ends inside it");
  const bool fenced = !scan.blocks.empty();
  if (truncated_by_limit)
    return Fail(ExtractFailure::kTruncated,
                fenced || LooksLikeCode(text)
                    ? "the reply stopped at the token limit, so its code may be incomplete"
                    : "the reply stopped at the token limit before any code");
  if (fenced) return FromBlocks(scan, language);
  if (LooksLikeCode(text))
    return {StripBlankLines(text), ExtractFailure::kNone, "the whole reply, which has no fences"};
  return NoCode(text);
}

}  // namespace hone
