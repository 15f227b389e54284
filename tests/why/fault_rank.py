# SPDX-License-Identifier: Apache-2.0
"""A small training loop over libhvd in which rank 1 misbehaves at step 3, one fault per run,
for the verdict tests (check_verdict.py):
  skip     rank 1 skips the allreduce grad.1
  extra    rank 1 submits a tensor the others never do
  shape    rank 1's grad.1 has another shape
  stop     rank 1 stops itself (SIGSTOP)
  loop     rank 1 loops in Python before its next collective
  loader   rank 1 waits for a batch that never comes (a data loader's queue)
  none     no fault: the job ends after its steps
Usage: fault_rank.py FAULT LIBHVD_SO READY_DIR"""

import os
import queue
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))
import hvd_ctypes  # noqa: E402

FAULT, LIBHVD, READY = sys.argv[1], sys.argv[2], sys.argv[3]
STEPS = 6
hvd = hvd_ctypes.Hvd(LIBHVD)


def spin_forever():
    total = 0
    while True:
        total += sum(range(1000))


def next_batch(rank, step):
    if rank == 1 and step == 3:
        open(os.path.join(READY, "fault"), "w").close()
        if FAULT == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)
        elif FAULT == "loop":
            spin_forever()
        elif FAULT == "loader":
            batches = queue.Queue()
            return batches.get()  # its worker never puts anything
    return step


def train_step(rank, step):
    for i in range(3):
        if FAULT == "skip" and rank == 1 and step == 3 and i == 1:
            continue
        count = 5 if FAULT == "shape" and rank == 1 and step == 3 and i == 1 else 4
        hvd.allreduce("grad.%d" % i, count)
    if FAULT == "extra" and rank == 1 and step == 3:
        hvd.allreduce("extra.tensor")


def main():
    hvd.init()
    rank = hvd.rank()
    for step in range(STEPS):
        batch = next_batch(rank, step)
        train_step(rank, batch)
    hvd.shutdown()


main()
