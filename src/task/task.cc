#include "task/task.h"

#include <cctype>

#include "core/backend_names.h"

namespace hone {

Tolerance DefaultTolerance(Dtype t) {
  switch (t) {
    case HONE_F64:
      return {1e-10, 1e-10, 1e-12};
    case HONE_F32:
      return {1e-4, 1e-4, 1e-5};
    case HONE_F16:
      return {1e-2, 1e-2, 3e-3};
    case HONE_BF16:
      return {2e-2, 2e-2, 2e-2};
    default:
      return {0, 0, 0};
  }
}

Tolerance Task::ToleranceFor(Dtype output_dtype) const {
  Tolerance t = DefaultTolerance(output_dtype);
  if (!IsFloating(output_dtype)) return t;
  if (atol) t.atol = *atol;
  if (rtol) t.rtol = *rtol;
  if (precision) t.precision = *precision;
  if (required_matched_ratio) t.required_matched_ratio = *required_matched_ratio;
  return t;
}

bool ShapeCase::RunsOn(const std::string& backend) const {
  if (backends.empty()) return true;
  for (const auto& b : backends)
    if (b == backend) return true;
  return false;
}

Result<std::filesystem::path> Task::ReferenceFor(const std::string& device) const {
  if (device == kHostBackend) return reference;
  auto it = device_references.find(device);
  if (it == device_references.end()) return Status::Invalid("unknown backend '" + device + "'");
  if (it->second.file.empty()) {
    std::string upper = device;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return Status::Invalid(dir.string() + ": the task has no " + upper + " reference (" +
                           it->second.default_name + ")");
  }
  return it->second.file;
}

std::vector<const ShapeCase*> Task::CasesFor(const std::string& backend) const {
  std::vector<const ShapeCase*> out;
  for (const auto& c : cases)
    if (c.RunsOn(backend)) out.push_back(&c);
  return out;
}

Result<std::vector<int64_t>> ResolveShape(const TensorDecl& decl, const ShapeCase& c) {
  std::vector<int64_t> shape;
  for (const auto& e : decl.shape) {
    auto v = e.EvalInt(c.symbols);
    if (!v.ok()) return v.status().With(decl.name + ": ");
    if (*v < 0) return Status::Invalid(decl.name + ": negative dimension " + e.text());
    shape.push_back(*v);
  }
  return shape;
}

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace hone
