// A struct's JSON form declared once. A specialisation of Fields<T> lists
// T's members with their keys to a visitor; ToJson walks that list to build
// a JSON object and FromJson walks the same list to fill a T back from one,
// so adding a field is one line and the two directions cannot drift apart.
//
//   template <> struct Fields<Build> {
//     static constexpr bool kDeclared = true;
//     template <class F> static void Visit(Build& b, F& f) {
//       f("cached", b.cached);
//       f("seconds", b.seconds);
//     }
//   };
//
// Visit takes a mutable reference so that one list serves both directions;
// ToJson's visitor only reads through it.
//
// A member is one of: a bool, integer, double or string; a struct that has
// Fields (a nested object); a std::vector or std::optional of those (an
// optional is written only when it holds a value). Adaptors say what a
// plain member cannot:
//   Micros(seconds)       a time (or a list of them) kept in seconds and
//                         written in microseconds
//   Pair(a, b)            two members written as one [a, b] array
//   WrittenIf(when, m)    m is written only when `when` holds
//   Derived(value)        a value computed from others: written, never read
//   Named(e, name, parse) an enum (or a set of bits) written as its name
//
// Reading is lenient so that older and imported JSON still loads: a
// missing or null key leaves the member as it was (its default); a double
// whose value is not a number (JSON has no NaN: a NaN is written as null)
// is left as it was too, except inside a list of doubles, where it reads as
// NaN so positions are kept; a [a, b] pair that is not a two-element array
// is skipped. A value of the wrong kind for a string, bool, integer, list or
// object member throws nlohmann::json::exception; callers turn that into a
// Status.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hone::json_schema {

// Specialise for every struct written as a JSON object (see above).
template <class T>
struct Fields {
  static constexpr bool kDeclared = false;
};

template <class T>
struct Micros {
  T& seconds;  // double or std::vector<double>
};
template <class T>
Micros(T&) -> Micros<T>;

template <class A, class B>
struct PairOf {
  A first;
  B second;
};
inline PairOf<double&, double&> Pair(double& a, double& b) { return {a, b}; }
inline PairOf<Micros<double>, Micros<double>> Pair(Micros<double> a, Micros<double> b) {
  return {a, b};
}

template <class T>
struct Conditional {
  bool when;
  T member;  // a reference to a member, or an adaptor
};
template <class T>
Conditional<T> WrittenIf(bool when, T&& member) {
  return {when, std::forward<T>(member)};
}

template <class T>
struct DerivedValue {
  T value;
};
template <class T>
DerivedValue<T> Derived(T value) {
  return {std::move(value)};
}

template <class E, class Name, class Parse>
struct NamedEnum {
  E& value;
  Name name;    // E -> its name (a string or string_view)
  Parse parse;  // the name -> E; also given "" for a missing key
};
template <class E, class Name, class Parse>
NamedEnum<E, Name, Parse> Named(E& value, Name name, Parse parse) {
  return {value, name, parse};
}

namespace detail {

template <class T, template <class...> class Of>
inline constexpr bool kIs = false;
template <template <class...> class Of, class... A>
inline constexpr bool kIs<Of<A...>, Of> = true;

template <class T>
bool Present(const T& m) {
  if constexpr (kIs<T, Conditional>)
    return m.when && Present(m.member);
  else if constexpr (kIs<T, std::optional>)
    return m.has_value();
  else
    return true;
}

template <class T>
nlohmann::json Write(const T& m);

class Writer {
 public:
  explicit Writer(nlohmann::json& object) : object_(object) {}
  template <class T>
  void operator()(const char* key, T&& member) {
    if (Present(member)) object_[key] = Write(member);
  }

