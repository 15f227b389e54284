#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The MLP of hvd-train in PyTorch with DistributedDataParallel over gloo, for
scripts/bench-train.sh. Same layers (784, hidden..., 10; nn.Linear's initialization), same loss,
SGD with momentum, the same synthetic data set and the same sharding (one seeded permutation per
epoch, rank r takes the r-th slice of each global batch), and the same output lines as Horovod's
pytorch_synthetic_benchmark.py. Launch it with `hvdrun -np N -- python3 torch_mlp.py ...`: it
reads only what hvdrun sets (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), and runs alone too.
"""
import argparse
import os
import time
import timeit

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hidden", default="256", help="hidden widths, comma-separated")
    p.add_argument("--batch-size", type=int, default=64, help="images per rank per step")
    p.add_argument("--synthetic-samples", type=int, default=8192)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--num-warmup-batches", type=int, default=10)
    p.add_argument("--num-batches-per-iter", type=int, default=10)
    p.add_argument("--num-iters", type=int, default=10)
    p.add_argument("--threads", type=int, default=0,
                   help="intra-op threads (0: OMP_NUM_THREADS, else torch's default)")
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def main():
    args = parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group("gloo")  # env:// from hvdrun's RANK/WORLD_SIZE/MASTER_*
    rank = dist.get_rank() if world > 1 else 0
    torch.manual_seed(args.seed)

    widths = [784] + [int(h) for h in args.hidden.split(",")] + [10]
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model)  # broadcasts rank 0's weights
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)

    gen = torch.Generator().manual_seed(args.seed)
    images = torch.randn(args.synthetic_samples, 784, generator=gen)
    labels = torch.randint(0, 10, (args.synthetic_samples,), generator=gen)
    global_batch = world * args.batch_size
    steps_per_epoch = args.synthetic_samples // global_batch
    state = {"step": 0, "perm": None}

    def benchmark_step():
        step = state["step"]
        if step % steps_per_epoch == 0:
            state["perm"] = torch.randperm(args.synthetic_samples,
                                           generator=torch.Generator().manual_seed(args.seed + step))
        start = (step % steps_per_epoch) * global_batch + rank * args.batch_size
        idx = state["perm"][start:start + args.batch_size]
        x, y = images.index_select(0, idx), labels.index_select(0, idx)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        state["step"] += 1

    def log(s):
        if rank == 0:
            print(s, flush=True)

    parameters = sum(p.numel() for p in model.parameters())
    log("Model: MLP %s (%d parameters), torch %s, %d intra-op threads" %
        ("-".join(map(str, widths)), parameters, torch.__version__, torch.get_num_threads()))
    log("Batch size: %d" % args.batch_size)
    log("Number of CPUs: %d" % world)
    log("Running warmup...")
    timeit.timeit(benchmark_step, number=args.num_warmup_batches)
    log("Running benchmark...")
    img_secs = []
    cpu_seconds = 0.0
    for x in range(args.num_iters):
        cpu_start = time.process_time()  # this process, all threads, as hvd-train measures
        t = timeit.timeit(benchmark_step, number=args.num_batches_per_iter)
        cpu_seconds += time.process_time() - cpu_start
        img_sec = args.batch_size * args.num_batches_per_iter / t
        log("Iter #%d: %.1f img/sec per CPU" % (x, img_sec))
        img_secs.append(img_sec)
    mean, conf = np.mean(img_secs), 1.96 * np.std(img_secs)
    log("Img/sec per CPU: %.1f +-%.1f" % (mean, conf))
    log("Total img/sec on %d CPU(s): %.1f +-%.1f" % (world, world * mean, world * conf))
    images = args.num_iters * args.num_batches_per_iter * args.batch_size
    log("CPU time per image: %.3f ms (rank 0, all threads)" % (1e3 * cpu_seconds / images))
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
