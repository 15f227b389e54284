#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""hvdrun.torch.checkpoint_requested() under hvdrun: rank 0 sends SIGUSR2 to hvdrun (its parent,
as Slurm's preemption notice would reach it), which forwards it to every rank and creates
HVD_CHECKPOINT_FILE. Before that no rank sees a notice; afterwards every rank does, through the
signal (init()'s handler kept it from ending the process) and through the file, and the
collective form agrees on every rank. A symlink planted at the file's name first is no notice.
Prints "torch_checkpoint_notice: rank R of N ... checks C".
"""
import os
import signal
import socket
import time

import hvdrun.torch as hvd

hvd.init()
r, n = hvd.rank(), hvd.size()
checks = 0
# The file sits in /dev/shm, where other users plant things: a symlink at its name, even to one
# of this user's files, is no notice.
notice = os.environ['HVD_CHECKPOINT_FILE']
if r == 0:
    os.symlink(os.path.abspath(__file__), notice)
hvd.barrier()
assert not hvd.checkpoint_requested(), 'a symlink planted at the notice file counted'
checks += 1
hvd.barrier()
if r == 0:
    os.unlink(notice)
hvd.barrier()
assert not hvd.checkpoint_requested(), 'a notice before any signal'
assert not hvd.checkpoint_requested(all_ranks=True), 'a notice on some rank before any signal'
checks += 2
hvd.barrier()
if r == 0:
    os.kill(os.getppid(), signal.SIGUSR2)  # hvdrun
# Every rank polls until it agrees; ctest's TIMEOUT bounds this.
while not hvd.checkpoint_requested(all_ranks=True):
    time.sleep(0.01)
while not hvd.checkpoint_requested():  # this rank's own signal may come a little later
    time.sleep(0.01)
checks += 2
path = os.environ['HVD_CHECKPOINT_FILE']
assert os.path.exists(path), 'no checkpoint file at ' + path
checks += 1
hvd.shutdown()
print('torch_checkpoint_notice: rank %d of %d on %s checks %d'
      % (r, n, socket.gethostname(), checks), flush=True)
