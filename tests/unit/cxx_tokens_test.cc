// hone's C++/CUDA tokenizer (cxx_tokens.h): the full, tolerant reading the
// lint matches its rules on (CxxSource), and the coarse, strict view
// cuda_split.h walks (Tokenize). The cases are what the lint's own lexer
// handled before it became this one: line splices, raw strings, character
// literals, comments around preprocessor lines, header names, digit
// separators, digraphs, and text no compiler would take.
#include "build/cxx_tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace hone {
namespace {

bool MessageHas(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// "kind:text@line" for each token: one readable line per case.
std::string KindName(TokenKind k) {
  switch (k) {
    case TokenKind::kIdentifier:
      return "id";
    case TokenKind::kNumber:
      return "num";
    case TokenKind::kString:
      return "str";
    case TokenKind::kCharacter:
      return "chr";
    case TokenKind::kHeaderName:
      return "hdr";
    case TokenKind::kPunct:
      return "p";
    case TokenKind::kDirective:
      return "dir";
  }
  return "?";
}

std::vector<std::string> Lexed(const CxxSource& src) {
  std::vector<std::string> out;
  for (const Token& t : src.tokens())
    out.push_back(KindName(t.kind) + ":" + std::string(t.text) + "@" + std::to_string(t.line));
  return out;
}

using Expected = std::vector<std::string>;

// ----------------------------------------------------------- Tokenize

TEST(CxxTokensTest, LaunchesCommentsStringsAndDirectives) {
  std::string src =
      "#define N 4 \\\n  + 1\n"
      "/* a */ #include <x.h>\n"
      "k<<<g, b>>>(R\"x(a)\" b)x\", 'c', 1.5e-3f); // done\n";
  auto tokens = Tokenize(src);
  ASSERT_TRUE(tokens.ok()) << tokens.status().message();
  std::vector<std::string> texts;
  for (const auto& t : *tokens) texts.emplace_back(t.text);
  ASSERT_GE(texts.size(), 5u);
  EXPECT_EQ(texts[0], "#define N 4 \\\n  + 1");
  EXPECT_EQ((*tokens)[1].kind, TokenKind::kDirective);
  EXPECT_EQ(IncludedHeader((*tokens)[1]), "x.h");
  EXPECT_EQ(texts[2], "k");
  EXPECT_EQ(texts[3], "<<<");
  EXPECT_EQ((*tokens)[2].line, 4);
  EXPECT_NE(std::find(texts.begin(), texts.end(), ">>>"), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "R\"x(a)\" b)x\""), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "1.5e-3f"), texts.end());
  EXPECT_EQ(DirectiveName((*tokens)[0]), "define");
}

TEST(CxxTokensTest, AnUnterminatedStringNamesItsLine) {
  auto tokens = Tokenize("int a;\nconst char* s = \"open;\n");
  ASSERT_FALSE(tokens.ok());
  EXPECT_TRUE(MessageHas(tokens.status().message(), "line 2")) << tokens.status().message();
}

TEST(CxxTokensTest, TokenizeRefusesWhatACompilerWould) {
  for (const char* bad : {"int a; /* never closed", "char c = 'x;\n", "auto s = R\"d(open", "\""}) {
    auto tokens = Tokenize(bad);
    ASSERT_FALSE(tokens.ok()) << bad;
    EXPECT_TRUE(MessageHas(tokens.status().message(), "unterminated")) << bad;
  }
}

TEST(CxxTokensTest, TokenizeOffsetsAndTextAreTheSources) {
  // A splice inside an identifier: one token, cut from the source as it is.
  const std::string src = "int fo\\\nx = 1;\n#if A \\\n  && B\n#endif\nchar c = '\"';\n";
  auto tokens = Tokenize(src);
  ASSERT_TRUE(tokens.ok()) << tokens.status().message();
  std::vector<std::string> texts;
  for (const Token& t : *tokens) {
    EXPECT_EQ(src.substr(t.begin, t.end - t.begin), t.text);
    texts.emplace_back(t.text);
  }
  EXPECT_EQ(texts, (Expected{"int", "fo\\\nx", "=", "1", ";", "#if A \\\n  && B", "#endif", "char",
                             "c", "=", "'\"'", ";"}));
  EXPECT_EQ((*tokens)[5].kind, TokenKind::kDirective);
  EXPECT_EQ((*tokens)[5].line, 3);
  EXPECT_EQ((*tokens)[6].line, 5);
  EXPECT_EQ((*tokens)[10].kind, TokenKind::kString);  // a character literal, to cuda_split
}

// ---------------------------------------------------------- CxxSource

