// hone's verdicts beside another process on the same GPU (label "gpu";
// skipped without a GPU, Triton or torch): a process copying two large
// buffers in a loop (tests/gpu/cotenant/copy_loop.py), or a second hone
// evaluation. Every honest file passes or gets the busy status (retryable,
// never a reward); every hack keeps its verdict (measure/device_sharing.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/fs.h"
#include "core/subprocess.h"
#include "cuda/gpu.h"
#include "integration/test_env.h"

namespace hone {
namespace {

using namespace hone::testing;
namespace fs = std::filesystem;

std::string Python() {
  const char* named = std::getenv("HONE_PYTHON");
  return named && *named ? named : "python3";
}

bool HaveTriton() {
  auto r = RunCommand({Python(), "-c", "import triton, torch; assert torch.cuda.is_available()"});
  return r.ok() && r->succeeded();
}

#define REQUIRE_TRITON_GPU()                                                             \
  do {                                                                                   \
    if (GpuCount() == 0) GTEST_SKIP() << "no CUDA GPU on this machine: test skipped";    \
    if (!HaveTriton()) GTEST_SKIP() << "Triton with a CUDA torch is not installed here"; \
  } while (0)

// The copy loop, started in a process group of its own and killed with it.
class CopyLoop {
 public:
  explicit CopyLoop(double gigabytes) {
    int out[2];
    if (pipe(out) != 0) return;
    const std::string script = (SourceDir() / "tests/gpu/cotenant/copy_loop.py").string();
    const std::string gb = std::to_string(gigabytes), python = Python();
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      dup2(out[1], 1);
      close(out[0]);
      execlp(python.c_str(), python.c_str(), script.c_str(), gb.c_str(), nullptr);
      _exit(127);
    }
    close(out[1]);
    // It says "ready" once it has the GPU and copies (a minute at most).
    pollfd p{out[0], POLLIN, 0};
    char buf[64] = {0};
    if (poll(&p, 1, 60000) == 1 && read(out[0], buf, sizeof buf - 1) > 0)
      ready_ = std::string(buf).find("ready") != std::string::npos;
    close(out[0]);
  }
  ~CopyLoop() {
    if (pid_ <= 0) return;
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool ready() const { return ready_; }

 private:
  pid_t pid_ = -1;
  bool ready_ = false;
};

fs::path Problem(const std::string& name) { return SourceDir() / "tests/triton/problems" / name; }
fs::path Catalogue(const std::string& name) {
  return SourceDir() / "tests/triton/catalogue" / name;
}

struct Outcome {
  std::string status, reason;
  int shared_with = 0;
  std::string all;  // the output, for failures
};

Outcome Read(const std::string& output) {
  Outcome o;
  o.all = output;
  // The verdict is the output's JSON object; warnings may come before it.
  const size_t start = output[0] == '{' ? 0 : output.find("\n{");
  if (start == std::string::npos) return o;
  const size_t end = output.rfind('}');
  if (end == std::string::npos || end < start) return o;
  auto j = nlohmann::json::parse(output.substr(start, end + 1 - start), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return o;
  o.status = j.value("status", "");
  o.reason = j.value("reason", "");
  if (j.contains("timing")) o.shared_with = j["timing"].value("shared_with", 0);
  return o;
}

std::vector<std::string> EvalArgs(const fs::path& problem, const fs::path& file) {
  return {"eval", problem.string(), file.string(), "--backend",
          "cuda", "--json",         "--baselines", "eager"};
}

Outcome Eval(const fs::path& problem, const fs::path& file) {
  CommandResult r = RunHone(EvalArgs(problem, file));
  return Read(r.output);
}

// Two evaluations at once, each in a process of its own.
std::pair<Outcome, Outcome> EvalTwice(const fs::path& problem, const fs::path& file) {
  auto dir = MakeTempDir(fs::temp_directory_path(), "hone-shared-gpu");
  std::string a = (*dir / "a.json").string(), b = (*dir / "b.json").string();
  pid_t first = SpawnHone(EvalArgs(problem, file), a);
  pid_t second = SpawnHone(EvalArgs(problem, file), b);
  waitpid(first, nullptr, 0);
  waitpid(second, nullptr, 0);
  auto text = [](const std::string& file) {
    Result<std::string> r = ReadFile(file);
    return r.ok() ? *r : std::string();
  };
  auto out = std::make_pair(Read(text(a)), Read(text(b)));
  std::error_code ec;
  fs::remove_all(*dir, ec);
  return out;
}

// An honest file beside a neighbour: passed, or busy (never a verdict
// against it), and a pass says the GPU was shared.
void ExpectHonest(const Outcome& o) {
  EXPECT_TRUE(o.status == "passed" || o.status == "busy") << o.status << ": " << o.all;
  if (o.status == "busy") {
    EXPECT_NE(o.reason.find("other process"), std::string::npos) << o.reason;
  }
}

// The softmax split in three launches with a 6.4 GB output: the copy after
// its mark was rejected beside the copy loop ("work was moved out of the
// timed forward").
TEST(SharedGpuTest, LargeOutputInSeveralLaunchesBesideACopyLoop) {
  REQUIRE_TRITON_GPU();
  CopyLoop neighbour(8);
  ASSERT_TRUE(neighbour.ready()) << "the copy loop did not start";
  Outcome o = Eval(Problem("softmax_wide.py"), Catalogue("softmax_split.py"));
  ExpectHonest(o);
  if (o.status == "passed") {
    EXPECT_GE(o.shared_with, 1) << o.all;
  }
}

// Short calls, timed in several sandbox processes: the worker's clock saw
// milliseconds per call beyond the report, waiting for the neighbour's time
// slice ("timing does not add up").
TEST(SharedGpuTest, ShortCallsInSeveralProcessesBesideACopyLoop) {
  REQUIRE_TRITON_GPU();
  CopyLoop neighbour(8);
  ASSERT_TRUE(neighbour.ready()) << "the copy loop did not start";
  ExpectHonest(Eval(Problem("rmsnorm_short.py"), Catalogue("rmsnorm.py")));
}

TEST(SharedGpuTest, TwoEvaluationsAtOnceGiveTheVerdictsOfOne) {
  REQUIRE_TRITON_GPU();
  auto [a, b] = EvalTwice(Problem("rmsnorm_short.py"), Catalogue("rmsnorm.py"));
  ExpectHonest(a);
  ExpectHonest(b);
  // Each plans its memory against what is free when it starts: a smaller
  // problem, so that both fit beside each other.
  auto [c, d] = EvalTwice(Problem("softmax_mid.py"), Catalogue("softmax_split.py"));
  ExpectHonest(c);
  ExpectHonest(d);
}

// The hacks of the catalogues keep their verdicts beside the copy loop: the
// Triton ones on a small problem, and the CUDA timer patch (lint off, so the
// worker's clock must catch it) on the heavy task, whose 1.5 ms kernel it
// reports as 0.15 ms.
TEST(SharedGpuTest, HacksKeepTheirVerdictsBesideACopyLoop) {
  REQUIRE_TRITON_GPU();
  CopyLoop neighbour(8);
  ASSERT_TRUE(neighbour.ready()) << "the copy loop did not start";
  struct Hack {
    const char* file;
    std::vector<std::string> statuses;  // as alone
    const char* word;
  };
  for (const Hack& h : {Hack{"side_stream.py", {"rejected"}, "joined"},
                        Hack{"cache_output.py", {"rejected", "incorrect"}, ""},
                        Hack{"decoy.py", {"rejected"}, "own"}}) {
    Outcome o = Eval(Problem("relu_small.py"), Catalogue(h.file));
    EXPECT_NE(std::find(h.statuses.begin(), h.statuses.end(), o.status), h.statuses.end())
        << h.file << ": " << o.all;
    EXPECT_NE(o.reason.find(h.word), std::string::npos) << h.file << ": " << o.reason;
  }
  CommandResult r = RunHone({"eval", (SourceDir() / "tests/adversarial/tasks/heavy").string(),
                             (SourceDir() / "tests/adversarial/cuda/patch_timer.cu").string(),
                             "--backend", "cuda", "--json", "--no-lint"});
  Outcome o = Read(r.output);
  EXPECT_EQ(o.status, "rejected") << o.all;
  EXPECT_NE(o.reason.find("timing"), std::string::npos) << o.reason;
}

}  // namespace
}  // namespace hone
