#include "search/extract.h"

#include <gtest/gtest.h>

#include <string>

#include "lang/builtin.h"

namespace hone {
namespace {

// A backend's own language: "cpu" -> C++, "cuda" -> CUDA C++.
const Language& L(std::string_view backend) { return *BuiltInLanguages().NativeFor(backend); }

const char* kKernel =
    "#include <hone/kernel.h>\n"
    "HONE_EXPORT int hone_forward(const hone_args* args) {\n"
    "  return 0;\n"
    "}\n";

Extraction Ok(std::string_view reply, std::string_view backend = "cpu") {
  Extraction e = ExtractCode(reply, L(backend), false);
  EXPECT_EQ(e.failure, ExtractFailure::kNone) << e.detail;
  EXPECT_FALSE(e.detail.empty());
  return e;
}

TEST(ExtractTest, NamesTheFailures) {
  EXPECT_EQ(ExtractFailureName(ExtractFailure::kNone), "none");
  EXPECT_EQ(ExtractFailureName(ExtractFailure::kNoCode), "no_code");
  EXPECT_EQ(ExtractFailureName(ExtractFailure::kTruncated), "truncated");
}

TEST(ExtractTest, OneTaggedBlockWithProseAround) {
  std::string reply = std::string("Here is a faster kernel.\n\n```cpp\n") + kKernel +
                      "```\n\nIt vectorises the loop.\n";
  EXPECT_EQ(Ok(reply).code, kKernel);
}

TEST(ExtractTest, FenceWithoutTagAndTildeFences) {
  EXPECT_EQ(Ok(std::string("```\n") + kKernel + "```").code, kKernel);
  EXPECT_EQ(Ok(std::string("~~~c++\n") + kKernel + "~~~\n").code, kKernel);
}

TEST(ExtractTest, AcceptsEveryCommonTag) {
  for (const char* tag : {"cuda", "cu", "c++", "cpp", "c", "CUDA", "cpp title=kernel.cu"}) {
    Extraction e = Ok(std::string("```") + tag + "\n" + kKernel + "```\n", "cuda");
    EXPECT_EQ(e.code, kKernel) << tag;
  }
}

TEST(ExtractTest, PrefersTheBlockThatDefinesHoneForward) {
  std::string helper =
      "// a long helper that only declares and calls the entry point\n"
      "int hone_forward(const hone_args* args);\n"
      "int main() { return hone_forward(nullptr); }\n"
      "// padding padding padding padding padding padding padding padding\n";
  std::string reply = "Helper:\n```cpp\n" + helper + "```\nKernel:\n```\n" + kKernel +
                      "```\nBuild with:\n```bash\nnvcc -O3 kernel.cu\n```\n";
  Extraction e = Ok(reply);
  EXPECT_EQ(e.code, kKernel);
  EXPECT_NE(e.detail.find("block 2 of 3"), std::string::npos) << e.detail;
  EXPECT_NE(e.detail.find("defines its entry point"), std::string::npos) << e.detail;
}

TEST(ExtractTest, ElseTheLongestBlockInTheBackendsLanguage) {
  std::string cuda = "__global__ void k(float* y) { y[0] = 1; }\n";
  std::string reply = "```cuda\n" + cuda +
                      "```\n```python\n# a much longer block in another language, not C++ or "
                      "CUDA, padding padding\nprint(1)\n```\n";
  EXPECT_EQ(Ok(reply, "cuda").code, cuda);
  // A cuda block is not the CPU backend's language: the longest block wins there.
  EXPECT_NE(Ok(reply, "cpu").code.find("print(1)"), std::string::npos);
}

TEST(ExtractTest, ElseTheLongestBlock) {
  std::string reply = "```text\nshort\n```\n```text\na longer block\nof two lines\n```\n";
  EXPECT_EQ(Ok(reply).code, "a longer block\nof two lines\n");
}

TEST(ExtractTest, AllCodeWithoutFences) {
  EXPECT_EQ(Ok(std::string("\n\n") + kKernel + "\n\n").code, kKernel);
  std::string no_include = "HONE_EXPORT int hone_forward(const hone_args* a) { return 0; }";
  EXPECT_EQ(Ok(no_include).code, no_include + "\n");
}

TEST(ExtractTest, StripsBlankLinesAroundTheCode) {
  std::string reply = std::string("```cpp\n\n  \n") + kKernel + "\n\n```\n";
  EXPECT_EQ(Ok(reply).code, kKernel);
}

TEST(ExtractTest, KeepsIndentationInsideTheCode) {
  std::string reply = "```cpp\n    int x;\n#include <a>\n```\n";
  EXPECT_EQ(Ok(reply).code, "    int x;\n#include <a>\n");
}

TEST(ExtractTest, CrlfLineEndings) {
  std::string reply =
      "Sure.\r\n\r\n```cuda\r\n#include <hone/kernel.h>\r\nint x;\r\n```\r\nDone.\r\n";
  Extraction e = Ok(reply, "cuda");
  EXPECT_EQ(e.code, "#include <hone/kernel.h>\nint x;\n");
  EXPECT_EQ(e.code.find('\r'), std::string::npos);
}

TEST(ExtractTest, FenceMarkersInsideProseAreNotFences) {
  std::string reply = std::string(
                          "Reply with one ```cpp block, as asked; inline ```code``` too.\n"
                          "```cpp\n") +
                      kKernel + "```\n";
  EXPECT_EQ(Ok(reply).code, kKernel);
  // A line that starts with inline code between backticks opens no block.
  reply = std::string("```hone_forward``` is the entry point.\n```cpp\n") + kKernel + "```\n";
  EXPECT_EQ(Ok(reply).code, kKernel);
}

TEST(ExtractTest, IndentedFenceIsDedented) {
  std::string reply = "1. The kernel:\n   ```cpp\n   int a;\n     int b;\n   ```\n";
  EXPECT_EQ(Ok(reply).code, "int a;\n  int b;\n");
}

TEST(ExtractTest, LongerFenceContainsShorterOne) {
  std::string reply = "````markdown\n```cpp\nint x;\n```\n````\n";
  EXPECT_EQ(Ok(reply).code, "```cpp\nint x;\n```\n");
}

TEST(ExtractTest, FenceClosedOnTheLastCodeLine) {
  std::string reply = "```cpp\nint f() { return 1; }```\nprose\n";
  EXPECT_EQ(Ok(reply).code, "int f() { return 1; }\n");
}

TEST(ExtractTest, UnterminatedFenceIsTruncated) {
  std::string reply = std::string("Here you go:\n```cuda\n") + kKernel;
  Extraction e = ExtractCode(reply, L("cuda"), false);
  EXPECT_EQ(e.failure, ExtractFailure::kTruncated);
  EXPECT_TRUE(e.code.empty());
  EXPECT_NE(e.detail.find("not closed"), std::string::npos) << e.detail;
}

TEST(ExtractTest, TruncatedByTheLimitIsNeverUsable) {
  std::string complete = std::string("```cpp\n") + kKernel + "```\n";
  Extraction e = ExtractCode(complete, L("cpu"), true);
  EXPECT_EQ(e.failure, ExtractFailure::kTruncated);
  EXPECT_TRUE(e.code.empty());
  EXPECT_NE(e.detail.find("token limit"), std::string::npos) << e.detail;

  e = ExtractCode(std::string("```cpp\n") + kKernel, L("cpu"), true);
  EXPECT_EQ(e.failure, ExtractFailure::kTruncated);
  EXPECT_NE(e.detail.find("not closed"), std::string::npos) << e.detail;

  e = ExtractCode("Let me think about the memory hierarchy first...", L("cpu"), true);
  EXPECT_EQ(e.failure, ExtractFailure::kTruncated);
}

TEST(ExtractTest, NoCodeQuotesTheStartOfTheReply) {
  std::string reply =
      "I cannot write this kernel\nbecause the task is ambiguous. Could you clarify the layout "
      "of the input tensor and whether it is contiguous?";
  Extraction e = ExtractCode(reply, L("cpu"), false);
  EXPECT_EQ(e.failure, ExtractFailure::kNoCode);
  EXPECT_TRUE(e.code.empty());
  EXPECT_NE(e.detail.find("\"I cannot write this kernel because the task"), std::string::npos)
      << e.detail;
  EXPECT_EQ(e.detail.find("contiguous"), std::string::npos) << e.detail;  // ~80 chars only
  EXPECT_NE(e.detail.find("..."), std::string::npos) << e.detail;
  EXPECT_EQ(e.detail.find('\n'), std::string::npos) << e.detail;
}

TEST(ExtractTest, EmptyReplyAndEmptyBlocks) {
  EXPECT_EQ(ExtractCode("", L("cpu"), false).failure, ExtractFailure::kNoCode);
  EXPECT_EQ(ExtractCode("  \n\n", L("cuda"), false).failure, ExtractFailure::kNoCode);
  Extraction e = ExtractCode("```cpp\n\n```\n#include is mentioned here", L("cpu"), false);
  EXPECT_EQ(e.failure, ExtractFailure::kNoCode);
  EXPECT_NE(e.detail.find("empty"), std::string::npos) << e.detail;
}

TEST(ExtractTest, QuotesMultibyteTextWithoutSplittingCharacters) {
  std::string reply(79, 'a');
  reply += "\xC3\xA9\xC3\xA9 and more prose";  // e-acute straddles the 80-byte cut
  Extraction e = ExtractCode(reply, L("cpu"), false);
  ASSERT_EQ(e.failure, ExtractFailure::kNoCode);
  EXPECT_NE(e.detail.find(std::string(79, 'a') + "...\""), std::string::npos) << e.detail;
}

}  // namespace
}  // namespace hone

