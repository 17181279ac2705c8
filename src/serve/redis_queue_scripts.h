// The Lua scripts of RedisJobQueue (redis_job_queue.h has the key layout).
// Redis runs a script atomically, so each step below that touches several
// keys either happens whole or not at all, whatever dies in between.
//
//   submit    KEYS job, jobs stream        ARGV content key, body, id
//             -> 0 created, 1 attached, 2 conflict
//   lease     KEYS job, result, jobs, dead, stat:done, stat:dead
//             ARGV group, entry, max attempts, dead result, channel, id, retention s
//             -> {attempt, body}; {0} dropped (done already or no job);
//                {-1} dead-lettered (result stored NX, XACK, copy to dead)
//   complete  KEYS result, jobs, job, stat:done
//             ARGV result, group, entry, channel, id, retention s
//             -> 1 stored, 0 a result was there; the entry is XACKed after
//                the SET NX either way
//   cancel    KEYS job, result, stat:done  ARGV result, channel, id, retention s
//             -> 1 cancelled, 0 done already, -1 no such job
//   renew     KEYS jobs                    ARGV group, entry, consumer
//             -> 1 renewed, 0 the entry is not this consumer's (any more)
//
// Values only; thread-safe.
#pragma once

#include <string>

namespace hone {

// The script's text; empty for an unknown name.
const std::string& RedisQueueScript(const std::string& name);

}  // namespace hone
