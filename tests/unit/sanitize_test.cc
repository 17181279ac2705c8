// Reading compute-sanitizer's output back: counts, the first report, and
// why a run did not finish. The tool itself runs in the GPU tests.
#include "tools/sanitize.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "report/verdict_text.h"
#include "run/sanitize_stage.h"

namespace hone {
namespace {

TEST(SanitizerOutputTest, AMemcheckErrorIsCountedAndNamedWithItsKernel) {
  std::string out =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ read of size 4 bytes\n"
      "=========     at add2_kernel(const float *, const float *, float *, long)+0x1b0\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f0b1e601004 is out of bounds\n"
      "=========\n"
      "hone-sandbox: standalone call: ok\n"
      "========= ERROR SUMMARY: 1 error\n";
  auto t = ReadSanitizerOutput("memcheck", out, kSanitizerErrorExit, false);
  EXPECT_EQ(t.errors, 1);
  EXPECT_EQ(t.first,
            "Invalid __global__ read of size 4 bytes / at add2_kernel(const float *, const float "
            "*, float *, long)+0x1b0");
  EXPECT_EQ(t.failure, "");
}

TEST(SanitizerOutputTest, ACleanRunHasNoErrorsAndNoFailure) {
  auto t = ReadSanitizerOutput("initcheck",
                               "========= COMPUTE-SANITIZER\n"
                               "hone-sandbox: standalone call: ok\n"
                               "========= ERROR SUMMARY: 0 errors\n",
                               0, false);
  EXPECT_EQ(t.errors, 0);
  EXPECT_EQ(t.first, "");
  EXPECT_EQ(t.failure, "");
}

TEST(SanitizerOutputTest, RacecheckHazardsAreCountedFromItsSummary) {
  auto t = ReadSanitizerOutput(
      "racecheck",
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at add2_kernel+0x90\n"
      "=========     and Read access at add2_kernel+0xa0 [4 hazards]\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n",
      kSanitizerErrorExit, false);
  EXPECT_EQ(t.errors, 1);
  EXPECT_EQ(t.first.rfind("Error: Race reported between Write access", 0), 0u) << t.first;
}

TEST(SanitizerOutputTest, ACallThatCouldNotRunSaysWhatTheSandboxSaid) {
  auto t = ReadSanitizerOutput("memcheck",
                               "========= COMPUTE-SANITIZER\n"
                               "hone-sandbox: set-up failed: cudaSetDevice: no CUDA device\n"
                               "========= ERROR SUMMARY: 0 errors\n",
                               2, false);
  EXPECT_EQ(t.errors, 0);
  EXPECT_EQ(t.failure, "set-up failed: cudaSetDevice: no CUDA device");
  auto late = ReadSanitizerOutput("racecheck", "========= COMPUTE-SANITIZER\n", -1, true);
  EXPECT_EQ(late.failure, "timed out");
  auto silent = ReadSanitizerOutput("initcheck", "", 0, false);
  EXPECT_EQ(silent.failure, "no summary in compute-sanitizer's output");
}

TEST(SanitizerOutputTest, TheVerdictLineNamesEachToolAndWhyNothingRan) {
  Verdict::Sanitizer s;
  s.tools = {{"memcheck", 0, "", "", 1.0},
             {"racecheck", 2, "Error: Race reported", "", 1.0},
             {"initcheck", 0, "", "timed out", 120}};
  EXPECT_EQ(DescribeSanitizer(s),
            "memcheck: 0 errors; racecheck: 2 errors (Error: Race reported); initcheck: did not "
            "finish (timed out)");
  EXPECT_EQ(s.errors(), 2);
  Verdict::Sanitizer cpu;
  cpu.not_run = "compute-sanitizer checks CUDA candidates; this one runs on the CPU";
  EXPECT_EQ(DescribeSanitizer(cpu), "not run: " + cpu.not_run);
}

// Which candidates the tool runs on: a CUDA backend, a language it can run,
// and a ModelNew file only where it defines kernels of its own (one that
// passed without any had --allow library: all its work is PyTorch's).
TEST(SanitizerSkipTest, ACudaCandidateWithKernelsOfItsOwnIsChecked) {
  BackendTraits cuda;
  cuda.label = "GPU";
  cuda.sanitizer = true;
  Language modelnew;
  modelnew.label = "KernelBench ModelNew";
  modelnew.run.sanitizer = true;
  EXPECT_EQ(SanitizerSkipReason(cuda, modelnew, true, {"relu_kernel"}), "");
  // A native candidate is checked whatever kernels it defines.
  EXPECT_EQ(SanitizerSkipReason(cuda, modelnew, false, {}), "");
  EXPECT_EQ(SanitizerSkipReason(cuda, modelnew, true, {}),
            "the file defines no kernel of its own (its work is PyTorch's); compute-sanitizer "
            "checks a candidate's own kernels");
  BackendTraits cpu;
  EXPECT_EQ(SanitizerSkipReason(cpu, modelnew, true, {"k"}),
            "compute-sanitizer checks CUDA candidates; this one runs on the CPU");
  modelnew.run.sanitizer = false;
  EXPECT_EQ(SanitizerSkipReason(cuda, modelnew, true, {"k"}),
            "compute-sanitizer does not run KernelBench ModelNew candidates");
}

// Memcheck pads every allocation, so an access just past a tensor is in no
// allocation rather than in the next one (where memcheck saw nothing on an
// H200); the other tools are not padded.
// The kernel filter follows the tool's own options.
TEST(SanitizerCommandTest, MemcheckPadsEveryAllocation) {
  SanitizeJob job;
  job.compute_sanitizer = "/cuda/bin/compute-sanitizer";
  job.tool_args = CompatKernelFilter({"relu_only"});
  std::vector<std::string> memcheck = SanitizerCommand(job, "memcheck");
  auto padding = std::find(memcheck.begin(), memcheck.end(), "--padding");
  ASSERT_NE(padding, memcheck.end());
  EXPECT_EQ(*(padding + 1), std::to_string(kMemcheckPaddingBytes));
  EXPECT_EQ(memcheck.front(), "/cuda/bin/compute-sanitizer");
  EXPECT_EQ(std::vector<std::string>(memcheck.end() - 2, memcheck.end()),
            (std::vector<std::string>{"--kernel-name", "kns=relu_only"}));
  std::vector<std::string> racecheck = SanitizerCommand(job, "racecheck");
  EXPECT_EQ(std::find(racecheck.begin(), racecheck.end(), "--padding"), racecheck.end());
  EXPECT_NE(std::find(racecheck.begin(), racecheck.end(), "racecheck"), racecheck.end());
}

// A ModelNew file's own kernels, each its own filter: the tool checks a
// kernel any filter matches, so a bad access in the first of two kernels
// is found as well as one in the last (scripts/gpu-check-pytorch's
// several_kernels_oob_* files, on a GPU).
TEST(SanitizerSkipTest, EachOwnKernelIsItsOwnFilter) {
  EXPECT_EQ(CompatKernelFilter({"relu_only"}),
            (std::vector<std::string>{"--kernel-name", "kns=relu_only"}));
  EXPECT_EQ(CompatKernelFilter({"relu_only", "scale_only"}),
            (std::vector<std::string>{"--kernel-name", "kns=relu_only", "--kernel-name",
                                      "kns=scale_only"}));
  EXPECT_TRUE(CompatKernelFilter({}).empty());
}

}  // namespace
}  // namespace hone
