# SPDX-License-Identifier: Apache-2.0
"""checkpoint_requested(): whether a checkpoint is due (a preemption notice).

hvdrun forwards SIGUSR1/SIGUSR2 (Slurm's notice before preemption or the time limit) to every
rank and creates the file named by HVD_CHECKPOINT_FILE. Either one means: save a checkpoint and
exit 0; under `hvdrun --requeue-on-signal` the job is then requeued and resumes from it.

init() installs a handler for SIGUSR1/SIGUSR2 (only where the program left Python's default, and
only from the main thread), so that the notice no longer ends the process before it checkpoints.
"""

import os
import signal
import stat
import threading

import torch

from .basics import Max
from .mpi_ops import allreduce

_notice_signal = None


def _on_notice(signum, _frame):
    global _notice_signal
    _notice_signal = signum


def _install_notice_handlers():
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGUSR1, signal.SIGUSR2):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _on_notice)


def _notice_file_present(path):
    # The file sits in a shared folder (/dev/shm): only a regular file of this user counts, so
    # that a file or a symlink (to one of this user's files) planted by another user is no notice.
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()


def checkpoint_requested(all_ranks=False):
    """True once this rank got a preemption notice: SIGUSR1/SIGUSR2, or the file named by
    HVD_CHECKPOINT_FILE exists as a regular file of this user (one lstat; cheap enough for
    every step).

    all_ranks=True makes it collective (call it on every rank at the same point): True when any
    rank got the notice, so that all stop after the same step and none waits in a collective
    the others have left."""
    path = os.environ.get('HVD_CHECKPOINT_FILE')
    seen = _notice_signal is not None or (bool(path) and _notice_file_present(path))
    if not all_ranks:
        return seen
    flag = torch.tensor([1 if seen else 0], dtype=torch.int32)
    return bool(allreduce(flag, op=Max, name='hvdrun.checkpoint_requested').item())
