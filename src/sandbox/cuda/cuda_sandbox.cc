#include "sandbox/cuda/cuda_sandbox.h"

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

#include "sandbox/cuda/kernels.h"
#include "sandbox/workspace_guard.h"

namespace hone::sandbox {
namespace {

// Written by CUPTI's callback on whichever thread launches; read by Call().
std::atomic<uint32_t> g_launches{0}, g_own{0}, g_side{0}, g_side_copies{0};
// Kernel launches while no call is in progress, counted from the end of the
// first call (a module's load may launch its own warm-up work) and cleared
// by a binding (hone's own requests between calls).
std::atomic<bool> g_in_call{false}, g_between_armed{false};
std::atomic<uint32_t> g_between{0};
std::atomic<const char*> g_first_side_copy{nullptr};  // CUPTI's static function name
CUstream g_stream = nullptr;
// Compat candidates: the timed stream is the legacy default stream, whose
// semantics a PyTorch user's code runs under (kernel<<<g, b>>> and torch's
// default stream both land there).
bool g_legacy = false;
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

// The callbacks run inside the candidate's own driver calls, perhaps while
// its thread captures a graph in global mode (torch.cuda.graph), where a
// driver call the capture does not expect invalidates it. Their questions
// (stream flags, capture status) are asked in relaxed mode.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { cuThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureMode() { cuThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

// Whether work queued on `s` is ordered with events on the timed stream.
// Natively only args->stream is. With the legacy default stream timed
// (compat), so are the legacy and per-thread default streams and every
// blocking stream: the legacy stream waits for their earlier work and they
// for its. A non-blocking stream (torch.cuda.Stream()) is not.
bool OnTimedStream(CUstream s) {
  if (s == g_stream) return true;
  if (!g_legacy) return false;
  if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return true;
  RelaxedCaptureMode relaxed;
  unsigned int flags = 0;
  if (cuStreamGetFlags(s, &flags) != CUDA_SUCCESS) return false;
  return (flags & CU_STREAM_NON_BLOCKING) == 0;
}

// Compat candidates may run work on non-blocking side streams, as PyTorch
// code does, if they join it back: an event recorded on the side stream
// after its work, waited for by the timed stream (torch's wait_stream), or a
// host synchronisation. Work never joined is not covered by the timed
// region's end event. Per call: side streams with unjoined work, and which
// events cover which stream's work up to which launch.
struct JoinTracker {
  std::mutex mu;
  uint64_t seq = 0;
  std::map<CUstream, uint64_t> pending;                     // side stream -> its last work
  std::map<CUevent, std::pair<CUstream, uint64_t>> covers;  // event -> (stream, work up to)
  void Reset() {
    std::lock_guard<std::mutex> lock(mu);
    pending.clear();
    covers.clear();
  }
  void Work(CUstream side) {
    std::lock_guard<std::mutex> lock(mu);
    pending[side] = ++seq;
  }
  void Recorded(CUevent e, CUstream stream) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(stream);
    if (it == pending.end())
      covers.erase(e);
    else
      covers[e] = {stream, it->second};
  }
  // The waiting side is ordered with the timed stream (or is the host).
  void Joined(CUevent e) {
    std::lock_guard<std::mutex> lock(mu);
    auto c = covers.find(e);
    if (c == covers.end()) return;
    auto it = pending.find(c->second.first);
    if (it != pending.end() && it->second <= c->second.second) pending.erase(it);
  }
  void StreamSynchronized(CUstream stream) {
    std::lock_guard<std::mutex> lock(mu);
    pending.erase(stream);
  }
  void AllSynchronized() {
    std::lock_guard<std::mutex> lock(mu);
    pending.clear();
  }
  uint32_t Unjoined() {
    std::lock_guard<std::mutex> lock(mu);
    return static_cast<uint32_t>(pending.size());
  }
};
JoinTracker g_joins;

// Work queued while a stream captures a graph is not run; only its replay is.
// The legacy stream never captures, and asking about it while another
// stream captures in global mode is an implicit synchronisation that
// invalidates that capture (torch.cuda.graph captures in global mode), so
// it is not asked; the question itself runs in relaxed mode.
bool Capturing(CUstream s) {
  if (s == nullptr || s == CU_STREAM_LEGACY) return false;
  RelaxedCaptureMode relaxed;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return cuStreamIsCapturing(s, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Which CUDA graphs hold the candidate's own kernels: launches recorded
// while a stream captures (named then), carried to the graph the capture
// ends in and to its executable instances, so that replaying one counts as
// launching its own kernels (CUPTI names no kernel of a graph launch).
struct GraphOwnership {
  std::mutex mu;
  std::map<CUstream, uint32_t> capturing;  // own kernels recorded so far, per capturing stream
  std::map<CUgraph, uint32_t> graphs;
  std::map<CUgraphExec, uint32_t> execs;
  void Recorded(CUstream s, bool own) {
    std::lock_guard<std::mutex> lock(mu);
    capturing[s] += own ? 1 : 0;
  }
  void Ended(CUstream s, CUgraph g) {
    std::lock_guard<std::mutex> lock(mu);
    graphs[g] = capturing[s];
    capturing.erase(s);
  }
  void Instantiated(CUgraph g, CUgraphExec e) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = graphs.find(g);
    execs[e] = it == graphs.end() ? 0 : it->second;
  }
  uint32_t OwnKernels(CUgraphExec e) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = execs.find(e);
    return it == execs.end() ? 0 : it->second;
  }
};
GraphOwnership g_graphs;

// The first members of every cuGraphInstantiate* parameter block.
struct InstantiateParams {
  CUgraphExec* phGraphExec;
  CUgraph hGraph;
};

// At the exit of the calls whose results GraphOwnership needs.
void OnDriverApiExit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz: {
      const auto* p = static_cast<const cuStreamEndCapture_params*>(cb->functionParams);
      if (p->phGraph && *p->phGraph) g_graphs.Ended(p->hStream, *p->phGraph);
      return;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz: {
      const auto* p = static_cast<const InstantiateParams*>(cb->functionParams);
      if (p->phGraphExec && *p->phGraphExec) g_graphs.Instantiated(p->hGraph, *p->phGraphExec);
      return;
    }
    default:
      return;
  }
}

