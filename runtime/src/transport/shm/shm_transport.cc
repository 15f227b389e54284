// SPDX-License-Identifier: Apache-2.0
#include "transport/shm/shm_transport.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>
#include <utility>

#include "common/reduce_kernels.h"
#include "common/spin_wait.h"
#include "env/env.h"
#include "hvd/env_keys.h"
#include "hvd/error.h"
#include "hvd/str_cat.h"
#include "transport/setup_timeout.h"
#include "transport/shm/gather_copy.h"
#include "transport/shm/segment_name.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace hvd::backends::ring {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kAlign = 64;  // message starts and piece sizes; a multiple of every dtype
constexpr size_t kDataTypes = static_cast<size_t>(DataType::kInt16) + 1;
// Automatic channel size: the largest power of two from kMinAutoChannel to kMaxAutoChannel
// whose `size` channels fit kAutoSegmentBudget (1 MiB up to 8 ranks). Measured on 2 ranks:
// 1 MiB rings with 128 KiB pieces move about twice as much as 256 KiB rings.
constexpr size_t kMaxAutoChannel = size_t{1} << 20;
constexpr size_t kMinAutoChannel = size_t{64} << 10;
constexpr size_t kAutoSegmentBudget = size_t{8} << 20;
// Waiting: spin while the peer is likely running on another core, then yield (helps when
// ranks outnumber cores), then sleep on the doorbell in bounded naps.
constexpr auto kSpinFor = std::chrono::microseconds(50);
constexpr auto kYieldFor = std::chrono::microseconds(200);
constexpr auto kNap = std::chrono::milliseconds(10);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

uint64_t round_up(uint64_t v) { return (v + kAlign - 1) & ~uint64_t{kAlign - 1}; }

}  // namespace

std::string run_id_from_env() { return env_string(process_env(), env::kRunId, ""); }

struct ShmTransport::Peer {
  std::unique_ptr<ShmSegment> seg;  // the peer's segment (this rank's own at rank_)
  ShmChannel* out = nullptr;        // this rank -> peer, in the peer's segment
  char* out_ring = nullptr;
  uint64_t out_head = 0;     // bytes written to `out` (this rank is its only writer)
  GatherChooser gather;      // how chunks of many runs are copied into `out`
  ShmChannel* in = nullptr;  // peer -> this rank, in this rank's segment
  const char* in_ring = nullptr;
  uint64_t in_tail = 0;  // bytes consumed from `in` (this rank is its only reader)
  std::array<ScatterChooser, 1 + kDataTypes> scatter;  // out of `in`: copies, reductions by dtype
  int64_t pid = 0;
  bool check_pid = false;  // same pid namespace: kill(pid, 0) tells if it lives

  bool closed() const { return seg->header().closed.load(std::memory_order_acquire) != 0; }
};

struct ShmTransport::Transfer {
  int to;
  PieceCursor sbuf;
  size_t sbytes;
  int from;
  PieceCursor rbuf;
  size_t rbytes;
  bool reduce;
  DataType dtype;
  ReduceOp op;
  // Set when the transfer first has to wait (ShmTransport::wait()): a transfer whose peer is
  // ready reads no clock at all (a small allreduce is a few hundred ns; a clock read is ~20).
  Clock::time_point deadline{};
  size_t sent = 0;
  size_t got = 0;
  bool sending() const { return sent < sbytes; }
  bool receiving() const { return got < rbytes; }
};

ShmTransport::ShmTransport(bootstrap::KvStore& store, int rank, int size, ShmOptions options)
    : rank_(rank), size_(size), options_(std::move(options)), peers_(static_cast<size_t>(size)) {
  HVD_CHECK(size > 0 && rank >= 0 && rank < size, "rank ", rank, " of ", size);
  size_t& cap = options_.channel_bytes;
  if (cap == 0) {
    // A per-rank budget keeps large hosts from needing size^2 MiB of /dev/shm.
    cap = kMaxAutoChannel;
    while (cap > kMinAutoChannel && cap * static_cast<size_t>(size) > kAutoSegmentBudget) {
      cap /= 2;
    }
  }
  if (cap < 4096 || (cap & (cap - 1)) != 0) {
    throw ConfigError(
        str_cat("ring shm: channel size ", cap, " must be a power of two of at least 4096 bytes"));
  }
  // Several pieces in flight per channel; pieces large enough that publishing and waking
  // cost little next to copying.
  step_ = cap / 8;
  oversubscribed_ = static_cast<unsigned>(size) > std::thread::hardware_concurrency();
  if (size > 1) connect(store);
}

