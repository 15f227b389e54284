// SPDX-License-Identifier: Apache-2.0
#include "slurm/sbatch_submit.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "hvd/error.h"
#include "slurm/slurm_tools.h"

namespace hvd::launcher::slurm {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// A temporary file that is removed when it goes out of scope.
struct TempFile {
  std::string path = "/var/tmp/hvdrun-sbatch-XXXXXX";
  int fd = mkstemp(path.data());
  ~TempFile() {
    if (fd >= 0) close(fd);
    unlink(path.c_str());
  }
  std::string text() const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

// Runs `sbatch --parsable` with the script on stdin; returns the job id.
}  // namespace

std::string submit_batch_script(const std::string& script, const EnvMap& env) {
  const std::string sbatch = slurm::find_slurm_tool("sbatch", env);
  TempFile in, out, err;
  if (in.fd < 0 || out.fd < 0 || err.fd < 0 ||
      write(in.fd, script.data(), script.size()) != static_cast<ssize_t>(script.size()) ||
      lseek(in.fd, 0, SEEK_SET) != 0) {
    throw SchedulerError(str_cat("cannot stage the script for sbatch: ", std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) throw SchedulerError(str_cat("fork failed: ", std::strerror(errno)));
  if (pid == 0) {
    dup2(in.fd, STDIN_FILENO);
    dup2(out.fd, STDOUT_FILENO);
    dup2(err.fd, STDERR_FILENO);
    execl(sbatch.c_str(), "sbatch", "--parsable", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // One line, as every hvdrun error: sbatch may say several ("error: ..." then "fatal: ...").
  std::string said = trim(err.text());
  std::replace(said.begin(), said.end(), '\n', ' ');
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw SchedulerError(str_cat("sbatch rejected the script: ", said.empty() ? "no message" : said));
  }
  // --parsable prints "jobid" or "jobid;cluster". Warnings on stderr do not mean failure.
  const std::string id = trim(out.text());
  return id.substr(0, id.find(';'));
}

}  // namespace hvd::launcher::slurm
