// Evaluation lanes: the items of one shared list (a bench's units, by index)
// spread over several lanes, each lane doing one item at a time. A lane is
// an evaluator on one device (bench/scheduler.h): one evaluation at a time
// per lane keeps timings on one GPU from overlapping, and the lanes together
// keep every GPU of a node busy.
//
// Items are handed out in order from the front of the list to whichever
// lane asks first. Each item is done by exactly one lane, unless that lane
// fails on it: then the item goes back into the list in its place (before
// every item not yet handed out) for another lane, and the failing lane is
// retired (it takes no more items). An item is
// never lost: RunLanes returns when every item is done or every lane is
// retired, and the items left then are reported as undone.
//
// Threads: lane 0 runs on the calling thread; each other lane on a thread
// of its own, started by RunLanes and joined before it returns. With one
// lane no thread is started, so a one-lane run is the caller's own loop.
// `work` is called concurrently for different lanes, never twice at once
// for one lane. `on_retire` is called on the failing lane's thread, with
// the dispatcher's lock released. Borrows everything; no exceptions.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/status.h"

namespace hone {

// Does item `item` on lane `lane`. Ok: the item is done (whatever it came
// to, a failed verdict included). A Status: the lane cannot go on (its
// device or its environment failed); the item goes to another lane.
using LaneWork = std::function<Status(size_t lane, size_t item)>;

// A lane that was retired, on which item, and why.
struct LaneFailure {
  size_t lane = 0;
  size_t item = 0;
  Status status;
};

// What a run of the lanes came to.
struct LanesReport {
  std::vector<LaneFailure> failures;  // lanes retired, in the order they failed
  std::vector<size_t> undone;         // items left when every lane was retired, in order
  std::vector<size_t> done;           // items done, per lane
};

// Called once per retired lane with the failure and how many lanes remain.
using LaneRetired = std::function<void(const LaneFailure& failure, size_t lanes_left)>;

// Does items 0..items-1 over `lanes` lanes (at least one: a programmer
// error otherwise).
LanesReport RunLanes(size_t lanes, size_t items, const LaneWork& work,
                     const LaneRetired& on_retire = {});

}  // namespace hone
