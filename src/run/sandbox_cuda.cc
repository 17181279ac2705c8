#include "run/sandbox_cuda.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cxxabi.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "run/sandbox_cuda_kernels.h"

namespace hone::sandbox {
namespace {

// Written by CUPTI's callback on whichever thread launches; read by Call().
std::atomic<uint32_t> g_launches{0}, g_own{0}, g_side{0}, g_side_copies{0};
std::atomic<const char*> g_first_side_copy{nullptr};  // CUPTI's static function name
CUstream g_stream = nullptr;
const std::set<std::string>* g_own_names = nullptr;
std::mutex g_names_mu;
std::set<std::string> g_seen_names;

// A kernel's plain name: "_Z12relu_kernelPKfPfi" -> "relu_kernel",
// "ns::k<float>(float*)" -> "k". Compat candidates name their own kernels
// this way (hone reads them from the Python source, not from a build).
std::string BaseName(const char* symbol) {
  std::string s = symbol;
  if (s.rfind("_Z", 0) == 0) {
    int status = 0;
    char* d = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    if (status == 0 && d) s = d;
    std::free(d);
  }
  if (size_t paren = s.find('('); paren != std::string::npos) s.resize(paren);
  while (!s.empty() && s.back() == '>') {  // trailing template arguments
    int depth = 0;
    size_t i = s.size();
    while (i-- > 0) {
      if (s[i] == '>') ++depth;
      if (s[i] == '<' && --depth == 0) break;
    }
    if (i == std::string::npos || i == 0) break;
    s.resize(i);
  }
  if (size_t colon = s.rfind("::"); colon != std::string::npos) s.erase(0, colon + 2);
  if (size_t space = s.rfind(' '); space != std::string::npos) s.erase(0, space + 1);
  return s;
}

// Whether a launched kernel is the candidate's: its exact symbol, or its
// plain name (cached per symbol, which CUPTI keeps at a fixed address).
bool IsOwn(const char* name) {
  if (!name || !g_own_names) return false;
  if (g_own_names->count(name)) return true;
  static std::mutex mu;
  static std::map<const char*, bool> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  bool own = g_own_names->count(BaseName(name)) > 0;
  cache.emplace(name, own);
  return own;
}

void Seen(const char* name) {
  std::lock_guard<std::mutex> lock(g_names_mu);
  if (g_seen_names.size() < 16) g_seen_names.insert(name ? name : "(unnamed)");
}

#define HONE_STREAM_OF(fn)                  \
  case CUPTI_DRIVER_TRACE_CBID_##fn:        \
  case CUPTI_DRIVER_TRACE_CBID_##fn##_ptsz: \
    return static_cast<const fn##_params*>(params)->hStream;

// The stream an asynchronous copy or memset was queued on; null for a
// synchronous one (it runs on the legacy default stream) and for the rarer
// asynchronous kinds not listed (batched copies), which are then counted as
// off args->stream too.
CUstream CopyStream(CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    HONE_STREAM_OF(cuMemcpyAsync)
    HONE_STREAM_OF(cuMemcpyHtoDAsync_v2)
    HONE_STREAM_OF(cuMemcpyDtoHAsync_v2)
    HONE_STREAM_OF(cuMemcpyDtoDAsync_v2)
    HONE_STREAM_OF(cuMemcpy2DAsync_v2)
    HONE_STREAM_OF(cuMemcpy3DAsync_v2)
    HONE_STREAM_OF(cuMemcpyPeerAsync)
    HONE_STREAM_OF(cuMemcpy3DPeerAsync)
    HONE_STREAM_OF(cuMemcpyHtoAAsync_v2)
    HONE_STREAM_OF(cuMemcpyAtoHAsync_v2)
    HONE_STREAM_OF(cuMemsetD8Async)
    HONE_STREAM_OF(cuMemsetD16Async)
    HONE_STREAM_OF(cuMemsetD32Async)
    HONE_STREAM_OF(cuMemsetD2D8Async)
    HONE_STREAM_OF(cuMemsetD2D16Async)
    HONE_STREAM_OF(cuMemsetD2D32Async)
    default:
      return nullptr;
  }
}
#undef HONE_STREAM_OF

// Copies and memsets must be on args->stream like kernels: one on another
// stream (or a synchronous one, on the legacy stream) runs outside the timed
// span, and while a timed call's stream is held it can move inputs to the
// host for work the events never see.
void WatchCopy(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  const char* fn = cb->functionName;
  if (!fn || (std::strncmp(fn, "cuMemcpy", 8) != 0 && std::strncmp(fn, "cuMemset", 8) != 0)) return;
  if (g_stream && CopyStream(cbid, cb->functionParams) == g_stream) return;
  if (g_side_copies++ == 0) g_first_side_copy = fn;
}

void CUPTIAPI OnDriverApi(void*, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite != CUPTI_API_ENTER) return;
  CUstream s = nullptr;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      s = static_cast<const cuLaunchKernel_params*>(cb->functionParams)->hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c =
          static_cast<const cuLaunchKernelEx_params*>(cb->functionParams)->config;
      s = c ? c->hStream : nullptr;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      s = static_cast<const cuLaunchCooperativeKernel_params*>(cb->functionParams)->hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      s = static_cast<const cuGraphLaunch_params*>(cb->functionParams)->hStream;
      break;
    default:
      return WatchCopy(cbid, cb);
  }
  ++g_launches;
  if (s != g_stream) ++g_side;
  const char* name = cb->symbolName;
  if (IsOwn(name)) ++g_own;
  Seen(name);
}