ShmTransport::~ShmTransport() {
  if (peers_[static_cast<size_t>(rank_)].seg == nullptr) return;
  peers_[static_cast<size_t>(rank_)].seg->header().closed.store(1, std::memory_order_release);
  for (const Peer& p : peers_) {
    if (p.seg) ring_doorbell(p.seg->header().bell);
  }
}

void ShmTransport::connect(bootstrap::KvStore& store) {
  const std::function<std::string(int)> key = [&](int r) {
    return str_cat(options_.scope, "/shm/", r);
  };
  try {
    map_peers(store, key);
  } catch (const TimeoutError& e) {
    throw_setup_timeout("ring shm", rank_, options_.setup_timeout,
                        unpublished_ranks(store, key, size_, rank_), e.what());
  }
}

void ShmTransport::map_peers(bootstrap::KvStore& store,
                             const std::function<std::string(int)>& key) {
  const auto deadline = Clock::now() + options_.setup_timeout;
  const auto left = [&] {
    return std::max(std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()),
                    std::chrono::milliseconds(0));
  };
  const size_t cap = options_.channel_bytes;
  const std::string my_ns = pid_namespace();
  const std::string name = segment_name(options_.run_id, options_.scope, rank_);
  Peer& self = peers_[static_cast<size_t>(rank_)];
  self.seg = std::make_unique<ShmSegment>(ShmSegment::create(name, rank_, size_, cap));
  store.set(key(rank_), str_cat(name, " ", getpid(), " ", my_ns));
  store.barrier(options_.scope + "/shm/named", left());
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    std::istringstream fields(store.get(key(r), left()));
    std::string peer_name;
    std::string peer_ns;
    Peer& p = peers_[static_cast<size_t>(r)];
    if (!(fields >> peer_name >> p.pid >> peer_ns)) {
      throw BootstrapError(str_cat("ring shm: rank ", rank_, ": malformed entry for rank ", r));
    }
    p.seg = std::make_unique<ShmSegment>(ShmSegment::open(peer_name, r, size_, cap));
    p.check_pid = peer_ns == my_ns && my_ns != "-" && p.pid != getpid();
    p.out = &p.seg->channel(rank_);
    p.out_ring = p.seg->ring(rank_);
    p.in = &self.seg->channel(r);
    p.in_ring = self.seg->ring(r);
  }
  // The name may go once every peer has mapped the segment.
  store.barrier(options_.scope + "/shm/mapped", left());
  self.seg->unlink();
}

size_t ShmTransport::push_room(int to, size_t remaining) const {
  const Peer& p = peers_[static_cast<size_t>(to)];
  const size_t cap = options_.channel_bytes;
  const uint64_t tail = p.out->tail.value.load(std::memory_order_acquire);
  // After aligning a message start, head may run up to kAlign - 1 bytes past a full ring.
  const auto used = static_cast<size_t>(p.out_head - tail);
  const size_t free = used < cap ? cap - used : 0;
  const size_t off = static_cast<size_t>(p.out_head) & (cap - 1);
  size_t n = std::min({remaining, free, cap - off, step_});
  // Pieces other than a message's last are multiples of kAlign, so that the receiver never
  // sees part of an element.
  if (n < remaining) n &= ~(kAlign - 1);
  return n;
}

size_t ShmTransport::pull_avail(int from) const {
  const Peer& p = peers_[static_cast<size_t>(from)];
  const uint64_t head = p.in->head.value.load(std::memory_order_acquire);
  // Before the producer's first piece of this message, head may still lag the aligned tail.
  return head > p.in_tail ? static_cast<size_t>(head - p.in_tail) : 0;
}

