#include "serve/redis_queue_scripts.h"

#include <map>

namespace hone {

namespace {

// HSETNX of the content key decides; the body and the stream entry are
// written in the same step, so a job is never known without being queued.
const char* kSubmit = R"lua(
if redis.call('HSETNX', KEYS[1], 'key', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'body', ARGV[2], 'attempts', 0)
  redis.call('XADD', KEYS[2], '*', 'id', ARGV[3])
  return 0
end
if redis.call('HGET', KEYS[1], 'key') == ARGV[1] then return 1 end
return 2
)lua";

// Every take counts one attempt; the take past the last allowed attempt
// stores the dead letter's result instead (attempts = max: the tries made).
const char* kLease = R"lua(
local function drop()
  redis.call('XACK', KEYS[3], ARGV[1], ARGV[2])
  redis.call('XDEL', KEYS[3], ARGV[2])
end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[1]) == 0 then
  drop()
  return {0}
end
local n = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if n <= tonumber(ARGV[3]) then
  return {n, redis.call('HGET', KEYS[1], 'body')}
end
redis.call('HSET', KEYS[1], 'attempts', ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'NX')
drop()
redis.call('XADD', KEYS[4], 'MAXLEN', '~', 10000, '*', 'id', ARGV[6], 'attempts', ARGV[3],
           'entry', ARGV[2])
redis.call('INCR', KEYS[5])
redis.call('INCR', KEYS[6])
redis.call('EXPIRE', KEYS[1], ARGV[7])
redis.call('EXPIRE', KEYS[2], ARGV[7])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return {-1}
)lua";

// The result first (NX), the acknowledgement after it.
const char* kComplete = R"lua(
local stored = redis.call('SET', KEYS[1], ARGV[1], 'NX')
if stored then redis.call('INCR', KEYS[4]) end
redis.call('XACK', KEYS[2], ARGV[2], ARGV[3])
redis.call('XDEL', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[6])
if stored then
  redis.call('PUBLISH', ARGV[4], ARGV[5])
  return 1
end
return 0
)lua";

// The stream entry stays; the next lease of it finds the result and drops it.
const char* kCancel = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX') then return 0 end
redis.call('INCR', KEYS[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
)lua";

// XCLAIM with min idle 0 would take the entry from whoever holds it now;
// renewing only one's own lease keeps a reclaimed job with its new worker.
const char* kRenew = R"lua(
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1, ARGV[3])
if #p == 0 then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'JUSTID')
return 1
)lua";

// Idle set to the lease: the next XAUTOCLAIM of any worker takes it.
const char* kRelease = R"lua(
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1, ARGV[3])
if #p == 0 then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[3], 0, ARGV[2], 'IDLE', ARGV[4], 'JUSTID')
return 1
)lua";

}  // namespace

const std::string& RedisQueueScript(const std::string& name) {
  static const std::map<std::string, std::string> scripts = {
      {"submit", kSubmit}, {"lease", kLease}, {"complete", kComplete},
      {"cancel", kCancel}, {"renew", kRenew}, {"release", kRelease}};
  static const std::string none;
  auto it = scripts.find(name);
  return it == scripts.end() ? none : it->second;
}

}  // namespace hone
