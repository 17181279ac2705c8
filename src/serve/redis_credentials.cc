#include "serve/redis_credentials.h"

#include <sys/stat.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "core/fs.h"

namespace hone {

namespace {

Result<RedisCredentials> ParseCredentialsFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return Status::Invalid("--redis-auth " + path + ": cannot read the file");
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return Status::Invalid("--redis-auth " + path +
                           ": other users can read it; make it the owner's only (chmod 600 " +
                           path + ")");
  auto text = ReadFile(path);
  if (!text.ok()) return text.status().With("--redis-auth: ");
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty() || w[0][0] == '#') continue;
    if (w.size() > 2)
      return Status::Invalid("--redis-auth " + path +
                             ": expected one line 'USER PASSWORD' or 'PASSWORD'");
    if (w.size() == 1) return RedisCredentials{"", w[0]};
    return RedisCredentials{w[0], w[1]};
  }
  return Status::Invalid("--redis-auth " + path + ": the file holds no password");
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Result<RedisCredentials> ReadRedisCredentials(const std::string& auth_file) {
  if (!auth_file.empty()) return ParseCredentialsFile(auth_file);
  RedisCredentials c{Env("HONE_REDIS_USER"), Env("HONE_REDIS_PASSWORD")};
  if (!c.user.empty() && c.password.empty())
    return Status::Invalid("HONE_REDIS_USER is set but HONE_REDIS_PASSWORD is not");
  return c;
}

Result<RedisClientOptions> RedisOptionsFromFlags(const std::string& address,
                                                 const std::string& auth_file) {
  RedisClientOptions o;
  auto parsed = ParseRedisAddress(address);
  if (!parsed.ok()) return parsed.status().With("--redis: ");
  o.address = *parsed;
  HONE_ASSIGN_OR_RETURN(RedisCredentials c, ReadRedisCredentials(auth_file));
  o.user = std::move(c.user);
  o.password = std::move(c.password);
  return o;
}

}  // namespace hone
