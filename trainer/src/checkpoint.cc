// SPDX-License-Identifier: Apache-2.0
#include "checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "hvd/error.h"
#include "hvd/str_cat.h"

namespace hvd::train {
namespace {

constexpr char kMagic[8] = {'H', 'V', 'D', 'T', 'R', 'N', '0', '1'};

class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    put_bytes(&v, sizeof(T));
  }
  void put_bytes(const void* p, size_t n) {
    const auto* b = static_cast<const char*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Reader {
 public:
  Reader(const std::vector<char>& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  template <typename T>
  T get() {
    T v;
    get_bytes(&v, sizeof(T));
    return v;
  }
  void get_bytes(void* p, size_t n) {
    if (n > bytes_.size() - pos_)
      throw ConfigError(str_cat("hvd-train: ", path_, ": truncated checkpoint"));
    std::memcpy(p, bytes_.data() + pos_, n);
    pos_ += n;
  }

 private:
  const std::vector<char>& bytes_;
  const std::string& path_;
  size_t pos_ = 0;
};

uint64_t checksum(const char* p, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001B3ull;
  return h;
}

std::vector<char> encode(const Checkpoint& c) {
  Writer w;
  w.put_bytes(kMagic, sizeof(kMagic));
  w.put(static_cast<uint32_t>(c.widths.size()));
  for (int width : c.widths) w.put(static_cast<int32_t>(width));
  w.put(c.step);
  w.put(static_cast<uint64_t>(c.params.size()));
  w.put_bytes(c.params.data(), c.params.size() * sizeof(float));
  w.put_bytes(c.momentum.data(), c.momentum.size() * sizeof(float));
  w.put(checksum(w.bytes().data(), w.bytes().size()));
  return std::move(w.bytes());
}

void write_all(int fd, const std::vector<char>& bytes, const std::string& tmp) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConfigError(str_cat("hvd-train: writing ", tmp, ": ", std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0)
    throw ConfigError(str_cat("hvd-train: fsync ", tmp, ": ", std::strerror(errno)));
}

}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  const std::vector<char> bytes = encode(c);
  // Same folder as the target, so rename() stays on one file system and is atomic.
  const std::string tmp = str_cat(path, ".tmp.", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw ConfigError(str_cat("hvd-train: cannot create ", tmp, ": ", std::strerror(errno)));
  try {
    write_all(fd, bytes, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw ConfigError(
        str_cat("hvd-train: cannot rename ", tmp, " to ", path, ": ", std::strerror(err)));
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(str_cat("hvd-train: cannot open checkpoint ", path));
  const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
  if (bytes.size() < sizeof(kMagic) + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw ConfigError(str_cat("hvd-train: ", path, ": not an hvd-train checkpoint"));
  }
  const size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof(stored));
  if (stored != checksum(bytes.data(), body)) {
    throw ConfigError(
        str_cat("hvd-train: ", path, ": checkpoint checksum mismatch (corrupt file)"));
  }
  Reader r(bytes, path);
  char magic[sizeof(kMagic)];
  r.get_bytes(magic, sizeof(magic));
  Checkpoint c;
  c.widths.resize(r.get<uint32_t>());
  for (int& width : c.widths) width = r.get<int32_t>();
  c.step = r.get<int64_t>();
  const uint64_t count = r.get<uint64_t>();
  if (count > body / sizeof(float))
    throw ConfigError(str_cat("hvd-train: ", path, ": truncated checkpoint"));
  c.params.resize(count);
  c.momentum.resize(count);
  r.get_bytes(c.params.data(), count * sizeof(float));
  r.get_bytes(c.momentum.data(), count * sizeof(float));
  return c;
}

}  // namespace hvd::train