TEST(CxxSourceTest, LineSplicesJoinTokensAndKeepLines) {
  const std::string text = "void f() {\n  fo\\\npen(\"x\");\n  a \\  \t\n+= 1;\n}\n";
  const CxxSource src(text);
  EXPECT_TRUE(src.status().ok());
  EXPECT_EQ(Lexed(src), (Expected{"id:void@1", "id:f@1", "p:(@1", "p:)@1", "p:{@1", "id:fopen@2",
                                  "p:(@3", "str:\"x\"@3", "p:)@3", "p:;@3", "id:a@4", "p:+=@5",
                                  "num:1@5", "p:;@5", "p:}@6"}));
  // Offsets are the spliced text's; SourceOffset maps them back.
  const Token& fopen = src.tokens()[5];
  EXPECT_EQ(src.text().substr(fopen.begin, fopen.end - fopen.begin), "fopen");
  EXPECT_EQ(text.substr(src.SourceOffset(fopen.begin), 2), "fo");
  EXPECT_EQ(text.substr(src.SourceOffset(fopen.begin + 2), 3), "pen");
  EXPECT_EQ(src.LineAt(fopen.begin + 2), 3);
}

TEST(CxxSourceTest, RawStrings) {
  const CxxSource src("auto a = R\"x(\nfopen(\"in\")\n)x\"; auto b = u8R\"(a)\"; int c;\n");
  ASSERT_TRUE(src.status().ok());
  const std::vector<Token>& t = src.tokens();
  ASSERT_EQ(t.size(), 13u) << ::testing::PrintToString(Lexed(src));
  EXPECT_EQ(t[3].kind, TokenKind::kString);
  EXPECT_EQ(t[3].body, "\nfopen(\"in\")\n");
  EXPECT_EQ(t[3].line, 1);
  EXPECT_EQ(t[4].line, 3);  // the ';' after it
  EXPECT_EQ(t[8].text, "u8R\"(a)\"");
  EXPECT_EQ(t[8].body, "a");
  // A splice cannot make the closing delimiter: the string runs on.
  const CxxSource spliced("auto s = R\"(a)\\\n\";\nfopen(\"x\");\n)\"; int d;");
  ASSERT_TRUE(spliced.status().ok());
  EXPECT_EQ(Lexed(spliced),
            (Expected{"id:auto@1", "id:s@1", "p:=@1", "str:R\"(a)\";\nfopen(\"x\");\n)\"@1",
                      "p:;@4", "id:int@4", "id:d@4", "p:;@4"}));
  // Not a delimiter (a space): a plain string with the prefix R.
  const CxxSource plain("auto s = R\"a b(\";");
  EXPECT_EQ(plain.tokens()[3].text, "R\"a b(\"");
  EXPECT_EQ(plain.tokens()[3].body, "a b(");
}

TEST(CxxSourceTest, CharacterLiteralsAndPrefixes) {
  const CxxSource src("int c = '\"'; wchar_t w = L'x'; auto s = u8\"fopen\"; char e = '\\'';");
  ASSERT_TRUE(src.status().ok());
  EXPECT_EQ(Lexed(src),
            (Expected{"id:int@1",     "id:c@1", "p:=@1", "chr:'\"'@1",        "p:;@1",
                      "id:wchar_t@1", "id:w@1", "p:=@1", "chr:L'x'@1",        "p:;@1",
                      "id:auto@1",    "id:s@1", "p:=@1", "str:u8\"fopen\"@1", "p:;@1",
                      "id:char@1",    "id:e@1", "p:=@1", "chr:'\\''@1",       "p:;@1"}));
  EXPECT_EQ(src.tokens()[3].body, "\"");
  EXPECT_EQ(src.tokens()[13].body, "fopen");
}

TEST(CxxSourceTest, DigitSeparatorsAndExponents) {
  const CxxSource src("int a = 1'000'000; double b = 1e+5, c = 0x1p-3, d = .5f; x = 1';");
  EXPECT_EQ(Lexed(src),
            (Expected{"id:int@1",    "id:a@1",    "p:=@1",        "num:1'000'000@1", "p:;@1",
                      "id:double@1", "id:b@1",    "p:=@1",        "num:1e+5@1",      "p:,@1",
                      "id:c@1",      "p:=@1",     "num:0x1p-3@1", "p:,@1",           "id:d@1",
                      "p:=@1",       "num:.5f@1", "p:;@1",        "id:x@1",          "p:=@1",
                      "num:1@1",     "chr:';@1"}));
  // A quote not followed by a digit or letter opens a character literal,
  // which the tolerant reading ends at the line's end.
  EXPECT_FALSE(src.status().ok());
}

TEST(CxxSourceTest, CommentsAreBlankSpace) {
  // A comment neither starts nor ends a line: the first '#' starts a
  // directive, the second does not (the comment's newline is not a line's end).
  const CxxSource src(
      "/* a */ #define X 1\nint a; /* b\n */ #define Y\n#if A /* c\n */ && B\n#endif\n");
  ASSERT_EQ(src.directives().size(), 3u);
  EXPECT_EQ(src.directives()[0].name, "define");
  EXPECT_EQ(src.directives()[1].name, "if");
  EXPECT_EQ(src.directives()[2].name, "endif");
  std::vector<std::string> in_if;
  for (size_t i = src.directives()[1].first; i < src.directives()[1].last; ++i)
    in_if.emplace_back(src.tokens()[i].text);
  EXPECT_EQ(in_if, (Expected{"#", "if", "A", "&&", "B"}));
  const Token& y = src.tokens()[src.directives()[0].last + 3];
  EXPECT_EQ(y.text, "#");
  EXPECT_EQ(y.directive, -1);
  EXPECT_EQ(y.line, 3);
  EXPECT_TRUE(src.status().ok());
}

