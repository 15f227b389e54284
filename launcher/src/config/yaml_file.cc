// SPDX-License-Identifier: Apache-2.0
#include "config/yaml_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>

#include "hvd/error.h"

namespace hvd::launcher::config {
namespace {

// yaml-cpp 0.7 can spin for minutes on bytes that are not UTF-8 (found by fuzz/profile_yaml),
// and such text could not be a name, a path or a module anyway: refuse it up front, at the
// first bad byte.
void refuse_invalid_utf8(const std::string& text, const std::string& name) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len != 0 && i + len <= text.size() && !(len == 2 && c < 0xC2) && !(c > 0xF4);
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    }
    if (ok && len == 3) {  // no overlong forms, no UTF-16 surrogates
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    }
    if (ok && len == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      throw ConfigError(str_cat(name, ":", line, ":", column,
                                ": not UTF-8 text (byte ", static_cast<int>(c),
                                "); save the file as UTF-8"));
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
}

std::string mark_text(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return str_cat(file, ":", mark.line + 1, ":", mark.column + 1);
}

template <typename T>
T convert(const std::string& file, const YAML::Node& node, const std::string& path,
          const char* what) {
  if (node.IsScalar()) {
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      // Fall through to the error below, which says what was expected.
    }
  }
  const std::string got = node.IsScalar() ? "'" + node.Scalar() + "'"
                          : node.IsMap()  ? std::string("a mapping")
                          : node.IsSequence() ? std::string("a list")
                                              : std::string("nothing");
  throw ConfigError(str_cat(where(file, node), ": ", path, ": expected ", what, ", got ", got));
}

// Walks the parser's events and throws at the first anchor (&name) or alias (*name). yaml-cpp
// shares an aliased node instead of copying it, but everything that walks a profile (the
// extends: merge records every path) visits each use: nine levels of nine aliases in 407 bytes
// made 9^9 paths, 33 s and 2.9 GB. No profile or config needs them, so they are refused.
class NoAliases : public YAML::EventHandler {
 public:
  explicit NoAliases(const std::string& name) : name_(name) {}
  void OnDocumentStart(const YAML::Mark& mark) override { last_document_ = mark; }
  /// Where the last document began (the second one's start is what the error names).
  const YAML::Mark& last_document() const { return last_document_; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { check(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    refuse(mark, "an alias (*name)");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    check(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    check(mark, anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    check(mark, anchor);
  }
  void OnMapEnd() override {}

 private:
  void check(const YAML::Mark& mark, YAML::anchor_t anchor) const {
    if (anchor != YAML::NullAnchor) refuse(mark, "an anchor (&name)");
  }
  [[noreturn]] void refuse(const YAML::Mark& mark, const char* what) const {
    throw ConfigError(str_cat(mark_text(name_, mark), ": ", what,
                              ": YAML anchors and aliases are not allowed in hvdrun's files; "
                              "write the value out where it is used"));
  }
  const std::string& name_;
  YAML::Mark last_document_ = YAML::Mark::null_mark();
};

// Also refuses a second document. At most two documents are asked of the parser, never "all":
// yaml-cpp 0.7 answers some stray text (a ',' after a comment line, found by the fuzz target)
// with one empty document after another without consuming anything, so YAML::LoadAll, and any
// loop until the parser says no, runs forever.
void refuse_aliases(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  NoAliases handler(name);
  if (parser.HandleNextDocument(handler) && parser.HandleNextDocument(handler)) {
    throw ConfigError(str_cat(mark_text(name, handler.last_document()),
                              ": only one YAML document is allowed (a second one begins here: "
                              "a '---', a '...' or stray text such as a ',' ends the first)"));
  }
}

}  // namespace

YAML::Node load_yaml_text(const std::string& text, const std::string& name) {
  refuse_invalid_utf8(text, name);
  try {
    refuse_aliases(text, name);  // and a second document, which YAML::Load would drop unsaid
    return YAML::Load(text);     // empty or comments only: a null node
  } catch (const YAML::Exception& e) {
    throw ConfigError(str_cat(mark_text(name, e.mark), ": malformed YAML: ", e.msg));
  }
}

YAML::Node load_yaml_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw ConfigError(str_cat(path, ": cannot read: it is a directory, not a YAML file"));
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(str_cat(path, ": cannot read: ", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(str_cat(path, ": cannot read: ", std::strerror(errno)));
  return load_yaml_text(text.str(), path);
}

std::string where(const std::string& file, const YAML::Node& node) {
  return mark_text(file, node.Mark());
}

void check_keys(const std::string& file, const YAML::Node& map, std::string_view section,
                std::initializer_list<std::string_view> allowed) {
  if (!map.IsMap()) {
    throw ConfigError(str_cat(where(file, map), ": ", section.empty() ? "the file" : section,
                              " must be a mapping of keys to values"));
  }
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (known) continue;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    const std::string full = section.empty() ? key : str_cat(section, ".", key);
    throw ConfigError(str_cat(where(file, entry.first), ": unknown key '", full,
                              "' (known here: ", list, ")"));
  }
}

int as_int(const std::string& file, const YAML::Node& node, const std::string& path) {
  return convert<int>(file, node, path, "an integer");
}
double as_double(const std::string& file, const YAML::Node& node, const std::string& path) {
  return convert<double>(file, node, path, "a number");
}
bool as_bool(const std::string& file, const YAML::Node& node, const std::string& path) {
  return convert<bool>(file, node, path, "true or false");
}
std::string as_string(const std::string& file, const YAML::Node& node, const std::string& path) {
  return convert<std::string>(file, node, path, "a string");
}

}  // namespace hvd::launcher::config