namespace hone {
namespace {

const char* kModelNew =
    "import torch\n"
    "import triton\n"
    "class ModelNew(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        return x\n";

TEST(ExtractTest, AModelNewFileIsTheBlockThatDefinesModelNew) {
  const Language& triton = *BuiltInLanguages().Find("triton");
  std::string reply = std::string("The kernel:\n```python\n@triton.jit\ndef k(x): pass\n```\n") +
                      "and the module:\n```python\n" + kModelNew + "```\n";
  Extraction e = ExtractCode(reply, triton, false);
  ASSERT_EQ(e.failure, ExtractFailure::kNone) << e.detail;
  EXPECT_EQ(e.code, kModelNew);
  EXPECT_NE(e.detail.find("block 2 of 2"), std::string::npos) << e.detail;
}

TEST(ExtractTest, AnUnfencedModelNewReplyIsCode) {
  Extraction e = ExtractCode(kModelNew, *BuiltInLanguages().Find("triton"), false);
  ASSERT_EQ(e.failure, ExtractFailure::kNone) << e.detail;
  EXPECT_EQ(e.code, kModelNew);
}

TEST(ExtractTest, APythonBlockIsTheLongestInTritonsFenceWithoutModelNew) {
  std::string reply = "```cpp\nint x;\n```\n```python\nimport triton\nx = 1\ny = 2\n```\n";
  Extraction e = ExtractCode(reply, *BuiltInLanguages().Find("triton"), false);
  ASSERT_EQ(e.failure, ExtractFailure::kNone) << e.detail;
  EXPECT_EQ(e.code, "import triton\nx = 1\ny = 2\n");
  EXPECT_NE(e.detail.find("the longest in Triton"), std::string::npos) << e.detail;
}

}  // namespace
}  // namespace hone
