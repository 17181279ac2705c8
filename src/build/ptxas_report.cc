#include "build/ptxas_report.h"

#include <regex>
#include <sstream>

namespace hone {

std::vector<KernelResources> ParsePtxasReport(const std::string& log) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)')");
  static const std::regex kProps(R"(Function properties for (\S+))");
  static const std::regex kFrame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(Used (\d+) registers)");
  static const std::regex kSmem(R"((\d+) bytes smem)");
  std::vector<KernelResources> out;
  KernelResources* entry = nullptr;      // the kernel whose "Used" line comes next
  KernelResources* described = nullptr;  // the function whose properties follow
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, kEntry)) {
      out.push_back({m[1].str()});
      entry = &out.back();
      described = nullptr;
    } else if (std::regex_search(line, m, kProps)) {
      described = entry && entry->name == m[1].str() ? entry : nullptr;
    } else if (described && std::regex_search(line, m, kFrame)) {
      described->stack_bytes = std::stoi(m[1].str());
      described->spill_store_bytes = std::stoi(m[2].str());
      described->spill_load_bytes = std::stoi(m[3].str());
    } else if (entry && std::regex_search(line, m, kUsed)) {
      entry->registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, kSmem)) entry->shared_bytes = std::stoi(m[1].str());
    }
  }
  return out;
}

std::string FormatResources(const std::vector<KernelResources>& kernels) {
  std::string out;
  for (const auto& k : kernels) {
    out += k.name + ": " + std::to_string(k.registers) + " registers, " +
           std::to_string(k.shared_bytes) + " B shared, " + std::to_string(k.stack_bytes) +
           " B stack, ";
    if (k.spill_store_bytes || k.spill_load_bytes)
      out += "spills " + std::to_string(k.spill_store_bytes) + " B stored / " +
             std::to_string(k.spill_load_bytes) + " B loaded";
    else
      out += "no spills";
    out += "\n";
  }
  return out;
}

}  // namespace hone
