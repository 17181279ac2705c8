#include "verify/note_words.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

// Users, tests and the model's feedback read these sentences back: a changed
// word fails here first.
TEST(NoteWordsTest, EachNoteHasItsKindAndItsWords) {
  EXPECT_EQ(notes::WarmSandboxesOff("no zygote"),
            (Note{NoteKind::kSandbox, "warm sandboxes are off: no zygote"}));
  EXPECT_EQ(notes::StaticLintSkipped(),
            (Note{NoteKind::kLint, "static lint skipped: only the run-time checks apply"}));
  EXPECT_EQ(notes::EvaluatedAs("/tmp/x.cu"),
            (Note{NoteKind::kInput, "evaluated as /tmp/x.cu, the file hone wrote for it"}));
  EXPECT_EQ(notes::EvaluationNotDecided(1, 3, "the GPU was busy"),
            (Note{NoteKind::kSharedDevice, "evaluation 1 of 3 was not decided: the GPU was busy"}));
}

TEST(NoteWordsTest, NumbersAreWordedLikeEveryOtherMessage) {
  EXPECT_EQ(notes::MemoryPlanUnderCap(2'000'000'000, 8'000'000'000, 4'000'000'000),
            (Note{NoteKind::kMemory,
                  "memory plan: peak 2.00 GB of 8.00 GB (capped at 4.00 GB by --memory-cap or "
                  "HONE_MEMORY_CAP)"}));
  EXPECT_EQ(notes::MemoryCapWords(0), "");
  EXPECT_EQ(notes::Float64Cut(2, 1.5, 1.0).text,
            "precision check (float64) on the first 2 value set(s) only: the float64 forward "
            "took 1.50 s (over 1.00 s); the later sets are checked against the task's own "
            "reference alone");
  EXPECT_EQ(notes::TimingStopped("precise", 40, true, 5),
            (Note{NoteKind::kTiming,
                  "timing stopped: precise after 40 interleaved repetitions and 5 warm-up calls"}));
  EXPECT_EQ(notes::SanitizerFound("racecheck", 1, "").text,
            "compute-sanitizer racecheck found 1 error");
  EXPECT_EQ(notes::SanitizerFound("memcheck", 2, "bad read").text,
            "compute-sanitizer memcheck found 2 errors: bad read");
}

TEST(NoteWordsTest, HeldCallsSayNothingWhenEveryCallWasHeld) {
  EXPECT_EQ(notes::HeldCallsWords("the candidate", 10, 10, -1), "");
  EXPECT_EQ(notes::HeldCalls("the candidate", 7, 10, -1),
            (Note{NoteKind::kTiming, "the candidate: 7 of 10 timing calls held"}));
}

TEST(NoteWordsTest, BaselinesSayHowTheyWereTimed) {
  EXPECT_EQ(notes::BaselinesTimed(false, false, 0, "H100", "2.5").text,
            "baselines timed now, after the candidate, on H100 with torch 2.5 (the task's Model "
            "in a sandbox, timed like candidates; speedup = baseline median / candidate median)");
  EXPECT_EQ(notes::BaselinesTimed(true, false, 12, "H100", "2.5").text,
            "baselines read from the cache, the eager one timed again now beside the candidate, "
            "interleaved, on H100 with torch 2.5 (the task's Model in a sandbox, timed like "
            "candidates; speedup = the median over interleaved repetitions of eager / candidate, "
            "12 pairs)");
}

// The candidate's verdict reads why an early evaluation's baselines were not
// cached from that evaluation's note: the reading and the writing agree.
TEST(NoteWordsTest, TheBaselinesNotCachedNoteIsReadBackByItsReason) {
  const Note cache_full = notes::BaselinesNotCached("disk full");
  EXPECT_EQ(cache_full, (Note{NoteKind::kBaseline, "the baselines were not cached: disk full"}));
  EXPECT_EQ(notes::BaselinesNotCachedReason(cache_full), "disk full");
  EXPECT_EQ(notes::BaselinesNotCachedReason(notes::NoEagerBaseline("disk full")), std::nullopt);
  EXPECT_EQ(notes::BaselinesNotCachedReason({NoteKind::kTiming, cache_full.text}), std::nullopt);

  EXPECT_EQ(notes::BaselinesBesideBuild(3.04, std::nullopt).text,
            "the problem's baselines were timed while the candidate's extensions compiled "
            "(3.0 s), and cached");
  EXPECT_EQ(notes::BaselinesBesideBuild(3.04, "disk full").text,
            "the problem's baselines were timed while the candidate's extensions compiled "
            "(3.0 s), and not kept: disk full");
  const auto host_bound = notes::BaselinesNotCachedReason(notes::BaselinesNotCachedBesideABuild());
  EXPECT_EQ(notes::BaselinesBesideBuild(3.04, host_bound).text,
            "the problem's baselines were timed while the candidate's extensions compiled "
            "(3.0 s), and not kept: their calls are host-bound, so they were timed again after "
            "the candidate");
}

TEST(NoteWordsTest, ACallLeftToTheSandboxSaysWhereAndWhy) {
  EXPECT_EQ(
      notes::BuildsInSandbox("load_inline", "", 12, "module", "cuda_sources: calls open(...)"),
      (Note{NoteKind::kBuild,
            "load_inline('?') at line 12 builds inside the sandbox at import (hone could "
            "not read its arguments before it runs: cuda_sources: calls open(...))"}));
  EXPECT_EQ(notes::JitKernelsCompiled({}), std::nullopt);
}

}  // namespace
}  // namespace hone
