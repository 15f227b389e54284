// SPDX-License-Identifier: Apache-2.0
#include "util/json_fields.h"

#include <cmath>
#include <limits>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::launcher::util {
namespace {

using Json = nlohmann::json;

// RFC 6901: "~" and "/" in a key are escaped, so that the pointer names exactly one field.
std::string escaped(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string shown(const std::string& pointer) {
  return pointer.empty() ? "the top level" : pointer;
}

// "string \"1\"", "number 5", "array": enough of the value to recognize it on one line.
std::string described(const Json& v) {
  if (v.is_object() || v.is_array() || v.is_null()) return v.type_name();
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';  // one line, whatever the file held
  }
  return str_cat(v.type_name(), " ", text);
}

}  // namespace

JsonField::JsonField(const std::string& file, const Json& doc) : JsonField(&file, &doc, "") {}

JsonField::JsonField(const std::string* file, const Json* value, std::string pointer)
    : file_(file), value_(value), pointer_(std::move(pointer)) {}

void JsonField::fail(const std::string& expected) const {
  throw ConfigError(
      str_cat(*file_, ": ", shown(pointer_), " must be ", expected, ", not ", described(*value_)));
}

void JsonField::expect_object() const {
  if (!value_->is_object()) fail("an object");
}

JsonField JsonField::at(const std::string& key) const {
  expect_object();
  const auto it = value_->find(key);
  const std::string pointer = str_cat(pointer_, "/", escaped(key));
  if (it == value_->end()) throw ConfigError(str_cat(*file_, ": ", pointer, " is missing"));
  return JsonField(file_, &*it, pointer);
}

bool JsonField::has(const std::string& key) const {
  expect_object();
  const auto it = value_->find(key);
  return it != value_->end() && !it->is_null();
}

std::vector<JsonField> JsonField::elements(size_t max_size) const {
  if (!value_->is_array() || value_->size() > max_size) {
    fail(str_cat("an array of at most ", max_size, " elements"));
  }
  std::vector<JsonField> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) {
    out.push_back(JsonField(file_, &(*value_)[i], str_cat(pointer_, "/", i)));
  }
  return out;
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  expect_object();
  std::vector<std::pair<std::string, JsonField>> out;
  for (const auto& [key, value] : value_->items()) {
    out.emplace_back(key, JsonField(file_, &value, str_cat(pointer_, "/", escaped(key))));
  }
  return out;
}

std::string JsonField::text(size_t max_size) const {
  if (!value_->is_string() || value_->get_ref<const std::string&>().size() > max_size) {
    fail(str_cat("a string of at most ", max_size, " bytes"));
  }
  return value_->get<std::string>();
}

double JsonField::number(double min, double max) const {
  const double v = value_->is_number() ? value_->get<double>() : std::nan("");
  if (!(v >= min && v <= max)) fail(str_cat("a number from ", min, " to ", max));
  return v;
}

int64_t JsonField::whole(int64_t min, int64_t max) const {
  const std::string expected = str_cat("a whole number from ", min, " to ", max);
  if (value_->is_number_unsigned()) {
    const uint64_t v = value_->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) fail(expected);
  }
  if (value_->is_number_integer()) {
    const int64_t v = value_->get<int64_t>();
    if (v < min || v > max) fail(expected);
    return v;
  }
  // A float: checked against the range before the cast, which is undefined outside it.
  const double d = value_->is_number_float() ? value_->get<double>() : std::nan("");
  if (!(d >= static_cast<double>(min) && d <= static_cast<double>(max)) || d != std::floor(d)) {
    fail(expected);
  }
  return static_cast<int64_t>(d);
}

bool JsonField::flag() const {
  if (!value_->is_boolean()) fail("true or false");
  return value_->get<bool>();
}

std::string JsonField::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? at(key).text() : fallback;
}

double JsonField::number_or(const std::string& key, double fallback, double min, double max) const {
  return has(key) ? at(key).number(min, max) : fallback;
}

int64_t JsonField::whole_or(const std::string& key, int64_t fallback, int64_t min,
                            int64_t max) const {
  return has(key) ? at(key).whole(min, max) : fallback;
}

}  // namespace hvd::launcher::util
