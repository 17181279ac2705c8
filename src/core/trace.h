// A timeline of one hone process on stderr, for finding where wall time goes
// (docs/PERFORMANCE.md's "one `hone eval` process" figures). Off unless the
// environment sets HONE_TRACE (to anything but "" or "0"); then each
// Trace("what") prints "hone trace +1.234s what" with the seconds since the
// process's first Trace or TraceEnabled call.
//
// Thread-safe: lines from several threads never interleave. Costs one
// relaxed load when off.
#pragma once

#include <string_view>

namespace hone {

bool TraceEnabled();
void Trace(std::string_view what);

}  // namespace hone