bool ShmTransport::push(Transfer& t) {
  const size_t n = push_room(t.to, t.sbytes - t.sent);
  if (n == 0) return false;
  Peer& p = peers_[static_cast<size_t>(t.to)];
  char* at = p.out_ring + (static_cast<size_t>(p.out_head) & (options_.channel_bytes - 1));
  const std::pair<char*, size_t> run = t.sbuf.run(n);
  if (run.second == n) {  // one run (a contiguous buffer, or inside one piece): one memcpy
    std::memcpy(at, run.first, n);
    t.sbuf.skip(n);
  } else {
    // Many runs (gather_copy.h): memcpy or streaming stores, as this channel measured faster.
    const GatherMethod method = p.gather.pick();
    const auto start = Clock::now();
    gather_into(at, t.sbuf, n, method);
    if (method == GatherMethod::kStream) stream_fence();  // before head publishes the bytes
    p.gather.record(method, n, Clock::now() - start);
  }
  p.out_head += n;
  p.out->head.value.store(p.out_head, std::memory_order_release);
  ring_doorbell(p.seg->header().bell);
  t.sent += n;
  return true;
}

bool ShmTransport::pull(Transfer& t) {
  Peer& p = peers_[static_cast<size_t>(t.from)];
  const size_t cap = options_.channel_bytes;
  const size_t off = static_cast<size_t>(p.in_tail) & (cap - 1);
  const size_t n = std::min({pull_avail(t.from), t.rbytes - t.got, cap - off, step_});
  if (n == 0) return false;
  const char* at = p.in_ring + off;
  // The caller's pieces (pieces.h) hold whole elements, and what the ring publishes comes in
  // multiples of kAlign: a run where the two meet still holds whole elements.
  const size_t elem = dtype_size(t.dtype);
  const std::pair<char*, size_t> run = t.rbuf.run(n);
  if (run.second == n) {  // one run (a contiguous buffer, or inside one piece): one call
    if (t.reduce) {
      reduce_into(run.first, at, n / elem, t.dtype, t.op);
    } else {
      std::memcpy(run.first, at, n);
    }
    t.rbuf.skip(n);
  } else {
    // Many runs (gather_copy.h): prefetching the ring or not, as this channel measured faster.
    ScatterChooser& chooser = p.scatter[t.reduce ? 1 + static_cast<size_t>(t.dtype) : 0];
    const ScatterMethod method = chooser.pick();
    RingPrefetch prefetch(at, n, method == ScatterMethod::kPrefetch);
    const auto start = Clock::now();
    if (t.reduce) {
      t.rbuf.take(n, [&](char* data, size_t len) {
        HVD_CHECK(len % elem == 0, "run of ", len, " bytes splits a ", elem, "-byte element");
        prefetch.past(at + len);
        reduce_into(data, at, len / elem, t.dtype, t.op);
        at += len;
      });
    } else {
      t.rbuf.take(n, [&](char* data, size_t len) {
        prefetch.past(at + len);
        std::memcpy(data, at, len);
        at += len;
      });
    }
    chooser.record(method, n, Clock::now() - start);
  }
  p.in_tail += n;
  p.in->tail.value.store(p.in_tail, std::memory_order_release);
  ring_doorbell(p.seg->header().bell);
  t.got += n;
  return true;
}

void ShmTransport::check_peers(const Transfer& t) const {
  // `closed` and the pid are checked before the data: once a peer is seen closed (acquire),
  // everything it published before closing is visible, so a still-empty channel is final.
  const auto gone = [&](int r) -> std::string {
    const Peer& p = peers_[static_cast<size_t>(r)];
    if (p.closed()) return str_cat("rank ", r, " closed its transport");
    if (p.check_pid && kill(static_cast<pid_t>(p.pid), 0) != 0 && errno == ESRCH) {
      return str_cat("rank ", r, " (pid ", p.pid, ") exited");
    }
    return "";
  };
  if (t.sending()) {
    const std::string why = gone(t.to);
    if (!why.empty()) {
      throw BackendError(str_cat("ring shm: rank ", rank_, ": ", why, " while this rank was ",
                                 "sending to it (", t.sent, " of ", t.sbytes, " bytes)"));
    }
  }
  if (t.receiving()) {
    const std::string why = gone(t.from);
    if (!why.empty() && pull_avail(t.from) == 0) {
      throw BackendError(str_cat("ring shm: rank ", rank_, ": ", why, " while this rank was ",
                                 "receiving from it (", t.got, " of ", t.rbytes, " bytes)"));
    }
  }
}

