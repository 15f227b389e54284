#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""op=Adasum's cost for scripts/bench-adasum.sh: per float32 tensor size, in the same processes
and in turn (so that all see the same load), the median time of
  adasum   hvdrun.torch.allreduce(op=Adasum): libhvd's vector halving, distance doubling;
  sum      hvdrun.torch.allreduce(op=Sum) of the same tensor: what any allreduce costs here;
  gather   Adasum as torch.distributed can do it: all_gather over gloo, then Horovod's pairwise
           tree on every rank (what hvdrun.torch did before libhvd had Adasum).
Launch with `hvdrun -np N -- python3 torch_adasum.py` (N a power of two). Rank 0 prints:
  bench-adasum: ranks N bytes B reps R adasum_us A sum_us S gather_us G adasum/sum A/S adasum/gather A/G
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.distributed as dist

import hvdrun.torch as hvd

# The tests' written-out Adasum (plain torch), which this benchmark's "gather" side runs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests',
                                'frameworks'))
from adasum_reference import adasum  # noqa: E402


def gather_adasum(t, n):
    rows = [torch.empty_like(t) for _ in range(n)]
    dist.all_gather(rows, t)
    return adasum(rows)


def timed(fn):
    # Untimed, first: the ranks leave the previous operation at different times (the gather's
    # tree takes longer on some), and that skew would count against whichever op comes next.
    hvd.barrier()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--max-bytes', type=int, default=16 << 20)
    p.add_argument('--scale', type=float, default=1.0, help='more repetitions per size')
    args = p.parse_args()
    torch.set_num_threads(1)
    hvd.init()
    dist.init_process_group('gloo')  # env:// from hvdrun's RANK/WORLD_SIZE/MASTER_*
    n = hvd.size()
    gen = torch.Generator().manual_seed(hvd.rank())
    nbytes = 4 << 10
    while nbytes <= args.max_bytes:
        t = torch.randn(nbytes // 4, generator=gen)
        reps = int(args.scale * max(10, min(300, (1 << 25) // nbytes)))
        times = {'adasum': [], 'sum': [], 'gather': []}
        for i in range(reps + 2):  # the first two of each are warm-up
            a = timed(lambda: hvd.allreduce(t, op=hvd.Adasum, name='bench.adasum'))
            s = timed(lambda: hvd.allreduce(t, op=hvd.Sum, name='bench.sum'))
            g = timed(lambda: gather_adasum(t, n))
            if i >= 2:
                for key, v in (('adasum', a), ('sum', s), ('gather', g)):
                    times[key].append(v)
        a, s, g = (statistics.median(times[k]) for k in ('adasum', 'sum', 'gather'))
        if hvd.rank() == 0:
            print('bench-adasum: ranks %d bytes %d reps %d adasum_us %.1f sum_us %.1f '
                  'gather_us %.1f adasum/sum %.3f adasum/gather %.3f'
                  % (n, nbytes, reps, 1e6 * a, 1e6 * s, 1e6 * g, a / s, a / g), flush=True)
        nbytes *= 4
    dist.destroy_process_group()
    hvd.shutdown()


if __name__ == '__main__':
    main()
