// SPDX-License-Identifier: Apache-2.0
#include "exec/supervisor.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "hvd/error.h"
#include "proc/signal_name.h"

namespace hvd::launcher::exec {
namespace {

using proc::signal_name;

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded) sigaddset(&set, sig);
  sigaddset(&set, SIGCHLD);
  return set;
}

bool is_terminating(int sig) { return sig != SIGUSR1 && sig != SIGUSR2; }

// hvdrun's own messages share stderr with the ranks' tagged lines and go through the same
// writer, so that the order on screen matches the order of events and a stderr that does not
// read cannot block hvdrun here either.
void say(OutputRouter& router, const std::string& message) { router.message(message); }

// While stdout or stderr is backlogged the ranks' pipes are not read; this is how often the
// loop looks again (signals are still handled at once).
constexpr int kBacklogRecheckMs = 10;

}  // namespace

void block_forwarded_signals() {
  const sigset_t set = forwarded_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill hvdrun and orphan the ranks
}

Supervisor::Supervisor(std::vector<Child> children, OutputRouter& router,
                       std::chrono::seconds kill_grace, Guard* guard)
    : router_(router), kill_grace_(kill_grace), guard_(guard) {
  for (Child& c : children) ranks_.push_back(Rank{std::move(c), {}, false});
  const sigset_t set = forwarded_set();
  signal_fd_ = net::Fd(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  if (!signal_fd_.valid()) throw LaunchError(str_cat("signalfd failed: ", std::strerror(errno)));
}

Supervisor::~Supervisor() {
  // Only reached with live ranks when run() threw: leave nothing behind.
  for (Rank& r : ranks_) {
    if (r.alive) {
      kill(-r.process.pid, SIGKILL);  // not reaped yet: the pid cannot have been reused
      if (guard_ != nullptr) guard_->forget_group(r.process.pid);
      waitpid(r.process.pid, nullptr, 0);
    }
  }
}

RunOutcome Supervisor::run() {
  start_idle_watch();
  spawn_all();
  event_loop();
  router_.set_rank_output_observer(nullptr);  // the router outlives this supervisor
  drain_output(std::chrono::seconds(2));
  router_.flush();
  RunOutcome outcome;
  outcome.interrupted_by = interrupted_by_;
  if (failure_) {
    outcome.exit_code = failure_->exit_code;
    outcome.failed = failure_->who;
    outcome.failed_rank = failure_->failed_rank;
    outcome.failure = failure_->how;
  } else if (interrupted_by_ != 0) {
    outcome.exit_code = 128 + interrupted_by_;
  }
  return outcome;
}

void Supervisor::spawn_all() {
  for (Rank& r : ranks_) {
    if (guard_ != nullptr) r.child.request.guard_fd = guard_->registration_fd();
    r.process = spawn_rank(r.child.request);  // the rank registered its group itself
    r.alive = true;
  }
  // Exec failures come back through a pipe per child; the program was checked beforehand, so
  // this is rare (a race with a file being removed, or a refused CPU set).
  for (size_t i = 0; i < ranks_.size(); ++i) {
    const int err = wait_for_exec(ranks_[i].process);
    if (err != 0 && !failure_) {
      say(router_, str_cat(ranks_[i].child.name, ": cannot execute '",
                           ranks_[i].child.request.program, "': ", std::strerror(err)));
      failure_ =
          Failure{static_cast<int>(i), 127, ranks_[i].child.name, ranks_[i].child.output_rank,
                  str_cat(ranks_[i].child.name, " could not execute its program")};
    }
  }
  if (failure_) stop_all(SIGTERM, "");
  report_spawned();
}

void Supervisor::report_spawned() {
  if (!spawned_hook_) return;
  std::vector<std::pair<int, pid_t>> ranks;
  for (const Rank& r : ranks_) {
    if (r.child.output_rank >= 0) ranks.emplace_back(r.child.output_rank, r.process.pid);
  }
  spawned_hook_(ranks);
}

void Supervisor::read_inbox() {
  SupervisorInbox::Items items = inbox_.take();
  for (const std::string& m : items.messages) say(router_, m);
  if (!items.stop || failure_ || interrupted_by_ != 0) return;
  failure_ = Failure{-1, items.stop->exit_code, items.stop->who, -1, ""};
  stop_all(SIGTERM, items.stop->message);
}

int Supervisor::live_ranks() const {
  int n = 0;
  for (const Rank& r : ranks_) n += r.alive ? 1 : 0;
  return n;
}

void Supervisor::event_loop() {
  std::vector<pollfd> fds;
  std::vector<PipeOwner> owners;
  while (live_ranks() > 0) {
    // Back-pressure: while hvdrun's stdout or stderr does not keep up, the ranks' pipes are
    // left unread (the ranks block in their writes); signals and exits are still handled.
    const bool backlogged = router_.backlogged();
    if (backlogged) {
      fds.clear();
      owners.clear();
    } else {
      collect_pipes(fds, owners);
    }
    fds.insert(fds.begin(), {pollfd{signal_fd_.get(), POLLIN, 0}, pollfd{inbox_.fd(), POLLIN, 0}});
    owners.insert(owners.begin(), 2, PipeOwner{-1, Stream::kStdout});
    const int ready = poll(fds.data(), fds.size(), poll_timeout_ms(backlogged));
    if (ready < 0 && errno != EINTR) {
      throw LaunchError(str_cat("poll failed: ", std::strerror(errno)));
    }
    for (size_t k = 2; ready > 0 && k < fds.size(); ++k) {
      if (fds[k].revents != 0) read_pipe(owners[k].rank, owners[k].stream);
    }
    if (ready > 0 && fds[1].revents != 0) read_inbox();
    router_.flush();
    if (ready > 0 && fds[0].revents != 0) handle_signals();
    if (notice_stop_at_ && !kill_deadline_ && Clock::now() >= *notice_stop_at_ &&
        live_ranks() > 0) {
      notice_grace_overrun_ = true;
      stop_all(SIGTERM, str_cat(live_ranks(),
                                " rank(s) still running after the checkpoint grace; "
                                "sending SIGTERM"));
    }
    // Not while backlogged: then the ranks' output waits unread in their pipes.
    if (idle_ && !backlogged && !kill_deadline_ && idle_->expired(Clock::now())) stop_idle_job();
    if (kill_deadline_ && !killed_ && Clock::now() >= *kill_deadline_ && live_ranks() > 0) {
      say(router_, str_cat(live_ranks(), " rank(s) still running ", kill_grace_.count(),
                           " s after SIGTERM; sending SIGKILL"));
      forward(SIGKILL);
      killed_ = true;
    }
  }
}

void Supervisor::start_idle_watch() {
  if (idle_timeout_.count() <= 0) return;
  idle_.emplace(idle_ranks_, idle_timeout_, Clock::now());
  router_.set_rank_output_observer([this](int rank) { idle_->saw_output(rank, Clock::now()); });
}

// --idle-timeout ran out: a failure of the job as a whole, which --max-restarts may restart.
void Supervisor::stop_idle_job() {
  say(router_, idle_->report(Clock::now(), std::chrono::system_clock::now()));
  failure_ = Failure{-1, kIdleTimeoutExitCode,
                     str_cat("the job (no output for ", idle_timeout_.count(), " s)"), -1, ""};
  stop_all(SIGTERM, "");
}

// Until the next deadline: SIGKILL after SIGTERM, SIGTERM after a notice's grace, or the idle
// timeout; -1 none.
int Supervisor::poll_timeout_ms(bool backlogged) const {
  int timeout_ms = backlogged ? kBacklogRecheckMs : -1;
  std::optional<Clock::time_point> next;
  if (idle_ && !kill_deadline_) next = idle_->deadline();
  if (kill_deadline_ && !killed_) next = *kill_deadline_;
  if (notice_stop_at_ && !kill_deadline_ && (!next || *notice_stop_at_ < *next)) {
    next = *notice_stop_at_;
  }
  if (next) {
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(*next - Clock::now()).count();
    const int until = static_cast<int>(std::max<long long>(0, ms + 1));
    timeout_ms = timeout_ms < 0 ? until : std::min(timeout_ms, until);
  }
  return timeout_ms;
}

// The hook first: a rank that checks HVD_CHECKPOINT_FILE on the signal finds it there.
void Supervisor::notice(int sig) {
  const NoticeReply reply = notice_hook_ ? notice_hook_(sig) : NoticeReply{};
  forward(sig);
  if (!reply.message.empty()) say(router_, reply.message);
  if (reply.stop_after && !notice_stop_at_) notice_stop_at_ = Clock::now() + *reply.stop_after;
}

void Supervisor::collect_pipes(std::vector<pollfd>& fds, std::vector<PipeOwner>& owners) {
  fds.clear();
  owners.clear();
  for (size_t i = 0; i < ranks_.size(); ++i) {
    const RankProcess& p = ranks_[i].process;
    for (Stream s : {Stream::kStdout, Stream::kStderr}) {
      const net::Fd& fd = s == Stream::kStdout ? p.out : p.err;
      if (!fd.valid()) continue;
      fds.push_back(pollfd{fd.get(), POLLIN, 0});
      owners.push_back(PipeOwner{static_cast<int>(i), s});
    }
  }
}

bool Supervisor::read_pipe(int rank, Stream stream) {
  RankProcess& p = ranks_[static_cast<size_t>(rank)].process;
  net::Fd& fd = stream == Stream::kStdout ? p.out : p.err;
  char buffer[65536];
  const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
  const int output_rank = ranks_[static_cast<size_t>(rank)].child.output_rank;
  if (n > 0) {
    const std::string_view data(buffer, static_cast<size_t>(n));
    if (output_rank >= 0) {
      router_.on_data(output_rank, stream, data);
    } else {
      router_.on_labeled_data(stream, data);
    }
    return true;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  end_of_stream(rank, stream);
  fd.reset();
  return false;
}

void Supervisor::handle_signals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_.get(), &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
    const int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      reap();
    } else if (sig == SIGQUIT && quit_hook_) {
      quit_hook_();
    } else if (!is_terminating(sig)) {
      notice(sig);
    } else if (interrupted_by_ != 0 && sig == SIGINT) {
      say(router_, "second SIGINT: killing all ranks now");
      forward(SIGKILL);
      killed_ = true;
    } else {
      if (interrupted_by_ == 0) interrupted_by_ = sig;
      stop_all(sig, str_cat("received ", signal_name(sig), "; forwarding it to ", live_ranks(),
                            " rank(s)"));
    }
  }
  reap();  // a SIGCHLD may have been merged with another signal
}

