#include "formats/toy/toy_format.h"

#include <algorithm>
#include <sstream>

#include "core/fs.h"
#include "core/hash.h"
#include "support/source_dir.h"

namespace hone::testing {
namespace {

namespace fs = std::filesystem;

// The KernelBench file of a .toy problem, or Status naming its line.
Result<std::string> KernelBenchSource(const fs::path& file) {
  HONE_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  std::string name, output, args, draws;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    if (key == "name") {
      words >> name;
    } else if (key == "input") {
      std::string arg, dtype, sizes;
      words >> arg >> dtype;
      for (std::string d; words >> d;) sizes += d + ", ";
      args += (args.empty() ? "" : ", ") + arg;
      draws += "torch.randn(" + sizes + "dtype=torch." + dtype + "), ";
    } else if (key == "output") {
      std::getline(words, output);
    } else if (!key.empty()) {
      return Status::Invalid(file.string() + ":" + std::to_string(n) + ": unknown key '" + key +
                             "' (name, input, output)");
    }
  }
  if (name.empty() || output.empty() || args.empty())
    return Status::Invalid(file.string() + ": needs a name, an input and an output");
  return "import torch\nfrom torch import relu\n\nhone_task = {'name': '" + name +
         "', 'category': 'toy', 'format': 'toy'}\n\n\nclass Model(torch.nn.Module):\n"
         "    def forward(self, " +
         args + "):\n        return" + output + "\n\n\ndef get_inputs():\n    return [" + draws +
         "]\n\n\ndef get_init_inputs():\n"
         "    return []\n";
}

class Toy : public TaskFormat {
 public:
  std::string name() const override { return kToyFormat; }
  std::string describe() const override { return "a toy problem (.toy)"; }
  bool ClaimsProblem(const fs::path& path) const override { return path.extension() == ".toy"; }
  bool ClaimsSuite(const fs::path& path) const override {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (ClaimsProblem(e.path())) return true;
    return false;
  }
  Result<std::vector<ProblemPart>> Parts(const fs::path& problem,
                                         const PartOptions&) const override {
    HONE_ASSIGN_OR_RETURN(std::string source, KernelBenchSource(problem));
    HONE_ASSIGN_OR_RETURN(fs::path cache, CacheDir());
    fs::path file = cache / "formats/toy" / ContentHash({source}).substr(0, 16) /
                    (problem.stem().string() + ".py");
    fs::create_directories(file.parent_path());
    HONE_RETURN_IF_ERROR(WriteFileAtomic(file, source));
    return std::vector<ProblemPart>{{file, "", ""}};
  }
  Result<std::vector<SuiteEntry>> Discover(const fs::path& suite,
                                           const SuiteLayout& layout) const override {
    std::vector<fs::path> problems;
    for (const auto& e : fs::directory_iterator(suite))
      if (ClaimsProblem(e.path())) problems.push_back(e.path());
    std::sort(problems.begin(), problems.end());
    std::vector<SuiteEntry> out;
    for (const auto& problem : problems) {
      HONE_ASSIGN_OR_RETURN(auto parts, Parts(problem, {}));
      SuiteEntry entry;
      entry.task = parts.front().load;
      entry.category = "toy";
      std::error_code ec;
      for (const auto& s : fs::directory_iterator(suite / problem.stem(), ec))
        if (!layout.is_solution || layout.is_solution(s.path()))
          entry.solutions.push_back(s.path());
      std::sort(entry.solutions.begin(), entry.solutions.end());
      out.push_back(std::move(entry));
    }
    HONE_RETURN_IF_ERROR(ApplyOnly(suite, out, layout));
    return out;
  }
};

}  // namespace

std::unique_ptr<TaskFormat> ToyFormat() { return std::make_unique<Toy>(); }

fs::path ToyDir() { return SourceDir() / "tests/formats/toy"; }

}  // namespace hone::testing
