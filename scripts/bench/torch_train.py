#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One training run for scripts/bench-torch.sh: hvdrun.torch's DistributedOptimizer (hvd),
torch's DistributedDataParallel over gloo (ddp) and the plain model with no communication at
all (local), any of them in the same processes (--impl hvd,ddp,local), on CPU, synthetic data,
one model:
  mlp       784-512-512-10 on 28x28 images (Fashion-MNIST's shape)
  cnn       the CNN of tests/frameworks/torch_fashion_mnist.py (2 conv, 2 linear), 28x28
  resnet18  torchvision's ResNet-18 (62 parameter tensors, 11.2M parameters), 3x32x32
Launch it with `hvdrun -np N -- python3 torch_train.py ...`; it runs alone too (one rank).

Each side wraps at every size, as a user's script does: DDP runs its reducer (bucket copies and
an allreduce) even on one rank; DistributedOptimizer, as Horovod's, registers no hooks on one.

Several sides: one copy of the model per side, with the same initial weights. The timed steps
run in blocks of --block steps, the sides' in turn (the order rotates per block), each after an
untimed barrier. So all sides see the same load and the same process (the same memory layout,
core and start-up luck), which on a shared machine vary more between processes than the
implementations differ; their ratios are then paired measurements. "local" trains each rank's
copy on its own batches: at the slowest rank's rate (slowest_rank_img/s below), the rate that
no synchronous data-parallel implementation can exceed, so local/ddp is the ceiling of hvd/ddp.

Rank 0 prints one line per side (impl hvd, ddp or local):
  bench-torch: impl I model M np N batch B img/s X slowest_rank_img/s Y step_ms S wait_ms W
               cpu_ms_per_img C sleeps_per_step Z preempted_per_step P verify_checks K
               verify_ms_per_step V