void ShmTransport::wait(Transfer& t) {
  const auto ready = [&] {
    return (t.sending() && push_room(t.to, t.sbytes - t.sent) > 0) ||
           (t.receiving() && pull_avail(t.from) > 0);
  };
  // With more ranks than cores the peer is likely waiting for this core: do not spin. The
  // clock is first read after 64 polls: most waits of a small collective end before that.
  // A thread whose waits may not spin (spin_wait.h: the loop of a rank on one core) neither
  // spins nor yields: either keeps its rank's compute thread off the core. Another thread on
  // one core spins but does not yield: a yield helps only another process on that core, and
  // with a busy one there (another job) the rank waits out that one's time slice. On the CNN of
  // scripts/bench-torch.sh with a competitor on each core, the time in synchronize() went from
  // 9-20 ms a step to 3.5-4.4 ms without the yields (2 runs each).
  const bool polls = waits_may_spin();
  const bool spins = polls && !oversubscribed_;
  const auto spin_for = spins ? Clock::duration(kSpinFor) : Clock::duration::zero();
  const auto yield_for =
      polls && !on_one_cpu() ? Clock::duration(kYieldFor) : Clock::duration::zero();
  Clock::time_point start{};
  for (unsigned i = 1; spins; ++i) {
    if (ready()) return;
    cpu_relax();
    if (i % 64 != 0) continue;
    const auto now = Clock::now();
    if (i == 64) start = now;
    if (now - start > spin_for) break;
  }
  if (start == Clock::time_point{}) start = Clock::now();
  if (t.deadline == Clock::time_point{}) t.deadline = start + options_.timeout;
  while (Clock::now() - start < spin_for + yield_for) {
    sched_yield();
    if (ready()) return;
  }
  ShmDoorbell& bell = peers_[static_cast<size_t>(rank_)].seg->header().bell;
  for (;;) {
    check_peers(t);
    const auto now = Clock::now();
    if (now >= t.deadline) {
      throw TimeoutError(str_cat("ring shm: rank ", rank_, ": not done within ",
                                 options_.timeout.count(), " ms (sent ", t.sent, " of ", t.sbytes,
                                 " bytes to rank ", t.to, ", received ", t.got, " of ", t.rbytes,
                                 " bytes from rank ", t.from, ")"));
    }
    const auto nap = std::min<Clock::duration>(kNap, t.deadline - now);
    if (sleep_on_doorbell(bell, nap, ready)) return;
  }
}

void ShmTransport::exchange(Transfer& t) {
  HVD_CHECK(t.sbytes == 0 || (t.to >= 0 && t.to < size_ && t.to != rank_), "rank ", rank_,
            ": bad destination ", t.to);
  HVD_CHECK(t.rbytes == 0 || (t.from >= 0 && t.from < size_ && t.from != rank_), "rank ", rank_,
            ": bad source ", t.from);
  // Every message starts kAlign-aligned in its stream; both ends skip the same padding.
  if (t.sbytes > 0) {
    Peer& p = peers_[static_cast<size_t>(t.to)];
    p.out_head = round_up(p.out_head);
  }
  if (t.rbytes > 0) {
    Peer& p = peers_[static_cast<size_t>(t.from)];
    p.in_tail = round_up(p.in_tail);
  }
  while (t.sending() || t.receiving()) {
    bool progress = false;
    if (t.sending()) progress = push(t);
    if (t.receiving()) progress = pull(t) || progress;
    if (!progress) wait(t);
  }
}

void ShmTransport::send_recv(int to, PieceSpan send, int from, PieceSpan recv) {
  Transfer t{to,
             PieceCursor(send),
             send.bytes(),
             from,
             PieceCursor(recv),
             recv.bytes(),
             false,
             DataType::kUInt8,
             ReduceOp::kSum};
  exchange(t);
}

void ShmTransport::send_recv_reduce(int to, PieceSpan send, int from, PieceSpan acc, DataType dtype,
                                    ReduceOp op) {
  Transfer t{to,
             PieceCursor(send),
             send.bytes(),
             from,
             PieceCursor(acc),
             acc.bytes(),
             true,
             dtype,
             op};
  exchange(t);
}

}  // namespace hvd::backends::ring
