// The backend registry and the one rule deciding a candidate's backend
// (run/backend_registry.h), over kinds registered here: no backend is made.
#include "run/backend_registry.h"

#include <gtest/gtest.h>

#include "lang/builtin.h"

namespace hone {
namespace {

BackendKind Kind(const std::string& name, const std::string& device, bool compat,
                 std::function<bool()> present = nullptr, std::string unavailable = "") {
  BackendKind k;
  k.name = name;
  k.traits.tasks_as = device;
  k.traits.compat = compat;
  k.present = std::move(present);
  k.unavailable = std::move(unavailable);
  return k;
}

// The CPU, a GPU backend whose device is `gpu_here`, and a second C++
// backend that runs no compat candidates.
BackendRegistry Registry(bool gpu_here) {
  BackendRegistry r;
  r.Register(Kind("cpu", "cpu", true));
  r.Register(Kind("cuda", "cuda", true, [gpu_here] { return gpu_here; }));
  r.Register(Kind("testhost", "cpu", false));
  return r;
}

const Language& Lang(const std::string& name) { return *BuiltInLanguages().Find(name); }

TEST(ResolveBackendTest, ASourceRunsOnTheFirstBackendOfItsLanguage) {
  BackendRegistry r = Registry(false);
  EXPECT_EQ(ResolveBackend(r, Lang("cpp"), "k.cpp").value(), "cpu");
  EXPECT_EQ(ResolveBackend(r, Lang("cuda"), "k.cu").value(), "cuda");  // present() is for .py only
}

TEST(ResolveBackendTest, ARequestMustTakeTheSourcesLanguage) {
  BackendRegistry r = Registry(true);
  EXPECT_EQ(ResolveBackend(r, Lang("cpp"), "k.cpp", "testhost").value(), "testhost");
  EXPECT_EQ(ResolveBackend(r, Lang("cuda"), "k.cu", "cuda").value(), "cuda");
  auto wrong = ResolveBackend(r, Lang("cuda"), "k.cu", "cpu");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(wrong.status().message(),
            "--backend cpu: k.cu is a CUDA C++ candidate, which runs on cuda");
  EXPECT_FALSE(ResolveBackend(r, Lang("cpp"), "k.cpp", "nothing").ok());
}

TEST(ResolveBackendTest, ACompatCandidateTakesAPresentDeviceElseTheHost) {
  const Language& modelnew = Lang("load_inline");
  EXPECT_EQ(ResolveBackend(Registry(true), modelnew, "m.py").value(), "cuda");
  EXPECT_EQ(ResolveBackend(Registry(false), modelnew, "m.py").value(), "cpu");
  EXPECT_EQ(ResolveBackend(Registry(true), modelnew, "m.py", "cpu").value(), "cpu");
  auto other = ResolveBackend(Registry(true), modelnew, "m.py", "testhost");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(),
            "--backend testhost: m.py is a KernelBench ModelNew (CUDA or C++ through "
            "load_inline) candidate, which runs on cpu or cuda");
}

TEST(ResolveBackendTest, ATritonCandidateNeedsAGpuAndSaysSoOnACpuOnlyMachine) {
  const Language& triton = Lang("triton");
  EXPECT_EQ(ResolveBackend(Registry(true), triton, "t.py").value(), "cuda");
  auto none = ResolveBackend(Registry(false), triton, "t.py");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(none.status().message(),
            "t.py: a Triton candidate runs on cuda, and no such device is here");
  auto cpu = ResolveBackend(Registry(true), triton, "t.py", "cpu");
  ASSERT_FALSE(cpu.ok());
  EXPECT_EQ(cpu.status().message(),
            "--backend cpu: t.py is a Triton candidate, which runs on cuda");
}

TEST(ResolveBackendTest, ABackendBuiltWithoutSaysSo) {
  BackendRegistry r;
  r.Register(Kind("cpu", "cpu", true));
  r.Register(Kind("cuda", "cuda", true, nullptr, "built without it"));
  for (auto [language, request] :
       {std::pair{"cuda", ""}, std::pair{"load_inline", "cuda"}, std::pair{"triton", ""}}) {
    auto b = ResolveBackend(r, Lang(language), "file", request);
    ASSERT_FALSE(b.ok()) << language;
    EXPECT_EQ(b.status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(b.status().message(), "built without it");
  }
  EXPECT_EQ(ResolveBackend(r, Lang("load_inline"), "m.py").value(), "cpu");
  EXPECT_EQ(r.Get("cuda").status().message(), "built without it");
}

TEST(BackendRegistryTest, OpensAKindOnceAndFindsOnlyOpenedOnes) {
  BackendRegistry r;
  int made = 0;
  BackendKind k = Kind("cpu", "cpu", true);
  k.make = [&made](const BackendSetup&) -> Result<std::unique_ptr<Backend>> {
    ++made;
    return Status::Unavailable("no sandbox program here");
  };
  r.Register(k);
  EXPECT_EQ(r.Find("cpu"), nullptr);
  auto opened = r.Open("cpu", BackendSetup{});
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), "no sandbox program here");
  EXPECT_EQ(made, 1);
  EXPECT_FALSE(r.Open("gpu", BackendSetup{}).ok());
  EXPECT_EQ(r.Get("cpu").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace hone
