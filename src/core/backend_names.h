// The backends' names ("cpu", "cuda": in options, verdicts, the store and a
// task's `backends`) and the file extension nvcc reads as CUDA C++, for code
// outside the backends' own folders that must name one: a default, a
// command's choice of device, a record read from elsewhere. In core/ so that
// every layer can read them, and because a hone built without CUDA still
// knows the CUDA backend by name (session/eval_context.cc registers it as
// unavailable). What a backend can do is read from its traits
// (run/backend.h), and what a language is from its descriptor (lang/), never
// from these names.
#pragma once

namespace hone {

inline constexpr const char* kHostBackend = "cpu";
inline constexpr const char* kCudaBackend = "cuda";
inline constexpr const char* kCudaSourceExtension = ".cu";

}  // namespace hone
