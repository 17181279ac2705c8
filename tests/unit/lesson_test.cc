// Distilling lessons from a run's attempts, describing what changed between
// two sources, and ranking stored lessons for a task.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "search/extract.h"
#include "search/lesson_distil.h"
#include "search/lesson_recall.h"
#include "search/source_change.h"

namespace hone {
namespace {

using json = nlohmann::json;

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const char* kPlain = R"(#include <hone/kernel.h>
HONE_EXPORT int hone_forward(const hone_args* args) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
  return 0;
}
)";

const char* kThreaded = R"(#include <hone/kernel.h>
#include <immintrin.h>
HONE_EXPORT int hone_forward(const hone_args* args) {
  #pragma omp parallel for
  for (int64_t i = 0; i < n; i += 8) _mm256_storeu_ps(out + i, _mm256_add_ps(x, y));
  return 0;
}
)";

TEST(SourceChangeTest, NamesTechniquesAddedAndDroppedAndCountsLines) {
  EXPECT_TRUE(SourceTechniques(kPlain).empty());
  EXPECT_EQ(SourceTechniques(kThreaded),
            (std::vector<std::string>{"OpenMP threads", "AVX intrinsics"}));
  SourceChange c = DescribeChange(kPlain, kThreaded);
  EXPECT_EQ(c.added, (std::vector<std::string>{"OpenMP threads", "AVX intrinsics"}));
  EXPECT_TRUE(c.removed.empty());
  EXPECT_EQ(c.lines_before, 5);
  EXPECT_EQ(c.lines_after, 7);
  EXPECT_EQ(c.lines_added, 3);  // the include, the pragma, the loop
  EXPECT_EQ(c.lines_removed, 1);
  EXPECT_EQ(SourceChangeText(c), "adds OpenMP threads, AVX intrinsics; +3/-1 lines (5 -> 7)");
  SourceChange back = DescribeChange(kThreaded, kPlain);
  EXPECT_EQ(back.removed, c.added);
  EXPECT_EQ(SourceChangeText(DescribeChange(kPlain, kPlain)), "");
}

TEST(ReplyProseTest, KeepsTheWordsOutsideTheCode) {
  std::string reply = std::string("I fused the two passes\ninto one.\n\n```cpp\n") + kPlain +
                      "```\n\nIt reads x once.";
  EXPECT_EQ(ReplyProse(reply, 200), "I fused the two passes into one. It reads x once.");
  EXPECT_EQ(ReplyProse(reply, 20), "I fused the two...");
  EXPECT_EQ(ReplyProse(kPlain, 200), "") << "a reply that is all code says nothing";
  EXPECT_EQ(ReplyProse("Just words.", 200), "Just words.");
}

AttemptFacts Passed(int seq, double speedup, std::vector<int> parents = {}) {
  AttemptFacts f;
  f.candidate_id = 100 + seq;
  f.evaluation_id = 200 + seq;
  f.seq = seq;
  f.parents = std::move(parents);
  f.kind = "refine";
  f.source = kPlain;
  f.reply = "A kernel.";
  f.speedup = speedup;
  f.sol_percent = 10 * speedup;
  f.resolved = true;
  f.median_us = 100 / speedup;
  f.ci_low_us = 0.99 * 100 / speedup;
  f.ci_high_us = 1.01 * 100 / speedup;
  f.ref_median_us = 100;
  f.timed_case = "N=4096";
  return f;
}

LessonSubject Subject() {
  LessonSubject s;
  s.run_id = 7;
  s.task_hash = "abc123";
  s.signature.name = "fixture_add";
  s.signature.category = "elementwise";
  s.signature.backend = "cpu";
  s.signature.dtypes = {"f32"};
  s.reference_source = kPlain;
  return s;
}