X: all ranks' images per second of rank 0's timed steps; Y: the same from the slowest rank's
time. They differ much only for "local" (the others wait for each other every step): there each
rank trains at its own core's pace, and a synchronous implementation's steps take at least the
slowest rank's compute, so local's Y, not X, is the ceiling of hvd and ddp. On this VM one
core is often 10-30% slower than the other.
C: rank 0's process CPU time (all threads) in that side's timed steps, per image.
K and V: under hvdrun --verify-every N (hvdrun.torch's parameter check), the checks rank 0 ran
in the timed steps and the time they took, per timed step (0 without the option), each timed
after a barrier (time_verifications).
Z and P: rank 0's voluntary and involuntary context switches (all threads) per timed step: a
sleep (futex, epoll) and, mostly, a sched_yield or preemption that gave the core to another
runnable thread. On a loaded machine each of them can cost a time slice before the thread
runs again.

wait_ms is the time per step a rank spends waiting on communication that compute did not hide:
  hvd: the time blocked in optimizer.synchronize() (the allreduces started from backward's
       hooks; step() then runs under skip_synchronize()).
  ddp: DDP's allreduces also start from backward, and backward waits for them at its end, so
       after the timed steps the same number of steps run with backward under no_sync() (no
       communication); wait = mean backward time with DDP - mean backward time without.
"""
import argparse
import os
import resource
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class FashionCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 4 * 4, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def make_model(name):
    """The model and the shape of one input image."""
    if name == 'mlp':
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512),
                             nn.ReLU(), nn.Linear(512, 10)), (1, 28, 28)
    if name == 'cnn':
        return FashionCnn(), (1, 28, 28)
    import torchvision  # Debian's python3-torchvision; only this model needs it
    return torchvision.models.resnet18(num_classes=10), (3, 32, 32)


def impls(text):
    names = text.split(',')
    if not names or any(n not in ('hvd', 'ddp', 'local') for n in names) or \
            len(set(names)) != len(names):
        raise argparse.ArgumentTypeError('expected a comma-separated list of hvd, ddp, local '
                                         'without repeats, not %r' % text)
    return names


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--impl', required=True, type=impls,
                   help='the sides, comma-separated, in the first turn\'s order: hvd, ddp, local')
    p.add_argument('--model', choices=['mlp', 'cnn', 'resnet18'], required=True)
    p.add_argument('--batch-size', type=int, default=64, help='images per rank per step')
    p.add_argument('--warmup', type=int, default=5, help='untimed steps per side')
    p.add_argument('--steps', type=int, default=20, help='timed steps per side')
    p.add_argument('--block', type=int, default=0,
                   help='timed steps per turn (0: the whole run, one turn each)')
    p.add_argument('--threads', type=int, default=1, help='intra-op threads per rank')
    p.add_argument('--groups', type=int, default=0,
                   help='hvd: DistributedOptimizer groups= (0: none, Horovod\'s default)')
    return p.parse_args()


NO_CHECKS = {'checks': 0, 'seconds': 0.0}


class HvdSide:
    name = 'hvd'

    def __init__(self, model, optimizer, groups):
        import hvdrun.torch as hvd
        hvd.init()
        self.hvd, self.model, self.wait_s, self.checks = hvd, model, 0.0, NO_CHECKS
        self.world, self.rank = hvd.size(), hvd.rank()
        self.optimizer = hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters(), groups=groups or None)
        hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    def start_timing(self):
        """After the warm-up: from now on the wait and the parameter checks count."""
        self.wait_s = 0.0
        self.checks = time_verifications(getattr(self.optimizer, '_verifier', None), self.hvd)

    def step(self, x, y):
        self.optimizer.zero_grad()
        F.cross_entropy(self.model(x), y).backward()
        start = time.perf_counter()
        self.optimizer.synchronize()
        self.wait_s += time.perf_counter() - start
        with self.optimizer.skip_synchronize():
            self.optimizer.step()

    def barrier(self):
        self.hvd.barrier()

    def max_over_ranks(self, value):
        return self.hvd.allreduce(torch.tensor([value], dtype=torch.float64),
                                  op=self.hvd.Max).item()

    def close(self):
        self.hvd.shutdown()

    def wait_per_step(self, steps, pool):
        return self.wait_s / steps


class DdpSide:
    name = 'ddp'
    checks = NO_CHECKS

    def __init__(self, model, optimizer):
        import torch.distributed as dist
        if 'MASTER_ADDR' in os.environ:
            dist.init_process_group('gloo')  # env:// from hvdrun's RANK/WORLD_SIZE/MASTER_*
        else:  # alone, without a launcher
            dist.init_process_group('gloo', store=dist.HashStore(), rank=0, world_size=1)
        self.dist, self.optimizer, self.backward_s = dist, optimizer, 0.0
        self.world, self.rank = dist.get_world_size(), dist.get_rank()
        self.model = nn.parallel.DistributedDataParallel(model)

    def start_timing(self):
        self.backward_s = 0.0

    def step(self, x, y, communicate=True):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        start = time.perf_counter()
        if communicate:
            loss.backward()
        else:
            with self.model.no_sync():
                loss.backward()
        self.backward_s += time.perf_counter() - start
        self.optimizer.step()

    def barrier(self):
        self.dist.barrier()

    def max_over_ranks(self, value):
        t = torch.tensor([value], dtype=torch.float64)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        return t.item()

    def close(self):
        # Before the interpreter's finalization: torch 1.13's gloo threads, left running into
        # it, abort the process now and then ("terminate called without an active exception").
        self.dist.destroy_process_group()

    def wait_per_step(self, steps, pool):
        with_communication, self.backward_s = self.backward_s, 0.0
        for i in range(steps):
            self.step(*pool[i % len(pool)], communicate=False)
        return max(0.0, with_communication - self.backward_s) / steps


class LocalSide:
    """The plain model and optimizer: each rank on its own batches, nothing communicated. It
    meets the other ranks only at the barriers of `peer` (a side that communicates), if any."""
    name = 'local'
    checks = NO_CHECKS

    def __init__(self, model, optimizer, peer):
        self.model, self.optimizer, self.peer = model, optimizer, peer
        self.world, self.rank = ((peer.world, peer.rank) if peer else
                                 (int(os.environ.get('WORLD_SIZE', '1')),
                                  int(os.environ.get('RANK', '0'))))

    def barrier(self):
        if self.peer:
            self.peer.barrier()

    def max_over_ranks(self, value):
        return self.peer.max_over_ranks(value) if self.peer else value

    def close(self):
        pass

    def start_timing(self):
        pass

    def step(self, x, y):
        self.optimizer.zero_grad()
        F.cross_entropy(self.model(x), y).backward()
        self.optimizer.step()

    def wait_per_step(self, steps, pool):
        return 0.0


class Meter:
    """Wall time, process CPU time and context switches of one side's timed steps."""

    def __init__(self):
        self.steps, self.wall_s, self.cpu_s, self.sleeps, self.preempted = 0, 0.0, 0.0, 0, 0

    def run(self, step, first, n, pool):
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu, start = time.process_time(), time.perf_counter()
        for i in range(first, first + n):
            step(*pool[i % len(pool)])
        self.wall_s += time.perf_counter() - start
        self.cpu_s += time.process_time() - cpu
        after = resource.getrusage(resource.RUSAGE_SELF)
        self.sleeps += after.ru_nvcsw - usage.ru_nvcsw
        self.preempted += after.ru_nivcsw - usage.ru_nivcsw
        self.steps += n


def time_verifications(verifier, hvd):
    """Counts the checks of hvdrun.torch's verifier (HVD_VERIFY_EVERY) from now on, and the
    time they take, by wrapping its verify(). A barrier first, untimed: otherwise the check's
    collective would also absorb how far the ranks drifted apart in the step, a wait the next
    gradient allreduce makes without the check."""
    totals = {'checks': 0, 'seconds': 0.0}
    if verifier is None:
        return totals
    inner = verifier.verify

    def timed():
        hvd.barrier()
        start = time.perf_counter()
        try:
            inner()
        finally:
            totals['checks'] += 1
            totals['seconds'] += time.perf_counter() - start
    verifier.verify = timed
    return totals


def make_sides(args):
    """The sides in --impl's order; local last to be made, so that it can use another's barrier."""
    made = {}
    for impl in sorted(args.impl, key=lambda i: i == 'local'):
        torch.manual_seed(42)  # the same initial weights for every side
        model, shape = make_model(args.model)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        if impl == 'hvd':
            made[impl] = HvdSide(model, optimizer, args.groups)
        elif impl == 'ddp':
            made[impl] = DdpSide(model, optimizer)
        else:
            made[impl] = LocalSide(model, optimizer, next(iter(made.values()), None))
    return [made[impl] for impl in args.impl], shape


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    sides, shape = make_sides(args)
    rank, world = sides[0].rank, sides[0].world
    gen = torch.Generator().manual_seed(42 + rank)
    pool = [(torch.randn(args.batch_size, *shape, generator=gen),
             torch.randint(0, 10, (args.batch_size,), generator=gen)) for _ in range(4)]

    for side in sides:
        for i in range(args.warmup):
            side.step(*pool[i % len(pool)])
        side.barrier()
        side.start_timing()
    meters = [Meter() for _ in sides]
    block = args.block if args.block > 0 else args.steps
    for turn, first in enumerate(range(0, args.steps, block)):
        n = min(block, args.steps - first)
        order = list(zip(sides, meters))
        shift = turn % len(order)
        for side, meter in order[shift:] + order[:shift]:
            side.barrier()  # untimed: neither side's turn absorbs the other's skew
            meter.run(side.step, first, n, pool)

    for side, meter in zip(sides, meters):
        wait_s = side.wait_per_step(args.steps, pool)
        slowest_wall_s = side.max_over_ranks(meter.wall_s)
        side.barrier()
        if rank != 0:
            continue
        images = meter.steps * args.batch_size
        checks = side.checks
        print('bench-torch: impl %s model %s np %d batch %d img/s %.1f slowest_rank_img/s %.1f '
              'step_ms %.2f wait_ms %.2f cpu_ms_per_img %.3f sleeps_per_step %.1f '
              'preempted_per_step %.1f verify_checks %d verify_ms_per_step %.4f'
              % (side.name, args.model, world, args.batch_size, world * images / meter.wall_s,
                 world * images / slowest_wall_s, 1e3 * meter.wall_s / meter.steps,
                 1e3 * wait_s, 1e3 * meter.cpu_s / images, meter.sleeps / meter.steps,
                 meter.preempted / meter.steps, checks['checks'],
                 1e3 * checks['seconds'] / meter.steps),
              flush=True)
    for side in sides:
        side.close()


if __name__ == '__main__':
    main()
