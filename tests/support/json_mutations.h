// SPDX-License-Identifier: Apache-2.0
#pragma once
// Mutations of a valid JSON document for the input-checking tests: every value (each field,
// each array's first element, at any depth) replaced with a value of each other JSON type, and
// every number with one far out of range. Generated from the document, so that a field added to a
// format is covered without a new hand-written case.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hvd::test {

struct JsonMutation {
  std::string pointer;  // RFC 6901 pointer of the replaced value, e.g. /results/0/op
  nlohmann::json doc;   // the whole document with that value replaced
  std::string what;     // the replacement, as JSON text
};

/// The JSON pointer of every value below the root of `v`, parents before their children. Of an
/// array, only the first element and what is below it: the readers take every element with the
/// same code, and a bench file's hundreds of rows made each command run thousands of times
/// (170 s of CI's ASan phase) for no case the first row does not cover.
inline void collect_pointers(const nlohmann::json& v, const std::string& at,
                             std::vector<std::string>& out) {
  if (!at.empty()) out.push_back(at);
  if (v.is_object()) {
    for (const auto& [key, child] : v.items()) collect_pointers(child, at + "/" + key, out);
  } else if (v.is_array() && !v.empty()) {
    collect_pointers(v[0], at + "/0", out);
  }
}

/// Every mutation of `doc` (whose keys hold no '/' or '~').
inline std::vector<JsonMutation> json_mutations(const nlohmann::json& doc) {
  using nlohmann::json;
  // One value of each JSON type; numbers twice: a plain one and one that no field's range holds.
  const std::vector<json> samples = {
      nullptr, true, 7, "7", json::array({1}), json::object({{"x", 1}}), 1e300, -1e300};
  std::vector<std::string> pointers;
  collect_pointers(doc, "", pointers);
  std::vector<JsonMutation> out;
  for (const std::string& p : pointers) {
    const json& original = doc.at(json::json_pointer(p));
    for (const json& sample : samples) {
      const bool huge = sample.is_number_float();
      const bool same_type =
          original.type() == sample.type() || (original.is_number() && sample.is_number() && !huge);
      if (same_type) continue;
      json mutated = doc;
      mutated.at(json::json_pointer(p)) = sample;
      out.push_back({p, std::move(mutated), sample.dump()});
    }
  }
  return out;
}

}  // namespace hvd::test