// Compat: follows the calls that join side-stream work back (JoinTracker).
bool WatchJoin(CUpti_CallbackId cbid, const void* params) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
      const auto* p = static_cast<const cuEventRecord_params*>(params);
      g_joins.Recorded(p->hEvent, p->hStream);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
      const auto* p = static_cast<const cuEventRecordWithFlags_params*>(params);
      g_joins.Recorded(p->hEvent, p->hStream);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
      const auto* p = static_cast<const cuStreamWaitEvent_params*>(params);
      if (!Capturing(p->hStream) && OnTimedStream(p->hStream)) g_joins.Joined(p->hEvent);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      g_joins.Joined(static_cast<const cuEventSynchronize_params*>(params)->hEvent);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      g_joins.StreamSynchronized(static_cast<const cuStreamSynchronize_params*>(params)->hStream);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
      g_joins.AllSynchronized();
      return true;
    default:
      return false;
  }
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
  CUstream s = CopyStream(cbid, cb->functionParams);
  if (Capturing(s)) return;  // recorded into a graph, not run
  // A synchronous copy (null here) runs on the legacy default stream.
  if ((s || g_legacy) && OnTimedStream(s)) return;
  if (g_legacy && s) g_joins.Work(s);
  if (g_side_copies++ == 0) g_first_side_copy = fn;
}

