#include "run/standalone_tensors.h"

#include "core/fs.h"

namespace hone {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string t;
  for (size_t d = 0; d < shape.size(); ++d) t += (d ? "x" : "") + std::to_string(shape[d]);
  return t;
}

std::string DtypePrefix(const char* role, const Placement& p) {
  return std::string(role) + ":" + std::to_string(static_cast<int>(p.dtype)) + ":";
}

}  // namespace

Result<std::vector<std::string>> StandaloneTensorSpecs(Arena& arena, const SetLayout& set,
                                                       const std::filesystem::path& scratch) {
  std::vector<std::string> specs;
  for (size_t i = 0; i < set.inputs.size(); ++i) {
    const Placement& p = set.inputs[i];
    std::string bytes(p.bytes, '\0');
    arena.Read(p.offset, bytes.data(), p.bytes);
    std::filesystem::path file = scratch / ("input_" + std::to_string(i) + ".bin");
    HONE_RETURN_IF_ERROR(WriteFileAtomic(file, bytes));
    specs.push_back(DtypePrefix("in", p) + ShapeText(p.shape) + ":" + file.string());
  }
  for (const Placement& p : set.outputs)
    specs.push_back(DtypePrefix("out", p) + ShapeText(p.shape));
  return specs;
}

}  // namespace hone
