// OracleClient against the real oracle (python/hone_oracle.py) and the
// problems in python/tests/problems/. Skipped when no Python imports torch.
#include "task/oracle_client.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/fs.h"
#include "test_env.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

// The interpreter the first successful Start chose: later starts reuse it and
// skip the search (each --check imports torch, seconds on a loaded machine).
std::string& FoundPython() {
  static std::string python;
  return python;
}

OracleOptions TestOptions() {
  OracleOptions o;
  o.python = FoundPython();
  // From a copy of the tree (HONE_SOURCE_DIR), the copy's oracle; otherwise
  // the default (HONE_SOURCE_PYTHON_DIR), which this also tests.
  const char* e = std::getenv("HONE_SOURCE_DIR");
  if (e && *e) o.script = testing::SourceDir() / "python" / "hone_oracle.py";
  return o;
}

fs::path Problem(const std::string& name) {
  return testing::SourceDir() / "python" / "tests" / "problems" / name;
}

// Starting without a Python that imports torch is an environment limit, not
// a failure: the tests that need the oracle skip with the reason.
#define START_OR_SKIP(var, start_result)                                             \
  do {                                                                               \
    if (!(start_result).ok()) {                                                      \
      if ((start_result).status().code() == StatusCode::kUnavailable)                \
        GTEST_SKIP() << "oracle unavailable: " << (start_result).status().message(); \
      FAIL() << "oracle did not start: " << (start_result).status().message();       \
    }                                                                                \
    var = std::move(start_result).value();                                           \
  } while (0)

class OracleClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    start_ = new Result<std::unique_ptr<OracleClient>>(OracleClient::Start(TestOptions()));
    if (start_->ok()) FoundPython() = start_->value()->python();
  }
  static void TearDownTestSuite() {
    delete start_;
    start_ = nullptr;
  }
  void SetUp() override {
    if (!start_->ok()) {
      if (start_->status().code() == StatusCode::kUnavailable) {
        GTEST_SKIP() << "oracle unavailable: " << start_->status().message();
      }
      FAIL() << "oracle did not start: " << start_->status().message();
    }
    client_ = start_->value().get();
    ASSERT_TRUE(client_->alive()) << "an earlier test left the shared oracle dead";
  }
  static Result<std::unique_ptr<OracleClient>>* start_;
  OracleClient* client_ = nullptr;
};
Result<std::unique_ptr<OracleClient>>* OracleClientTest::start_ = nullptr;