void CUPTIAPI OnDriverApi(void*, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite == CUPTI_API_EXIT) return OnDriverApiExit(cbid, cb);
  if (cb->callbackSite != CUPTI_API_ENTER) return;
  CUstream s = nullptr;
  CUgraphExec graph = nullptr;
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
      graph = static_cast<const cuGraphLaunch_params*>(cb->functionParams)->hGraph;
      break;
    default:
      if (g_legacy && WatchJoin(cbid, cb->functionParams)) return;
      return WatchCopy(cbid, cb);
  }
  const char* name = cb->symbolName;
  // Asked first, and alone: while a stream captures, cuStreamIsCapturing is
  // the one question about it the driver documents as safe. Asking its
  // flags (OnTimedStream) invalidated torch.cuda.graph's capture, in every
  // capture mode (scripts/gpu-check-graph-capture).
  if (Capturing(s)) {  // recorded into a graph, not run
    g_graphs.Recorded(s, IsOwn(name));
    return;
  }
  if (!g_in_call && g_between_armed) ++g_between;
  if (!OnTimedStream(s)) {
    ++g_side;
    if (g_legacy) g_joins.Work(s);
  }
  ++g_launches;
  if (IsOwn(name) || (graph && g_graphs.OwnKernels(graph) > 0)) ++g_own;
  Seen(name ? name : graph ? "(graph)" : nullptr);
}

// The driver calls OnDriverApi acts on besides launches (WatchCopy,
// WatchJoin, OnDriverApiExit), by name prefix: how many were enabled.
int EnableWatchedByName(CUpti_SubscriberHandle sub) {
  static const char* const kPrefixes[] = {
      "cuMemcpy",          "cuMemset",           "cuEventRecord",
      "cuStreamWaitEvent", "cuEventSynchronize", "cuStreamSynchronize",
      "cuCtxSynchronize",  "cuStreamEndCapture", "cuGraphInstantiate",
  };
  int enabled = 0;
  for (uint32_t id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) != CUPTI_SUCCESS || !name)
      continue;
    for (const char* prefix : kPrefixes)
      if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) {
        if (cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id) == CUPTI_SUCCESS) ++enabled;
        break;
      }
  }
  return enabled;
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
  // Copies and memsets have dozens of entry points, picked out by name.
  // Only the calls the callbacks look at are watched: a callback on every
  // driver call (PyTorch makes several per operator) cost a compat model
  // about 20 us of host time per launch.
  if (EnableWatchedByName(sub) < 40) cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  return true;
}

std::string Err(const char* what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

uint64_t Nanos(std::chrono::steady_clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

}  // namespace

CudaSandbox* CudaSandbox::active_ = nullptr;

bool CudaSandbox::Init(const std::string& pci_bus_id, const std::string& arena_hex, size_t l2_bytes,
                       const std::vector<std::string>& own_kernels, bool compat,
                       std::string* error) {
  compat_ = compat;
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
  cudaStream_t s = nullptr;  // compat: the legacy default stream
  if (!compat) {
    if (cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); e != cudaSuccess)
      return *error = Err("cudaStreamCreate", e), false;
  }
  g_legacy = compat;
  stream_ = s;
  g_stream = reinterpret_cast<CUstream>(s);
  cudaEvent_t a, b, c;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventCreate(&c);
  start_ = a;
  end_ = b;
  call_end_ = c;
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

void CudaSandbox::Bound() { g_between = 0; }

void* CudaSandbox::AllocWorkspace(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, WorkspaceAllocationBytes(bytes)) != cudaSuccess) return nullptr;
  auto* workspace = static_cast<unsigned char*>(p) + kWorkspaceGuardBytes;
  // Between calls, on the legacy stream, waited for: the candidate's stream
  // sees the canaries in place.
  if (cudaMemset(p, kWorkspaceCanary, kWorkspaceGuardBytes) != cudaSuccess ||
      cudaMemset(workspace + bytes, kWorkspaceCanary, WorkspaceTailGuardBytes(bytes)) !=
          cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess) {
    cudaFree(p);
    return nullptr;
  }
  return workspace;
}

void CudaSandbox::FreeWorkspace(void* p) {
  if (p) cudaFree(static_cast<unsigned char*>(p) - kWorkspaceGuardBytes);
}