TEST(CxxSourceTest, PreprocessorLines) {
  const CxxSource src(
      "#include <cuda/std/atomic>\n"
      "# include \"my.h\" // local\n"
      "#define MAX(a, b) \\\n  ((a) > (b) ? (a) : (b))\n"
      "#if a < b\n"
      "#endif\n"
      "## not a directive\n"
      "#\n"
      "int x;\n");
  const std::vector<CxxDirective>& d = src.directives();
  ASSERT_EQ(d.size(), 6u);
  std::vector<std::string> names;
  for (const CxxDirective& x : d) names.emplace_back(x.name);
  EXPECT_EQ(names, (Expected{"include", "include", "define", "if", "endif", ""}));
  const std::vector<Token>& t = src.tokens();
  // An include's operand is a header name; elsewhere '<' is a punctuator.
  EXPECT_EQ(t[d[0].first + 2].kind, TokenKind::kHeaderName);
  EXPECT_EQ(t[d[0].first + 2].body, "cuda/std/atomic");
  EXPECT_EQ(t[d[1].first + 2].kind, TokenKind::kString);
  EXPECT_EQ(t[d[1].first + 2].body, "my.h");
  EXPECT_EQ(t[d[3].first + 3].text, "<");
  EXPECT_EQ(t[d[3].first + 3].kind, TokenKind::kPunct);
  // A spliced directive is one line with the original line numbers.
  EXPECT_EQ(d[2].last - d[2].first, 25u);
  EXPECT_EQ(t[d[2].last - 1].line, 4);
  EXPECT_EQ(src.text().substr(d[2].begin, d[2].end - d[2].begin),
            "#define MAX(a, b)   ((a) > (b) ? (a) : (b))");
  // `##` at a line's start is pasting, not a directive.
  const Token& paste = t[d[4].last];
  EXPECT_EQ(paste.text, "##");
  EXPECT_EQ(paste.directive, -1);
  EXPECT_EQ(t[d[5].first].line, 8);
  EXPECT_EQ(t.back().directive, -1);
}

TEST(CxxSourceTest, DigraphsReadAsTheirPunctuators) {
  const CxxSource src("%:include <dlfcn.h>\nint a<:2:> = <%1%>; x<::y; a<<%b%>; %:%:\n");
  EXPECT_EQ(src.directives().size(), 1u);
  EXPECT_EQ(src.directives()[0].name, "include");
  std::vector<std::string> texts;
  for (const Token& t : src.tokens()) texts.emplace_back(t.text);
  EXPECT_EQ(texts, (Expected{"#", "include", "<dlfcn.h>", "int", "a", "[", "2",  "]", "=",
                             "{", "1",       "}",         ";",   "x", "<", "::", "y", ";",
                             "a", "<",       "{",         "b",   "}", ";", "##"}));
  EXPECT_EQ(src.tokens()[5].end - src.tokens()[5].begin, 2u);  // `<:` spans its two characters
}

TEST(CxxSourceTest, IdentifiersMayHoldDollarsAndNonAsciiBytes) {
  const CxxSource src("int $x = 1, caf\xc3\xa9 = 2;");
  EXPECT_EQ(Lexed(src), (Expected{"id:int@1", "id:$x@1", "p:=@1", "num:1@1", "p:,@1",
                                  "id:caf\xc3\xa9@1", "p:=@1", "num:2@1", "p:;@1"}));
}

TEST(CxxSourceTest, AnyTextIsReadWithTheFirstProblemKept) {
  const CxxSource unterminated("int a;\nconst char* s = \"open;\nfopen(1);\n/* and never closed");
  EXPECT_EQ(unterminated.status().message(), "line 2: unterminated string");
  // The string ends with its line: what follows is code again.
  std::vector<std::string> texts;
  for (const Token& t : unterminated.tokens()) texts.emplace_back(t.text);
  EXPECT_NE(std::find(texts.begin(), texts.end(), "fopen"), texts.end());
  for (const char* text : {"", "\\", "#", "R\"", "u8", "'", "%:%:<%%><::>", "a\\\n", "/*"}) {
    const CxxSource src(text);
    for (const Token& t : src.tokens()) {
      EXPECT_LE(t.begin, t.end) << text;
      EXPECT_LE(t.end, src.text().size()) << text;
    }
  }
  const std::string nul("a\0b", 3);
  EXPECT_EQ(Lexed(CxxSource(nul)),
            (Expected{"id:a@1", "id:b@1"}));  // NUL is blank, as GCC reads it
}

}  // namespace
}  // namespace hone
