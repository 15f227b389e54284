#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A rank of a job run with HOROVOD_TIMELINE=DYNAMIC (check_timeline_dynamic.py runs it):
Horovod's value for "no timeline until start_timeline()". No timeline is running at start, so
start_timeline(path) succeeds; stop_timeline() leaves the merged trace at `path` on rank 0.

Prints "torch_timeline_dynamic: rank R of N on HOST checks C failures F"; exits 1 on failure.
"""
import json
import os
import sys

import torch

import hvdrun.torch as hvd
from tally import check, report

PATH = 'dynamic-run.json'  # in the working folder, which the driver gives each run


def main():
    hvd.init()
    r, n = hvd.rank(), hvd.size()
    check(os.environ.get('HOROVOD_TIMELINE') == 'DYNAMIC', 'run with HOROVOD_TIMELINE=DYNAMIC')
    try:
        hvd.start_timeline(os.path.abspath(PATH))
        check(True, 'start_timeline() with HOROVOD_TIMELINE=DYNAMIC')
    except ValueError as e:  # a timeline already running: DYNAMIC taken as a file name
        check(False, 'start_timeline() with HOROVOD_TIMELINE=DYNAMIC raised %s' % e)
    hvd.allreduce(torch.ones(4), name='dynamic.tensor')
    hvd.stop_timeline()
    ranks = None
    if r == 0:  # rank 0 merges; every rank checks what it found (the same count everywhere)
        with open(PATH) as f:
            events = json.load(f)
        ranks = sorted({e.get('pid') for e in events if e.get('ph') in ('B', 'E')})
    ranks = hvd.broadcast_object(ranks, 0, name='dynamic.ranks')
    check(ranks == list(range(n)), 'the merged trace has every rank: %s' % ranks)
    hvd.barrier()
    hvd.shutdown()
    return report('torch_timeline_dynamic', r, n)


if __name__ == '__main__':
    sys.exit(main())