std::string CudaSandbox::WorkspaceGuardHit(void* workspace, size_t bytes) {
  // After Call's device-wide synchronisation: nothing of the call still runs.
  std::vector<unsigned char> head(kWorkspaceGuardBytes), tail(WorkspaceTailGuardBytes(bytes));
  auto* w = static_cast<unsigned char*>(workspace);
  cudaError_t e =
      cudaMemcpy(head.data(), w - kWorkspaceGuardBytes, head.size(), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess) e = cudaMemcpy(tail.data(), w + bytes, tail.size(), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return Err("reading the workspace's canaries", e);
  return DescribeWorkspaceGuardHit(head.data(), tail.data(), bytes);
}

void CudaSandbox::MarkEnd() {
  if (!compat_ || !in_call_ || marked_) return;  // the first mark of a call counts
  marked_ = true;
  cudaEventRecord(static_cast<cudaEvent_t>(end_), static_cast<cudaStream_t>(stream_));
}

DeviceCallResult CudaSandbox::Call(int (*forward)(const hone_args*),
                                   int (*before_call)(const hone_args*), hone_args* args,
                                   bool flush_l2, bool hold) {
  DeviceCallResult r;
  g_in_call = true;
  r.launched_between = g_between.exchange(0) > 0;
  struct Between {  // counted again once this call has returned
    ~Between() {
      g_in_call = false;
      g_between_armed = true;
    }
  } between;
  args->stream = stream_;
  // Before the hold and the flush: whatever it waits for is not timed.
  if (before_call) before_call(args);
  auto s = static_cast<cudaStream_t>(stream_);
  auto a = static_cast<cudaEvent_t>(start_);
  auto b = static_cast<cudaEvent_t>(end_);
  auto c = static_cast<cudaEvent_t>(call_end_);
  hold = hold && hold_enabled_;
  r.held = hold;
  if (hold) {
    hold_flags_[0] = 0;  // release
    hold_flags_[1] = 0;  // timed out
    // Long enough for any honest hone_forward to enqueue its launches; a
    // compat candidate's Python dispatches a whole model's operators.
    const uint64_t timeout_nanos = compat_ ? 200'000'000 : 20'000'000;
    LaunchHold(hold_flags_device_, hold_flags_device_ + 1, timeout_nanos, s);
  }
  if (flush_l2 && flush_) LaunchReadFlush(flush_, flush_bytes_, flush_sink_, s);
  g_launches = g_own = g_side = g_side_copies = 0;
  g_first_side_copy = nullptr;
  g_joins.Reset();
  {
    std::lock_guard<std::mutex> lock(g_names_mu);
    g_seen_names.clear();
  }
  cudaEventRecord(a, s);
  in_call_ = true;
  marked_ = false;
  active_ = this;
  r.rc = forward(args);
  // Before the sandbox's own synchronisations below, which would join everything.
  r.unjoined_streams = g_joins.Unjoined();
  active_ = nullptr;
  in_call_ = false;
  if (!marked_) cudaEventRecord(b, s);
  cudaEventRecord(c, s);
  r.marked = marked_;
  if (hold) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_flags_[0] = 1;
  }
  cudaError_t e = cudaEventSynchronize(c);
  // A hone_forward that waited on the GPU sat out the hold's timeout: its
  // later calls are timed without holding (launch latency then included).
  r.hold_timed_out = hold && hold_flags_[1] != 0;
  if (r.hold_timed_out) hold_enabled_ = false;
  // Work on a stream the hold does not hold (a compat candidate's
  // non-blocking side stream) starts while the timed stream waits: this
  // call's time is not all of its work, and later calls run unheld.
  if (hold && g_side > 0) hold_enabled_ = false;
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) {
    r.error = Err("CUDA error during the call", e);
    return r;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  r.nanos = static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
  if (r.marked) {
    float post = 0;
    cudaEventElapsedTime(&post, b, c);
    r.post_mark_nanos = static_cast<uint64_t>(static_cast<double>(post) * 1e6);
  }
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
