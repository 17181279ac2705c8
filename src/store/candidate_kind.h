// What the kind of a stored attempt (CandidateRow::kind) says, read the same
// way by the strategies that write it (src/search/) and the reports that
// read it (src/report/).
//
// A strategy's kinds are plain words: "sample", "refine", "mutate",
// "crossover", and the tree strategy's "root" (a kernel from the first
// prompt), "ideas" (a call for optimisation ideas) and "idea" (a kernel
// that implements one idea; the idea is the attempt's label). The auto
// strategy, which runs other strategies as arms of a bandit, writes
// "ARM:KIND" ("evolve:mutate", "tree:idea"), or just the arm when the kind
// is the arm's own name ("sample", "refine"). An attempt whose own kind is
// "ideas" asked for no code: it is an LLM call, not a candidate. Pure
// functions.
#pragma once

#include <string>
#include <string_view>

namespace hone {

inline constexpr char kRootKind[] = "root";
inline constexpr char kIdeasKind[] = "ideas";
inline constexpr char kIdeaKind[] = "idea";

// "evolve:mutate" -> "mutate"; "refine" -> "refine".
std::string_view OwnKind(std::string_view kind);
// "evolve:mutate" -> "evolve"; "refine" -> "refine".
std::string_view ArmOfKind(std::string_view kind);
// The kind the auto strategy stores: "ARM:KIND", or `arm` when equal.
std::string ArmKind(std::string_view arm, std::string_view kind);
// False for a call that asked for no code (own kind "ideas").
bool AsksForCode(std::string_view kind);

}  // namespace hone
