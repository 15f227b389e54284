// SPDX-License-Identifier: Apache-2.0
#pragma once
// Typed reads of a parsed JSON document that a user handed to hvdrun (hvd-train, hvd-bench and
// hvd-preflight output). nlohmann's get<>() and value() throw type_error on a value of the wrong
// type, which the launcher can only report as an internal error (exit 70); and get<int>() of a
// huge number is undefined. Every field read through JsonField instead checks the type and the
// range, and a wrong one is one ConfigError line (exit 3) naming the file, the field as a JSON
// pointer (RFC 6901, e.g. /img_per_sec_per_rank/mean) and what was expected.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hvd::launcher::util {

/// One value inside a document, with where it sits. Holds pointers: the file name and the
/// document must outlive every JsonField made from them. All errors are ConfigError.
class JsonField {
 public:
  /// The document's root; `file` names it in errors.
  JsonField(const std::string& file, const nlohmann::json& doc);

  const nlohmann::json& raw() const { return *value_; }
  /// The JSON pointer ("" for the root).
  const std::string& pointer() const { return pointer_; }

  /// The member `key`. Throws when this is not an object or has no such member.
  JsonField at(const std::string& key) const;
  /// Whether this object has member `key` with a value other than null. Throws when this is
  /// not an object.
  bool has(const std::string& key) const;
  /// The elements of this array, at most `max_size` of them. Throws when this is not an array
  /// or is longer.
  std::vector<JsonField> elements(size_t max_size = 1000000) const;
  /// The members of this object, in the document's order.
  std::vector<std::pair<std::string, JsonField>> members() const;

  /// A string of at most `max_size` bytes.
  std::string text(size_t max_size = 4096) const;
  /// A number in [min, max] (JSON has no NaN or infinity; 1e999 is refused by the parser).
  double number(double min, double max) const;
  /// A whole number in [min, max]; 3.0 counts as 3.
  int64_t whole(int64_t min, int64_t max) const;
  bool flag() const;

  /// The optional member `key` (absent or null: `fallback`) read as text, number, whole.
  std::string text_or(const std::string& key, const std::string& fallback) const;
  double number_or(const std::string& key, double fallback, double min, double max) const;
  int64_t whole_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) const;

  /// Throws "FILE: POINTER must be EXPECTED, not <what it is>".
  [[noreturn]] void fail(const std::string& expected) const;

 private:
  JsonField(const std::string* file, const nlohmann::json* value, std::string pointer);
  void expect_object() const;

  const std::string* file_;
  const nlohmann::json* value_;
  std::string pointer_;
};

}  // namespace hvd::launcher::util
