#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One float32 tensor's allreduce (Sum, in place, CPU) for scripts/bench-torch.sh:
hvdrun.torch.allreduce_ against torch.distributed.all_reduce over gloo, in the same processes,
one operation of each in turn so that both see the same load. Sizes 8 B to 64 MiB (x4 steps,
and 64 MiB). Launch with `hvdrun -np N -- python3 torch_allreduce.py`. Rank 0 prints, per size,
the median time of one operation (as the caller sees it: start to result) and the ratio:
  bench-torch-allreduce: bytes B reps R hvd_us H gloo_us G ratio H/G
"""
import argparse
import statistics
import time

import torch
import torch.distributed as dist

import hvdrun.torch as hvd


def sizes(largest):
    n = 8
    while n < largest:
        yield n
        n *= 4
    yield largest


def repetitions(nbytes, scale):
    # About the same time per size: many for latency-bound sizes, few for 64 MiB.
    return int(scale * max(10, min(500, (1 << 25) // max(nbytes, 1 << 14))))


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--max-bytes', type=int, default=64 << 20)
    p.add_argument('--scale', type=float, default=1.0, help='more repetitions per size')
    args = p.parse_args()
    torch.set_num_threads(1)
    hvd.init()
    dist.init_process_group('gloo')  # env:// from hvdrun's RANK/WORLD_SIZE/MASTER_*
    for nbytes in sizes(args.max_bytes):
        # Zeros: a sum of zeros stays zeros however many times it runs.
        a = torch.zeros(nbytes // 4)
        b = torch.zeros(nbytes // 4)
        name = 'bench.allreduce.%d' % nbytes
        reps = repetitions(nbytes, args.scale)
        hvd_s, gloo_s = [], []
        for i in range(reps + 2):  # the first two of each are warm-up
            h = timed(lambda: hvd.allreduce_(a, op=hvd.Sum, name=name))
            g = timed(lambda: dist.all_reduce(b))
            if i >= 2:
                hvd_s.append(h)
                gloo_s.append(g)
        h, g = statistics.median(hvd_s), statistics.median(gloo_s)
        if hvd.rank() == 0:
            print('bench-torch-allreduce: bytes %d reps %d hvd_us %.1f gloo_us %.1f ratio %.3f'
                  % (nbytes, reps, 1e6 * h, 1e6 * g, h / g), flush=True)
    dist.destroy_process_group()
    hvd.shutdown()


if __name__ == '__main__':
    main()