// A rank's exit is first observed with WNOWAIT: while it is a zombie, its pid, which is also
// its process group's id, cannot be reused, so killing the group kills only what the rank left
// behind. Only then is it reaped. A group whose leader was reaped is never signalled again
// (forward() and the destructor look only at ranks still alive).
void Supervisor::reap() {
  for (;;) {
    siginfo_t info{};
    info.si_pid = 0;
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    const pid_t pid = info.si_pid;
    int rank = -1;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      if (ranks_[i].alive && ranks_[i].process.pid == pid) rank = static_cast<int>(i);
    }
    if (rank >= 0) {
      // Whatever it started is stopped with it, so its pipes close and nothing lingers.
      kill(-pid, SIGKILL);
      if (guard_ != nullptr) guard_->forget_group(pid);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (rank >= 0) on_exit(rank, status);
  }
}

void Supervisor::on_exit(int rank, int status) {
  Rank& r = ranks_[static_cast<size_t>(rank)];
  r.alive = false;
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (clean || failure_ || interrupted_by_ != 0) return;
  std::string how;
  int code;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    code = 128 + sig;
    how = str_cat("was killed by ", signal_name(sig), " (", strsignal(sig), ")");
  } else {
    code = WEXITSTATUS(status);
    how = str_cat("exited with code ", code);
  }
  std::string who = r.child.output_rank >= 0 ? str_cat("rank ", r.child.output_rank) : r.child.name;
  Failure failure{rank, code, who, r.child.output_rank, str_cat(r.child.name, " ", how)};
  if (r.child.explain_failure) {
    if (const auto explained = r.child.explain_failure()) {
      failure =
          Failure{rank, explained->exit_code, explained->who, explained->rank, explained->how};
      how = str_cat(how, "; first failure: ", explained->how);
    }
  }
  failure_ = failure;
  const int others = live_ranks();
  say(router_, str_cat(r.child.name, " (pid ", r.process.pid, ") ", how,
                       others > 0 ? str_cat("; stopping the other ", others, " rank(s)") : ""));
  stop_all(SIGTERM, "");
}

