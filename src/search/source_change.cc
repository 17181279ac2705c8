#include "search/source_change.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace hone {
namespace {

// A technique and the constructs that spell it (any one is enough).
struct Technique {
  const char* name;
  std::vector<std::string_view> markers;
};

const std::vector<Technique>& Techniques() {
  static const std::vector<Technique> kTechniques = {
      {"OpenMP threads", {"#pragma omp parallel", "omp_get_num_threads", "omp_get_thread_num"}},
      {"std::thread workers", {"std::thread", "std::async", "std::jthread"}},
      {"SIMD pragmas", {"#pragma omp simd", "#pragma GCC ivdep", "#pragma GCC unroll"}},
      {"AVX intrinsics", {"_mm256_", "_mm512_", "__m256", "__m512"}},
      {"SSE intrinsics", {"_mm_", "__m128"}},
      {"restrict pointers", {"__restrict"}},
      {"volatile accesses", {"volatile "}},
      {"shared-memory tiles", {"__shared__"}},
      {"warp shuffles", {"__shfl"}},
      {"vector loads (float4/float2)", {"float4", "float2", "int4", "half2"}},
      {"tensor cores (WMMA/MMA)", {"wmma::", "mma.sync", "mma_sync"}},
      {"asynchronous copies", {"cp.async", "__pipeline_memcpy_async", "cuda::memcpy_async"}},
      {"read-only loads (__ldg)", {"__ldg"}},
      {"unrolled loops", {"#pragma unroll"}},
      {"atomics", {"atomicAdd", "std::atomic"}},
      {"half-precision arithmetic", {"__half", "__nv_bfloat16", "__hadd", "__hmul"}},
      {"fast math intrinsics", {"__expf", "__fdividef", "__frcp", "__logf"}},
      {"cooperative groups", {"cooperative_groups"}},
      {"declared tunables", {"hone: tune"}},
  };
  return kTechniques;
}

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    size_t end = s.find('\n');
    out.push_back(s.substr(0, end));
    if (end == std::string_view::npos) break;
    s.remove_prefix(end + 1);
  }
  return out;
}

constexpr size_t kMaxDiffCells = 4'000'000;

// The length of the longest common subsequence of two line lists, in
// O(n * m) time and O(m) space.
int CommonLines(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::vector<int> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> SourceTechniques(std::string_view source) {
  std::vector<std::string> out;
  for (const Technique& t : Techniques())
    if (std::any_of(t.markers.begin(), t.markers.end(),
                    [&](std::string_view m) { return source.find(m) != std::string_view::npos; }))
      out.push_back(t.name);
  return out;
}

SourceChange DescribeChange(std::string_view before, std::string_view after) {
  SourceChange c;
  std::vector<std::string> from =
      before.empty() ? std::vector<std::string>{} : SourceTechniques(before);
  std::vector<std::string> to = SourceTechniques(after);
  std::set<std::string> from_set(from.begin(), from.end()), to_set(to.begin(), to.end());
  for (const auto& t : to)
    if (!from_set.count(t)) c.added.push_back(t);
  for (const auto& t : from)
    if (!to_set.count(t)) c.removed.push_back(t);
  auto a = Lines(before), b = Lines(after);
  c.lines_before = static_cast<int>(a.size());
  c.lines_after = static_cast<int>(b.size());
  int common = a.size() * b.size() <= kMaxDiffCells ? CommonLines(a, b)
                                                    : std::min(c.lines_before, c.lines_after);
  c.lines_added = c.lines_after - common;
  c.lines_removed = c.lines_before - common;
  return c;
}

std::string SourceChangeText(const SourceChange& c) {
  std::vector<std::string> parts;
  if (!c.added.empty()) parts.push_back("adds " + Join(c.added));
  if (!c.removed.empty()) parts.push_back("drops " + Join(c.removed));
  if (c.lines_added > 0 || c.lines_removed > 0)
    parts.push_back(fmt::format("+{}/-{} lines ({} -> {})", c.lines_added, c.lines_removed,
                                c.lines_before, c.lines_after));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace hone
