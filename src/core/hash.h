// Content hashing for the compile cache and task identities (XXH3-128).
// Not cryptographic: it names content, it does not authenticate it.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace hone {

// 32 lowercase hex digits over the parts, each length-prefixed so that
// ("ab","c") and ("a","bc") differ.
std::string ContentHash(std::initializer_list<std::string_view> parts);

}  // namespace hone