void Supervisor::forward(int sig) {
  for (Rank& r : ranks_) {
    if (r.alive) kill(-r.process.pid, sig);
  }
}

void Supervisor::stop_all(int sig, const std::string& why) {
  if (!why.empty()) say(router_, why);
  forward(sig);
  // A stopped rank (SIGSTOP, a debugger let go) would keep the signal pending until the grace
  // period ends in SIGKILL; continuing it lets it act on the signal now.
  forward(SIGCONT);
  if (!kill_deadline_) kill_deadline_ = Clock::now() + kill_grace_;
}

void Supervisor::drain_output(Clock::duration limit) {
  const auto deadline = Clock::now() + limit;
  std::vector<pollfd> fds;
  std::vector<PipeOwner> owners;
  for (;;) {
    collect_pipes(fds, owners);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (fds.empty() || left.count() <= 0) break;
    if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) break;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents != 0) read_pipe(owners[k].rank, owners[k].stream);
    }
  }
  // A pipe still open here was passed to a process that left the rank's group; stop waiting.
  collect_pipes(fds, owners);
  for (const PipeOwner& o : owners) end_of_stream(o.rank, o.stream);
}

void Supervisor::end_of_stream(int child, Stream stream) {
  const int output_rank = ranks_[static_cast<size_t>(child)].child.output_rank;
  if (output_rank >= 0) {
    router_.on_eof(output_rank, stream);
  } else {
    router_.on_labeled_eof(stream);
  }
}

}  // namespace hvd::launcher::exec