struct TempDir {
  fs::path path;
  TempDir() { path = std::move(MakeTempDir(fs::temp_directory_path(), "oracle-test")).value(); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(OracleClientStart, ScriptNotFoundNamesWhereItLooked) {
  OracleOptions o;
  o.script = "/nonexistent/hone/hone_oracle.py";
  auto c = OracleClient::Start(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("/nonexistent/hone/hone_oracle.py"), std::string::npos)
      << c.status().message();
}

TEST(OracleClientStart, FlopCountsAreKeptInTheCacheFolderNamed) {
  TempDir cache;
  OracleOptions o = TestOptions();
  o.cache_dir = cache.path / "oracle";
  auto start = OracleClient::Start(o);
  std::unique_ptr<OracleClient> client;
  START_OR_SKIP(client, start);
  ASSERT_TRUE(client->Load(Problem("linear_gelu_scale.py")).ok());
  int kept = 0;
  for (const auto& e : fs::directory_iterator(o.cache_dir))
    kept += e.path().filename().string().rfind("flops-", 0) == 0;
  EXPECT_EQ(kept, 1) << "the oracle was told --cache-dir " << o.cache_dir;
}

TEST(OracleClientStart, PythonWithoutTorchIsAClearError) {
  OracleOptions o = TestOptions();
  o.python = "/nonexistent/bin/python3";
  auto c = OracleClient::Start(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("/nonexistent/bin/python3"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find("install python3-torch"), std::string::npos)
      << c.status().message();
}

TEST(OracleClientStart, NamedPythonWithoutTorchIsUnavailable) {
  // A stand-in interpreter that exits as the oracle does without torch (3).
  fs::path dir = std::move(MakeTempDir(fs::temp_directory_path(), "oracle-test")).value();
  fs::path py = dir / "python3";
  {
    std::ofstream out(py);
    out << "#!/bin/sh\necho 'no torch here' >&2\nexit 3\n";
  }
  fs::permissions(py, fs::perms::owner_all);
  OracleOptions o = TestOptions();
  o.python = py.string();
  auto c = OracleClient::Start(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(c.status().message().find("does not import torch"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find("no torch here"), std::string::npos) << c.status().message();
  std::error_code ec;
  fs::remove_all(dir, ec);
}

// The first python3 on PATH cannot import torch: the search starts the
// next one as the oracle, with no separate check of either.
TEST(OracleClientStart, SkipsAPythonWithoutTorchOnThePath) {
  fs::path dir = std::move(MakeTempDir(fs::temp_directory_path(), "oracle-test")).value();
  {
    std::ofstream out(dir / "python3");
    out << "#!/bin/sh\necho 'no torch here' >&2\nexit 3\n";
  }
  fs::permissions(dir / "python3", fs::perms::owner_all);
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::string named = std::getenv("HONE_PYTHON") ? std::getenv("HONE_PYTHON") : "";
  setenv("PATH", (dir.string() + ":" + path).c_str(), 1);
  unsetenv("HONE_PYTHON");
  OracleOptions o = TestOptions();
  o.python.clear();
  auto c = OracleClient::Start(o);
  setenv("PATH", path.c_str(), 1);
  if (!named.empty()) setenv("HONE_PYTHON", named.c_str(), 1);
  std::error_code ec;
  fs::remove_all(dir, ec);
  std::unique_ptr<OracleClient> client;
  START_OR_SKIP(client, c);
  EXPECT_NE(client->python(), (dir / "python3").string());
}

// The end of a one-shot command: the oracle is killed at once, not asked to
// exit (Python's exit, then the driver's teardown of its device memory).
TEST(OracleClientStart, AbandonKillsTheOracleWithoutWaiting) {
  auto c = OracleClient::Start(TestOptions());
  std::unique_ptr<OracleClient> client;
  START_OR_SKIP(client, c);
  const pid_t pid = client->pid();
  ASSERT_GT(pid, 0);
  client->Abandon();
  EXPECT_FALSE(client->alive());
  // This test is its parent: it reaps what Abandon left, killed by SIGKILL
  // (a graceful exit after the pipes close would be an exit code).
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  client.reset();  // the destructor has nothing left to wait for
}

// `--runtime` answers before torch is imported, and says what the hello
// says: a warm sandbox started from it is one the candidate can take.
TEST_F(OracleClientTest, TheRuntimeProbeSaysWhatTheHelloSays) {
  auto probe = OracleClient::ProbeRuntime(TestOptions());
  ASSERT_TRUE(probe.ok()) << probe.status().message();
  EXPECT_EQ((*probe)["executable"], client_->hello()["executable"]);
  EXPECT_EQ((*probe)["runtime"], client_->hello()["runtime"]);
  EXPECT_FALSE((*probe)["runtime"].value("torch_dir", "").empty());
}

TEST(OracleClientStart, TheRuntimeProbeOfAPythonWithoutTorchIsUnavailable) {
  fs::path dir = std::move(MakeTempDir(fs::temp_directory_path(), "oracle-test")).value();
  {
    std::ofstream out(dir / "python3");
    out << "#!/bin/sh\necho 'no torch here' >&2\nexit 3\n";
  }
  fs::permissions(dir / "python3", fs::perms::owner_all);
  OracleOptions o = TestOptions();
  o.python = (dir / "python3").string();
  auto probe = OracleClient::ProbeRuntime(o);
  std::error_code ec;
  fs::remove_all(dir, ec);
  ASSERT_FALSE(probe.ok());
  EXPECT_EQ(probe.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(probe.status().message().find("no torch here"), std::string::npos)
      << probe.status().message();
}

TEST_F(OracleClientTest, HelloChecksTheProtocol) {
  EXPECT_EQ(client_->hello().value("protocol", 0), kOracleProtocol);
  EXPECT_FALSE(client_->python().empty());
  EXPECT_TRUE(client_->hello().contains("torch"));
  EXPECT_GT(client_->pid(), 0);
}

TEST_F(OracleClientTest, LoadListsForwardArgsThenStateDict) {
  auto p = client_->Load(Problem("linear_gelu_scale.py"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_FALSE(p->skipped) << p->skip_reason;
  EXPECT_FALSE(p->problem.empty());
  EXPECT_EQ(p->task_hash.size(), 64u);
  EXPECT_DOUBLE_EQ(p->scale, 1.0);
  ASSERT_EQ(p->inputs.size(), 3u);
  EXPECT_EQ(p->inputs[0].name, "x");
  EXPECT_EQ(p->inputs[0].role, "input");
  EXPECT_EQ(p->inputs[0].kind, "forward_arg");
  EXPECT_EQ(p->inputs[0].shape, (std::vector<int64_t>{128, 1024}));
  EXPECT_EQ(p->inputs[1].name, "linear.weight");
  EXPECT_EQ(p->inputs[1].role, "param");
  EXPECT_EQ(p->inputs[1].kind, "parameter");
  EXPECT_EQ(p->inputs[1].shape, (std::vector<int64_t>{512, 1024}));
  EXPECT_EQ(p->inputs[2].name, "linear.bias");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p->inputs[i].index, i);
    EXPECT_EQ(p->inputs[i].dtype, "f32");
  }
  ASSERT_EQ(p->outputs.size(), 1u);
  EXPECT_EQ(p->outputs[0].name, "out");
  EXPECT_EQ(p->outputs[0].shape, (std::vector<int64_t>{128, 512}));
  EXPECT_GE(p->distributions.size(), 1u);
}

TEST_F(OracleClientTest, LoadWithScaleScalesSizes) {
  OracleLoadOptions o;
  o.shape_scale = 0.25;
  auto p = client_->Load(Problem("linear_gelu_scale.py"), o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_FALSE(p->skipped) << p->skip_reason;
  EXPECT_DOUBLE_EQ(p->scale, 0.25);
  ASSERT_TRUE(p->sizes.count("batch_size"));
  EXPECT_EQ(p->sizes["batch_size"].original, 128);
  EXPECT_EQ(p->sizes["batch_size"].scaled, 32);
  EXPECT_EQ(p->sizes["in_features"].scaled, 256);
  EXPECT_EQ(p->derived_sizes["out_features"], 128);
  ASSERT_EQ(p->inputs.size(), 3u);
  EXPECT_EQ(p->inputs[0].shape, (std::vector<int64_t>{32, 256}));
  EXPECT_EQ(p->inputs[1].shape, (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(p->outputs[0].shape, (std::vector<int64_t>{32, 128}));

  auto full = client_->Load(Problem("linear_gelu_scale.py"));
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_NE(full->task_hash, p->task_hash);
}

TEST_F(OracleClientTest, GenerateIsDeterministicPerSeed) {
  auto p = client_->Load(Problem("relu.py"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_FALSE(p->skipped) << p->skip_reason;
  TempDir a, b, c;
  auto ga = client_->Generate(p->problem, 7, 0, a.path);
  auto gb = client_->Generate(p->problem, 7, 0, b.path);
  auto gc = client_->Generate(p->problem, 8, 0, c.path);
  ASSERT_TRUE(ga.ok()) << ga.status().message();
  ASSERT_TRUE(gb.ok()) << gb.status().message();
  ASSERT_TRUE(gc.ok()) << gc.status().message();
  ASSERT_EQ(ga->tensors.size(), gb->tensors.size());
  // relu: x, out, ref64 out.
  ASSERT_EQ(ga->tensors.size(), 3u);
  EXPECT_EQ(ga->tensors[0].spec.role, "input");
  EXPECT_EQ(ga->tensors[1].spec.role, "output");
  EXPECT_EQ(ga->tensors[2].spec.role, "ref64_output");
  EXPECT_TRUE(ga->ref64_available);
  EXPECT_GT(ga->ref64_seconds, 0) << "what the float64 forward cost the oracle";
  for (size_t i = 0; i < ga->tensors.size(); ++i) {
    const auto& ta = ga->tensors[i];
    EXPECT_EQ(ta.file.parent_path(), a.path);
    auto da = ReadTensorFile(ta);
    auto db = ReadTensorFile(gb->tensors[i]);
    ASSERT_TRUE(da.ok()) << da.status().message();
    ASSERT_TRUE(db.ok()) << db.status().message();
    EXPECT_EQ(static_cast<int64_t>(da->size()), ta.bytes);
    EXPECT_TRUE(*da == *db) << ta.spec.name << " (" << ta.spec.role << ") differs between calls";
  }
  EXPECT_EQ(ga->tensors[0].bytes, int64_t{16} * 4096 * 4);
  auto x7 = ReadTensorFile(ga->tensors[0]);
  auto x8 = ReadTensorFile(gc->tensors[0]);
  ASSERT_TRUE(x7.ok() && x8.ok());
  EXPECT_FALSE(*x7 == *x8) << "seeds 7 and 8 gave the same input";

  // The expected output is relu of the input.
  auto out = ReadTensorFile(ga->tensors[1]);
  ASSERT_TRUE(out.ok());
  const float* x = reinterpret_cast<const float*>(x7->data());
  const float* y = reinterpret_cast<const float*>(out->data());
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(y[i], std::max(x[i], 0.0f)) << i;
}

// A timing pool's sibling (pytorch/oracle_reference.h): the same draw with its
// floating inputs multiplied by a factor, in float32 exactly as the worker
// scales a timed call's inputs (x * f rounded once), and the Model's outputs
// for those values.
TEST_F(OracleClientTest, AScaledDrawIsTheSameDrawTimesTheFactor) {
  auto p = client_->Load(Problem("relu.py"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  TempDir a, b;
  const double factor = static_cast<float>(0.7312);
  auto plain = client_->Generate(p->problem, 7, 0, a.path);
  auto scaled = client_->Generate(p->problem, 7, 0, b.path, std::chrono::minutes(1), factor);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  auto x = ReadTensorFile(plain->tensors[0]);
  auto xs = ReadTensorFile(scaled->tensors[0]);
  auto ys = ReadTensorFile(scaled->tensors[1]);
  ASSERT_TRUE(x.ok() && xs.ok() && ys.ok());
  ASSERT_EQ(x->size(), xs->size());
  const float* in = reinterpret_cast<const float*>(x->data());
  const float* in_scaled = reinterpret_cast<const float*>(xs->data());
  const float* out_scaled = reinterpret_cast<const float*>(ys->data());
  for (size_t i = 0; i < x->size() / sizeof(float); ++i) {
    ASSERT_EQ(in_scaled[i], static_cast<float>(static_cast<double>(in[i]) * factor)) << i;
    ASSERT_EQ(out_scaled[i], std::max(in_scaled[i], 0.0f)) << i;
  }
}

TEST_F(OracleClientTest, ReadTensorFileChecksTheSize) {
  TempDir d;
  fs::path f = d.path / "t.bin";
  {
    std::ofstream out(f, std::ios::binary);
    out << "12345678";
  }
  OracleTensorFile desc;
  desc.spec.dtype = "f32";
  desc.spec.shape = {2};
  desc.file = f;
  desc.bytes = 8;
  auto ok = ReadTensorFile(desc);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 8u);
  desc.spec.shape = {3};
  desc.bytes = 12;
  EXPECT_FALSE(ReadTensorFile(desc).ok());  // the file is 8 bytes
  desc.spec.shape = {2};
  EXPECT_FALSE(ReadTensorFile(desc).ok());  // 12 bytes is not 2 x f32
  desc.file = d.path / "missing.bin";
  desc.bytes = 8;
  EXPECT_FALSE(ReadTensorFile(desc).ok());
}

TEST_F(OracleClientTest, BrokenProblemIsAStatusAndTheClientGoesOn) {
  auto p = client_->Load(Problem("broken.py"));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(p.status().message().find("broken.py"), std::string::npos) << p.status().message();
  EXPECT_NE(p.status().message().find("ValueError"), std::string::npos) << p.status().message();
  EXPECT_TRUE(client_->alive());
  auto q = client_->Load(Problem("relu.py"));
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_FALSE(q->skipped);
}

TEST_F(OracleClientTest, BadRequestIsInvalidAndTheClientGoesOn) {
  auto r = client_->Request({{"op", "no_such_op"}}, seconds(30));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(client_->alive());
  auto g = client_->Generate("no_such_problem", 0, 0, fs::temp_directory_path());
  EXPECT_FALSE(g.ok());
  EXPECT_TRUE(client_->alive());
  auto h = client_->Request({{"op", "hello"}}, seconds(30));
  ASSERT_TRUE(h.ok()) << h.status().message();
}

TEST_F(OracleClientTest, MissingPackageIsSkipped) {
  auto p = client_->Load(Problem("missing_package.py"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->skipped);
  EXPECT_NE(p->skip_reason.find("hone_no_such_package_xyz"), std::string::npos) << p->skip_reason;
  EXPECT_TRUE(p->problem.empty());
}

TEST(OracleClientDeath, KilledOracleIsAStatusNotAHang) {
  auto start = OracleClient::Start(TestOptions());
  std::unique_ptr<OracleClient> c;
  START_OR_SKIP(c, start);
  ASSERT_EQ(kill(c->pid(), SIGKILL), 0) << strerror(errno);
  auto t0 = std::chrono::steady_clock::now();
  auto r = c->Request({{"op", "hello"}}, seconds(20));
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_LT(waited, 10.0);
  EXPECT_FALSE(c->alive());
  EXPECT_NE(r.status().message().find("signal 9"), std::string::npos) << r.status().message();
  auto again = c->Load(Problem("relu.py"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kUnavailable);
  c.reset();  // the destructor copes with a dead oracle
}

TEST(OracleClientDeath, TimeoutKillsAndReports) {
  auto start = OracleClient::Start(TestOptions());
  std::unique_ptr<OracleClient> c;
  START_OR_SKIP(c, start);
  // A 1 ms budget for a load cannot be met: the client gives up, kills the
  // oracle and says so.
  OracleLoadOptions o;
  o.timeout = std::chrono::milliseconds(1);
  auto p = c->Load(Problem("linear_gelu_scale.py"), o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("timed out"), std::string::npos) << p.status().message();
  EXPECT_FALSE(c->alive());
}

// Whether `pid` has ended (gone, or a zombie no one has reaped yet).
bool Ended(pid_t pid) {
  char state = testing::ReadProcStat(pid).state;
  return state == '?' || state == 'Z';
}

// A worker killed outright (SIGKILL) while its oracle is busy (here loading
// a problem that sleeps a minute at import) takes the oracle with it: the
// oracle watches its request socket (--exit-with-worker) instead of
// finding the worker gone only at its next read.
TEST(OracleClientDeath, AKilledWorkersOracleEndsAtOnce) {
  {
    auto probe = OracleClient::Start(TestOptions());
    std::unique_ptr<OracleClient> c;
    START_OR_SKIP(c, probe);
  }
  fs::path problem = *MakeTempDir(fs::temp_directory_path(), "hone-oracle-orphan");
  std::ofstream(problem / "slow.py") << "import time\ntime.sleep(60)\n";
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t worker = fork();
  ASSERT_GE(worker, 0);
  if (worker == 0) {
    close(report[0]);
    auto c = OracleClient::Start(TestOptions());
    pid_t oracle = c.ok() ? (*c)->pid() : -1;
    if (write(report[1], &oracle, sizeof oracle) != sizeof oracle) _exit(1);
    if (c.ok()) (void)(*c)->Load(problem / "slow.py");  // killed in here
    _exit(0);
  }
  close(report[1]);
  pid_t oracle = -1;
  ASSERT_EQ(read(report[0], &oracle, sizeof oracle), static_cast<ssize_t>(sizeof oracle));
  close(report[0]);
  ASSERT_GT(oracle, 0);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the load is under way
  ASSERT_FALSE(Ended(oracle));
  kill(worker, SIGKILL);
  waitpid(worker, nullptr, 0);
  auto t0 = std::chrono::steady_clock::now();
  while (!Ended(oracle) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(Ended(oracle)) << "the oracle outlived its worker by 15 s";
  if (!Ended(oracle)) kill(-oracle, SIGKILL);
  std::error_code ec;
  fs::remove_all(problem, ec);
}

}  // namespace
}  // namespace hone
