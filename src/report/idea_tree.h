// The tree strategy's tree of ideas (search/tree_strategy.h), read back from
// a stored run: which kernel each idea changed, what came of it (passed
// with its speedup and its gain over its parent, or why it failed) and how
// often each kernel was expanded. Built from the attempts' kinds, labels
// and parents alone (store/candidate_kind.h), so reports need nothing the
// search did not store. Pure functions of a RunData.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/run_data.h"

namespace hone {

struct IdeaNode {
  size_t attempt = 0;            // index into RunData::attempts
  std::optional<size_t> parent;  // index into IdeaTree::nodes; none for a root
  std::vector<size_t> children;  // indices into IdeaTree::nodes, in seq order
  int depth = 0;
  int expansions = 0;          // calls for ideas on its kernel
  std::optional<double> gain;  // its speedup over its parent's, both passed
};

struct IdeaTree {
  std::vector<IdeaNode> nodes;            // in seq order
  std::vector<size_t> roots;              // indices into nodes
  int ideas = 0, passed = 0, failed = 0;  // idea nodes (not roots)
  int expansions = 0;                     // calls for ideas
  bool empty() const { return nodes.empty(); }
};

// One task's tree: its attempts of own kind "root" or "idea", with every
// attempt an idea or a call for ideas names as its parent (a root taken
// from another strategy of an auto run). Empty for a run without them.
IdeaTree BuildIdeaTree(const RunData& run, const std::string& task_hash);

// "idea tree: ..." then one line per node, indented by depth:
//   #2 vectorise the loop: passed 1.50x (1.50x its parent), expanded 1x
//   #3 block for the cache: compile_error: expected ';'
std::string IdeaTreeText(const RunData& run, const IdeaTree& tree);
// {"roots": [...], "ideas", "passed", "failed", "expansions"}; each node
// {"seq", "kind", "idea", "outcome", "speedup", "gain", "reason",
// "expansions", "children": [...]}.
nlohmann::json IdeaTreeJson(const RunData& run, const IdeaTree& tree);

}  // namespace hone
