// Where `hone serve` and `hone worker` find the Redis ACL credentials of the
// queue: never on the command line (a process list shows it to every user
// of the machine), but in a file named by --redis-auth or in the
// environment (HONE_REDIS_USER, HONE_REDIS_PASSWORD).
//
// The file holds one line, "USER PASSWORD" or "PASSWORD" (the default
// user); blank lines and lines starting with '#' are skipped. It must be
// readable by its owner only (chmod 600), as ssh requires of a key: a
// password others can read authenticates nobody.
//
// Failure: Status::Invalid naming the file and what is wrong, never the
// password. Values only; thread-compatible (reads the environment).
#pragma once

#include <string>

#include "core/status.h"
#include "serve/redis_client.h"

namespace hone {

struct RedisCredentials {
  std::string user;      // empty: Redis's default user
  std::string password;  // empty: no AUTH
};

// From `auth_file` when it is given, else from the environment; none when
// neither says anything.
Result<RedisCredentials> ReadRedisCredentials(const std::string& auth_file);

// The options of a client of `address` ("HOST:PORT") with the credentials
// of `auth_file` or the environment. Errors name the flag (--redis,
// --redis-auth).
Result<RedisClientOptions> RedisOptionsFromFlags(const std::string& address,
                                                 const std::string& auth_file);

}  // namespace hone