TEST(DistilLessonsTest, TheBestAgainstTheReferenceAndTheLargestStepsAgainstTheirParents) {
  AttemptFacts best = Passed(2, 3.0, {1});
  best.source = kThreaded;
  best.reply = "Threads and AVX.\n```cpp\nx\n```";
  best.tuned_params = "BLOCK=128";
  std::vector<AttemptFacts> run = {Passed(0, 0.5), Passed(1, 1.0, {0}), best, Passed(3, 1.05, {2}),
                                   Passed(4, 0.9, {0})};
  std::vector<LessonRow> lessons = DistilLessons(Subject(), run);
  ASSERT_EQ(lessons.size(), 3u);

  const LessonRow& ref = lessons[0];
  EXPECT_EQ(ref.basis, "reference");
  EXPECT_EQ(ref.run_id, 7);
  EXPECT_EQ(ref.task_hash, "abc123");
  EXPECT_EQ(ref.task_name, "fixture_add");
  EXPECT_EQ(ref.category, "elementwise");
  EXPECT_EQ(ref.backend, "cpu");
  EXPECT_EQ(ref.candidate_id, 102);
  EXPECT_FALSE(ref.basis_candidate_id);
  EXPECT_DOUBLE_EQ(ref.speedup_before, 1);
  EXPECT_DOUBLE_EQ(ref.speedup_after, 3);
  ASSERT_TRUE(ref.sol_before && ref.sol_after);
  EXPECT_DOUBLE_EQ(*ref.sol_before, 10);  // the reference's: 30% / 3
  EXPECT_DOUBLE_EQ(*ref.sol_after, 30);
  EXPECT_TRUE(Contains(ref.change, "adds OpenMP threads, AVX intrinsics")) << ref.change;
  EXPECT_TRUE(Contains(ref.change, "tuned BLOCK=128")) << ref.change;
  EXPECT_TRUE(Contains(ref.change, "the model said: \"Threads and AVX.\"")) << ref.change;
  json evidence = json::parse(ref.evidence);
  EXPECT_EQ(evidence["seq"], 2);
  EXPECT_EQ(evidence["evaluation_id"], 202);
  EXPECT_EQ(evidence["timed_case"], "N=4096");
  EXPECT_EQ(json::parse(ref.signature)["category"], "elementwise");

  // Steps, the largest gains first: 1.0 -> 3.0 (seq 2 over 1), 0.5 -> 1.0
  // (seq 1 over 0). 0.5 -> 0.9 (seq 4 over 0) is a gain too, but the third;
  // 3.0 -> 1.05 (seq 3) is a loss.
  EXPECT_EQ(lessons[1].basis, "parent");
  EXPECT_EQ(lessons[1].candidate_id, 102);
  EXPECT_EQ(lessons[1].basis_candidate_id, 101);
  EXPECT_DOUBLE_EQ(lessons[1].speedup_before, 1.0);
  EXPECT_DOUBLE_EQ(lessons[1].speedup_after, 3.0);
  EXPECT_DOUBLE_EQ(*lessons[1].sol_before, 10);
  EXPECT_EQ(json::parse(lessons[1].evidence)["basis_seq"], 1);
  EXPECT_EQ(lessons[2].candidate_id, 101);
  EXPECT_DOUBLE_EQ(lessons[2].speedup_before, 0.5);
}

TEST(DistilLessonsTest, NothingWorthLearningGivesNoLesson) {
  EXPECT_TRUE(DistilLessons(Subject(), {}).empty());
  // Faster than the reference, but not by 10%; a step of 5%.
  EXPECT_TRUE(DistilLessons(Subject(), {Passed(0, 1.0), Passed(1, 1.05, {0})}).empty());
  // A large speedup the measurements cannot resolve.
  AttemptFacts unresolved = Passed(0, 2.0);
  unresolved.resolved = false;
  EXPECT_TRUE(DistilLessons(Subject(), {unresolved}).empty());
  // Resolved, but the interval reaches below a 10% gain.
  AttemptFacts unsure = Passed(0, 1.3);
  unsure.speedup_low = 1.02;
  EXPECT_TRUE(DistilLessons(Subject(), {unsure}).empty());
  unsure.speedup_low = 1.12;
  EXPECT_EQ(DistilLessons(Subject(), {unsure}).size(), 1u);
  // A step whose median intervals overlap is noise.
  AttemptFacts parent = Passed(0, 0.5), child = Passed(1, 0.6, {0});
  child.ci_high_us = *parent.ci_low_us + 1;
  EXPECT_TRUE(DistilLessons(Subject(), {parent, child}).empty());
}

TEST(DistilLessonsTest, CrossoverIsMeasuredAgainstItsFasterParent) {
  AttemptFacts child = Passed(2, 2.4, {0, 1});
  child.resolved = false;  // no lesson against the reference
  auto lessons = DistilLessons(Subject(), {Passed(0, 0.5), Passed(1, 2.0), child});
  ASSERT_EQ(lessons.size(), 1u);
  EXPECT_EQ(lessons[0].basis_candidate_id, 101);
  EXPECT_DOUBLE_EQ(lessons[0].speedup_before, 2.0);
}

TEST(FactsOfTest, OnlyAPassedTimedAttemptWithASource) {
  CandidateWithEvaluation row;
  row.candidate.id = 5;
  row.candidate.seq = 3;
  row.candidate.parents = {1};
  row.candidate.source = kPlain;
  row.candidate.reply = "r";
  EXPECT_FALSE(FactsOf(row)) << "no evaluation";
  EvaluationRow e;
  e.id = 9;
  e.state = "finished";
  e.status = "passed";
  e.speedup = 2.5;
  e.sol_percent = 40;
  e.cand_median_us = 4;
  e.verdict = R"({"timing": {"case": "N=7", "speedup_resolved": true,
                             "speedup_interval": [2.25, 2.75]},
                  "tuning": {"params": "U=4"},
                  "profile": {"diagnosis": {"label": "near the memory ceiling"}}})";
  row.evaluation = e;
  auto f = FactsOf(row);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->candidate_id, 5);
  EXPECT_EQ(f->evaluation_id, 9);
  EXPECT_EQ(f->seq, 3);
  EXPECT_EQ(f->parents, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(f->speedup, 2.5);
  EXPECT_TRUE(f->resolved);
  EXPECT_EQ(f->speedup_low, 2.25);
  EXPECT_EQ(f->timed_case, "N=7");
  EXPECT_EQ(f->tuned_params, "U=4");
  EXPECT_EQ(f->profile_label, "near the memory ceiling");
  row.evaluation->status = "incorrect";
  EXPECT_FALSE(FactsOf(row));
  row.evaluation->status = "passed";
  row.evaluation->speedup.reset();  // not timed
  EXPECT_FALSE(FactsOf(row));
}