bool StartTracking(std::string* error) {
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, reinterpret_cast<CUpti_CallbackFunc>(OnDriverApi), nullptr) !=
      CUPTI_SUCCESS) {
    *error = "CUPTI is unavailable: kernel launches cannot be watched";
    return false;
  }
  const CUpti_CallbackId ids[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
  };
  for (CUpti_CallbackId id : ids) cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
  // Copies and memsets have dozens of entry points: watch the whole driver
  // API and let WatchCopy pick them out by name.
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  return true;
}

std::string Err(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

uint64_t Nanos(std::chrono::steady_clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

}  // namespace

bool CudaSandbox::Init(const std::string& pci_bus_id, const std::string& arena_hex, size_t l2_bytes,
                       const std::vector<std::string>& own_kernels, std::string* error) {
  static std::set<std::string> names(own_kernels.begin(), own_kernels.end());
  g_own_names = &names;
  int device = 0;
  if (cudaError_t e = cudaDeviceGetByPCIBusId(&device, pci_bus_id.c_str()); e != cudaSuccess)
    return *error = Err("cudaDeviceGetByPCIBusId", e), false;
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    return *error = Err("cudaSetDevice", e), false;
  // Spin while synchronising (the default for one context), so the sync
  // after each call measures GPU work in this thread's CPU time too. A
  // context created before (a compat candidate's torch) keeps its flags.
  (void)cudaSetDeviceFlags(cudaDeviceScheduleSpin);
  (void)cudaGetLastError();
  if (cudaError_t e = cudaFree(nullptr); e != cudaSuccess)
    return *error = Err("creating the CUDA context", e), false;
  cudaIpcMemHandle_t h;
  if (arena_hex.size() != 2 * sizeof h) return *error = "bad arena handle", false;
  for (size_t i = 0; i < sizeof h; ++i)
    reinterpret_cast<unsigned char*>(&h)[i] =
        static_cast<unsigned char>(std::stoi(arena_hex.substr(2 * i, 2), nullptr, 16));
  void* p = nullptr;
  if (cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess); e != cudaSuccess)
    return *error = Err("opening the shared arena", e), false;
  arena_ = static_cast<char*>(p);
  cudaStream_t s;
  if (cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess)
    return *error = Err("cudaStreamCreate", e), false;
  stream_ = s;
  g_stream = reinterpret_cast<CUstream>(s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  start_ = a;
  end_ = b;
  flush_bytes_ = 2 * l2_bytes;
  if (flush_bytes_ > 0 && cudaMalloc(&flush_, flush_bytes_) != cudaSuccess)
    return *error = "cannot allocate the L2 flush buffer", false;
  if (flush_ && (cudaMemset(flush_, 0, flush_bytes_) != cudaSuccess ||
                 cudaMalloc(reinterpret_cast<void**>(&flush_sink_), sizeof(int)) != cudaSuccess))
    return *error = "cannot prepare the L2 flush buffer", false;
  void* flags = nullptr;
  if (cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
      cudaHostGetDevicePointer(reinterpret_cast<void**>(&hold_flags_device_), flags, 0) !=
          cudaSuccess)
    hold_enabled_ = false;  // timed without the hold: launch latency included
  hold_flags_ = static_cast<volatile int*>(flags);
  // Event overhead: two back-to-back events, median of 21.
  std::vector<uint64_t> gaps;
  for (int i = 0; i < 21; ++i) {
    cudaEventRecord(a, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    gaps.push_back(static_cast<uint64_t>(ms * 1e6));
  }
  std::sort(gaps.begin(), gaps.end());
  event_overhead_ = gaps[gaps.size() / 2];
  tracking_ = StartTracking(error);
  if (!tracking_) error->clear();  // reported as a missing feature, not a failure
  return true;
}

void* CudaSandbox::AllocWorkspace(size_t bytes) {
  void* p = nullptr;
  return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
}

void CudaSandbox::FreeWorkspace(void* p) {
  if (p) cudaFree(p);
}

CudaCallResult CudaSandbox::Call(int (*forward)(const hone_args*), hone_args* args, bool flush_l2,
                                 bool hold) {
  CudaCallResult r;
  auto s = static_cast<cudaStream_t>(stream_);
  auto a = static_cast<cudaEvent_t>(start_);
  auto b = static_cast<cudaEvent_t>(end_);
  hold = hold && hold_enabled_;
  if (hold) {
    hold_flags_[0] = 0;  // release
    hold_flags_[1] = 0;  // timed out
    // Long enough for any honest hone_forward to enqueue its launches.
    constexpr uint64_t kHoldTimeoutNanos = 20'000'000;
    LaunchHold(hold_flags_device_, hold_flags_device_ + 1, kHoldTimeoutNanos, s);
  }
  if (flush_l2 && flush_) LaunchReadFlush(flush_, flush_bytes_, flush_sink_, s);
  g_launches = g_own = g_side = g_side_copies = 0;
  g_first_side_copy = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_names_mu);
    g_seen_names.clear();
  }
  args->stream = stream_;
  cudaEventRecord(a, s);
  r.rc = forward(args);
  cudaEventRecord(b, s);
  if (hold) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_flags_[0] = 1;
  }
  cudaError_t e = cudaEventSynchronize(b);
  // A hone_forward that waited on the GPU sat out the hold's timeout: its
  // later calls are timed without holding (launch latency then included).
  if (hold && hold_flags_[1] != 0) hold_enabled_ = false;
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) {
    r.error = Err("CUDA error during the call", e);
    return r;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  r.nanos = static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
  // The stream is done: anything still running now escaped it. The thread
  // spins in the sync (one context, cudaDeviceScheduleSpin); when the
  // scheduler takes it off the CPU meanwhile, its wall time is the
  // machine's noise and its CPU time is what the GPU made it wait.
  rusage u0{}, u1{};
  timespec c0{}, c1{};
  getrusage(RUSAGE_THREAD, &u0);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  auto t0 = std::chrono::steady_clock::now();
  e = cudaDeviceSynchronize();
  r.device_sync_nanos = Nanos(std::chrono::steady_clock::now() - t0);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
  getrusage(RUSAGE_THREAD, &u1);
  int64_t cpu = (c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec);
  r.device_sync_cpu_nanos = static_cast<uint64_t>(std::max<int64_t>(cpu, 0));
  r.device_sync_preempted = u1.ru_nivcsw > u0.ru_nivcsw;
  if (e != cudaSuccess) {
    r.error = Err("CUDA error in work that escaped the stream", e);
    return r;
  }
  r.launches = g_launches;
  r.own_launches = g_own;
  r.side_launches = g_side;
  r.side_copies = g_side_copies;
  if (const char* fn = g_first_side_copy.load()) r.first_side_copy = fn;
  std::lock_guard<std::mutex> lock(g_names_mu);
  for (const auto& n : g_seen_names) {
    if (r.kernel_names.size() + n.size() > 150) break;
    r.kernel_names += (r.kernel_names.empty() ? "" : ",") + n;
  }
  return r;
}

}  // namespace hone::sandbox
