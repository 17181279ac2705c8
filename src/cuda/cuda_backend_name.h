// The CUDA backend's name ("cuda": in options, verdicts, the store and a
// task's `backends`), for code outside this folder that must name it: a
// default, a command's choice of device, a lane's label. A header of its
// own because a hone built without CUDA still knows the backend by name
// (session/eval_context.cc registers it as unavailable) and compiles none of
// this folder's sources. What the backend can do is read from its traits
// (run/backend.h), never from its name.
#pragma once

namespace hone {

inline constexpr const char* kCudaBackend = "cuda";

}  // namespace hone