 private:
  nlohmann::json& object_;
};

template <class T>
nlohmann::json Write(const T& m) {
  if constexpr (kIs<T, Conditional>) {
    return Write(m.member);
  } else if constexpr (kIs<T, DerivedValue>) {
    return m.value;
  } else if constexpr (kIs<T, NamedEnum>) {
    return std::string(m.name(m.value));
  } else if constexpr (kIs<T, PairOf>) {
    return nlohmann::json::array({Write(m.first), Write(m.second)});
  } else if constexpr (kIs<T, Micros>) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m.seconds)>, double>) {
      return m.seconds * 1e6;
    } else {
      nlohmann::json out = nlohmann::json::array();
      for (double s : m.seconds) out.push_back(s * 1e6);
      return out;
    }
  } else if constexpr (kIs<T, std::optional>) {
    return Write(*m);
  } else if constexpr (kIs<T, std::vector>) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : m) out.push_back(Write(e));
    return out;
  } else if constexpr (Fields<T>::kDeclared) {
    nlohmann::json out = nlohmann::json::object();
    Writer writer(out);
    Fields<T>::Visit(const_cast<T&>(m), writer);
    return out;
  } else {
    return m;
  }
}

template <class T>
void Read(const nlohmann::json& j, T&& m);

// Whether `j` holds a value to read as Kind (array_t, object_t): false for
// null; throws nlohmann::json::type_error for a value of another kind.
template <class Kind>
bool Holds(const nlohmann::json& j) {
  if (j.is_null()) return false;
  (void)j.template get_ref<const Kind&>();
  return true;
}

class Reader {
 public:
  explicit Reader(const nlohmann::json& object) : object_(object) {}
  template <class T>
  void operator()(const char* key, T&& member) {
    static const nlohmann::json kNull;
    auto it = object_.find(key);
    Read(it == object_.end() ? kNull : *it, std::forward<T>(member));
  }

 private:
  const nlohmann::json& object_;
};

template <class T>
void Read(const nlohmann::json& j, T&& m) {
  using U = std::remove_cvref_t<T>;
  if constexpr (kIs<U, Conditional>) {
    Read(j, m.member);
  } else if constexpr (kIs<U, DerivedValue>) {
    // Computed on writing; nothing to read back.
  } else if constexpr (kIs<U, NamedEnum>) {
    m.value = m.parse(j.is_string() ? j.template get_ref<const std::string&>() : "");
  } else if constexpr (kIs<U, PairOf>) {
    if (j.is_array() && j.size() == 2) {
      Read(j[0], m.first);
      Read(j[1], m.second);
    }
  } else if constexpr (kIs<U, Micros>) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(m.seconds)>, double>) {
      if (j.is_number()) m.seconds = j.template get<double>() * 1e-6;
    } else if (Holds<nlohmann::json::array_t>(j)) {
      m.seconds.clear();
      for (const auto& e : j)
        m.seconds.push_back(e.is_number() ? e.template get<double>() * 1e-6
                                          : std::numeric_limits<double>::quiet_NaN());
    }
  } else if constexpr (kIs<U, std::optional>) {
    if (!j.is_null()) Read(j, m.emplace());
  } else if constexpr (std::is_same_v<U, std::vector<double>>) {
    if (Holds<nlohmann::json::array_t>(j)) {
      m.clear();
      for (const auto& e : j)
        m.push_back(e.is_number() ? e.template get<double>()
                                  : std::numeric_limits<double>::quiet_NaN());
    }
  } else if constexpr (kIs<U, std::vector>) {
    if (Holds<nlohmann::json::array_t>(j)) {
      m.clear();
      for (const auto& e : j) Read(e, m.emplace_back());
    }
  } else if constexpr (Fields<U>::kDeclared) {
    if (Holds<nlohmann::json::object_t>(j)) {
      Reader reader(j);
      Fields<U>::Visit(m, reader);
    }
  } else if constexpr (std::is_same_v<U, double>) {
    if (j.is_number()) m = j.template get<double>();
  } else {
    if (!j.is_null()) m = j.template get<U>();
  }
}

}  // namespace detail

// `value` as a JSON object through Fields<T>.
template <class T>
nlohmann::json ToJson(const T& value) {
  return detail::Write(value);
}

// Fills `value` from `j` through Fields<T>, leaving members whose keys are
// missing as they were. Throws nlohmann::json::exception on a value of the
// wrong kind (see above).
template <class T>
void FromJson(const nlohmann::json& j, T& value) {
  detail::Read(j, value);
}

}  // namespace hone::json_schema
