// The backend registry and the one rule deciding a candidate's backend
// (run/backend_registry.h), over kinds registered here: no backend is made.
#include "run/backend_registry.h"

#include <gtest/gtest.h>

namespace hone {
namespace {

BackendKind Kind(const std::string& name, const std::string& flavour, bool compat,
                 std::function<bool()> present = nullptr, std::string unavailable = "") {
  BackendKind k;
  k.name = name;
  k.traits.flavour = k.traits.tasks_as = flavour;
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

TEST(ResolveBackendTest, ASourceRunsOnTheFirstBackendOfItsLanguage) {
  BackendRegistry r = Registry(false);
  EXPECT_EQ(ResolveBackend(r, "k.cpp").value(), "cpu");
  EXPECT_EQ(ResolveBackend(r, "k.cc").value(), "cpu");
  EXPECT_EQ(ResolveBackend(r, "k.cu").value(), "cuda");  // present() is for .py only
  EXPECT_EQ(ResolveBackend(r, "k.weird").value(), "cpu");
}

TEST(ResolveBackendTest, ARequestMustTakeTheSourcesLanguage) {
  BackendRegistry r = Registry(true);
  EXPECT_EQ(ResolveBackend(r, "k.cpp", "testhost").value(), "testhost");
  EXPECT_EQ(ResolveBackend(r, "k.cu", "cuda").value(), "cuda");
  auto wrong = ResolveBackend(r, "k.cu", "cpu");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(wrong.status().message(),
            "--backend cpu: k.cu is a cuda candidate (its extension decides)");
  EXPECT_FALSE(ResolveBackend(r, "k.cpp", "nothing").ok());
}

TEST(ResolveBackendTest, ACompatCandidateTakesAPresentDeviceElseTheHost) {
  EXPECT_EQ(ResolveBackend(Registry(true), "m.py").value(), "cuda");
  EXPECT_EQ(ResolveBackend(Registry(false), "m.py").value(), "cpu");
  EXPECT_EQ(ResolveBackend(Registry(true), "m.py", "cpu").value(), "cpu");
  auto other = ResolveBackend(Registry(true), "m.py", "testhost");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(), "--backend: unknown backend 'testhost' (cpu or cuda)");
}

TEST(ResolveBackendTest, ABackendBuiltWithoutSaysSo) {
  BackendRegistry r;
  r.Register(Kind("cpu", "cpu", true));
  r.Register(Kind("cuda", "cuda", true, nullptr, "built without it"));
  for (auto [file, request] : {std::pair{"k.cu", ""}, std::pair{"m.py", "cuda"}}) {
    auto b = ResolveBackend(r, file, request);
    ASSERT_FALSE(b.ok()) << file;
    EXPECT_EQ(b.status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(b.status().message(), "built without it");
  }
  EXPECT_EQ(ResolveBackend(r, "m.py").value(), "cpu");
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