LessonRow Stored(int64_t id, int64_t run, const std::string& category, double after,
                 const std::string& backend = "cpu") {
  LessonRow l;
  l.id = id;
  l.run_id = run;
  l.task_name = "t" + std::to_string(id);
  l.category = category;
  l.backend = backend;
  TaskSignature s;
  s.category = category;
  s.backend = backend;
  s.dtypes = {"f32"};
  s.input_ranks = {1};
  s.output_ranks = {1};
  s.elements = 1 << 12;
  s.bytes = 8 << 12;
  s.flops = 1 << 12;
  l.signature = SignatureToJson(s).dump();
  l.speedup_after = after;
  l.change = "adds OpenMP threads";
  return l;
}

TEST(RankLessonsTest, SimilarOnTheSameBackendMostSimilarThenLargestGainAtMostTwoPerRun) {
  TaskSignature task = SignatureFromJson(json::parse(Stored(0, 0, "elementwise", 1).signature));
  std::vector<LessonRow> stored = {Stored(1, 10, "elementwise", 2.0),
                                   Stored(2, 10, "elementwise", 5.0),
                                   Stored(3, 10, "elementwise", 3.0),  // a third from run 10
                                   Stored(4, 11, "matmul", 9.0),       // unrelated
                                   Stored(5, 12, "elementwise", 1.5, "cuda"),  // another backend
                                   Stored(6, 13, "elementwise", 1.2)};
  auto ranked = RankLessons(stored, task, RecallOptions{});
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].lesson.id, 2);
  EXPECT_EQ(ranked[1].lesson.id, 3);
  EXPECT_EQ(ranked[2].lesson.id, 6) << "run 10 gave two already";
  EXPECT_DOUBLE_EQ(ranked[0].similarity, 1.0);
  RecallOptions one;
  one.limit = 1;
  EXPECT_EQ(RankLessons(stored, task, one).size(), 1u);
  task.category = "matmul";
  task.flops = *task.flops * 1000;
  auto unrelated = RankLessons(stored, task, RecallOptions{});
  ASSERT_EQ(unrelated.size(), 1u);
  EXPECT_EQ(unrelated[0].lesson.id, 4);
}

TEST(LessonPromptLineTest, SaysWhereItWasLearntTheGainAndTheChange) {
  LessonRow l = Stored(1, 10, "elementwise", 3.0);
  l.task_name = "fixture_add";
  l.sol_before = 10;
  l.sol_after = 30;
  std::string line = LessonPromptLine({l, 0.834});
  EXPECT_EQ(line,
            "fixture_add (elementwise, f32; similarity 0.83): the best kernel ran 3.00x faster "
            "than the task's reference, SOL 10.0% -> 30.0%. What changed: adds OpenMP threads");
  l.basis = "parent";
  l.speedup_before = 0.5;
  l.sol_before.reset();
  EXPECT_TRUE(Contains(LessonPromptLine({l, 1}),
                       "one change took a kernel from 0.50x to 3.00x the reference's speed. "))
      << LessonPromptLine({l, 1});
  l.evidence = R"({"profile_before": "underutilised, memory-bound",
                   "profile_after": "near the memory ceiling"})";
  EXPECT_TRUE(Contains(LessonPromptLine({l, 1}),
                       "3.00x the reference's speed, profiler: underutilised, memory-bound -> near "
                       "the memory ceiling. "))
      << LessonPromptLine({l, 1});
}

TEST(LessonDistilTest, KeepsTheProfilerDiagnosesOfAStep) {
  AttemptFacts before = Passed(0, 1.0), after = Passed(1, 3.0, {0});
  before.profile_label = "underutilised, memory-bound";
  after.profile_label = "near the memory ceiling";
  std::vector<LessonRow> lessons = DistilLessons(Subject(), {before, after});
  bool step = false;
  for (const auto& l : lessons) {
    auto e = nlohmann::json::parse(l.evidence);
    EXPECT_EQ(e.value("profile_after", ""), "near the memory ceiling") << l.evidence;
    if (l.basis == "parent") {
      step = true;
      EXPECT_EQ(e.value("profile_before", ""), "underutilised, memory-bound") << l.evidence;
    }
  }
  EXPECT_TRUE(step) << "a 3x step from its parent is a lesson";
}

}  // namespace
}  // namespace hone
