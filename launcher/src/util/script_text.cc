// SPDX-License-Identifier: Apache-2.0
#include "util/script_text.h"

#include <algorithm>
#include <cstdio>

#include "hvd/error.h"

namespace hvd::launcher::util {
namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_.,:=%/@+-").find(c) != std::string_view::npos;
}

}  // namespace

size_t find_control_char(std::string_view text) {
  const auto it = std::find_if(text.begin(), text.end(), is_control);
  return it == text.end() ? std::string_view::npos : static_cast<size_t>(it - text.begin());
}

std::string describe_control_char(std::string_view text) {
  const size_t at = find_control_char(text);
  HVD_CHECK(at != std::string_view::npos, "no control character in '", text, "'");
  const char c = text[at];
  if (c == '\n') return str_cat("a newline at offset ", at);
  if (c == '\r') return str_cat("a carriage return at offset ", at);
  if (c == '\t') return str_cat("a tab at offset ", at);
  char code[8];
  std::snprintf(code, sizeof(code), "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return str_cat("the control character ", code, " at offset ", at);
}

bool is_module_name(std::string_view name) {
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  return !name.empty() && name.size() <= 200 && alnum(name.front()) &&
         std::all_of(name.begin(), name.end(), [&](char c) {
           return alnum(c) || std::string_view("_.+-/@:=").find(c) != std::string_view::npos;
         });
}

std::string sbatch_quote(std::string_view text) {
  HVD_CHECK(find_control_char(text) == std::string_view::npos,
            "control character in an #SBATCH argument");
  if (!text.empty() && std::all_of(text.begin(), text.end(), is_plain)) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace hvd::launcher::util
