#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One training run for scripts/bench-torch.sh: hvdrun.torch's DistributedOptimizer (--impl hvd)
or torch's DistributedDataParallel over gloo (--impl ddp), on CPU, synthetic data, one model:
  mlp       784-512-512-10 on 28x28 images (Fashion-MNIST's shape)
  cnn       the CNN of tests/frameworks/torch_fashion_mnist.py (2 conv, 2 linear), 28x28
  resnet18  torchvision's ResNet-18 (62 parameter tensors, 11.2M parameters), 3x32x32
Launch it with `hvdrun -np N -- python3 torch_train.py ...`; it runs alone too (N = 1: no
wrapper, no communication). Rank 0 prints one line:
  bench-torch: impl I model M np N batch B img/s X step_ms S wait_ms W cpu_ms_per_img C
               sleeps_per_step Z preempted_per_step P verify_checks K verify_ms_per_step V
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


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--impl', choices=['hvd', 'ddp'], required=True)
    p.add_argument('--model', choices=['mlp', 'cnn', 'resnet18'], required=True)
    p.add_argument('--batch-size', type=int, default=64, help='images per rank per step')
    p.add_argument('--warmup', type=int, default=5)
    p.add_argument('--steps', type=int, default=20)
    p.add_argument('--threads', type=int, default=1, help='intra-op threads per rank')
    p.add_argument('--groups', type=int, default=0,
                   help='hvd: DistributedOptimizer groups= (0: none, Horovod\'s default)')
    return p.parse_args()


class Distributed:
    """What differs between the two: set-up, the wrapped model, backward, and the wait."""

    def __init__(self, impl, model, optimizer, groups):
        self.impl, self.world, self.rank = impl, 1, 0
        self.model, self.optimizer, self.wait_s = model, optimizer, 0.0
        if impl == 'hvd':
            import hvdrun.torch as hvd
            hvd.init()
            self.world, self.rank = hvd.size(), hvd.rank()
            if self.world > 1:
                self.optimizer = hvd.DistributedOptimizer(
                    optimizer, named_parameters=model.named_parameters(), groups=groups or None)
                hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        else:
            self.world = int(os.environ.get('WORLD_SIZE', '1'))
            if self.world > 1:
                import torch.distributed as dist
                dist.init_process_group('gloo')  # env:// from hvdrun's RANK/MASTER_*
                self.rank = dist.get_rank()
                self.model = nn.parallel.DistributedDataParallel(model)

    def step(self, x, y, communicate=True):
        """One training step; returns the seconds backward took."""
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        start = time.perf_counter()
        if communicate or self.impl != 'ddp' or self.world == 1:
            loss.backward()
        else:
            with self.model.no_sync():
                loss.backward()
        backward_s = time.perf_counter() - start
        if self.impl == 'hvd' and self.world > 1:
            start = time.perf_counter()
            self.optimizer.synchronize()
            self.wait_s += time.perf_counter() - start
            with self.optimizer.skip_synchronize():
                self.optimizer.step()
        else:
            self.optimizer.step()
        return backward_s

    def barrier(self):
        if self.world == 1:
            return
        if self.impl == 'hvd':
            import hvdrun.torch as hvd
            hvd.barrier()
        else:
            import torch.distributed as dist
            dist.barrier()


def time_verifications(verifier):
    """Counts the checks of hvdrun.torch's verifier (HVD_VERIFY_EVERY) from now on, and the
    time they take, by wrapping its verify(). A barrier first, untimed: otherwise the check's
    collective would also absorb how far the ranks drifted apart in the step, a wait the next
    gradient allreduce makes without the check."""
    totals = {'checks': 0, 'seconds': 0.0}
    if verifier is None:
        return totals
    inner = verifier.verify
    import hvdrun.torch as hvd

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


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    model, shape = make_model(args.model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    d = Distributed(args.impl, model, optimizer, args.groups)
    gen = torch.Generator().manual_seed(42 + d.rank)
    pool = [(torch.randn(args.batch_size, *shape, generator=gen),
             torch.randint(0, 10, (args.batch_size,), generator=gen)) for _ in range(4)]

    for i in range(args.warmup):
        d.step(*pool[i % len(pool)])
    d.barrier()
    d.wait_s = 0.0
    backward_s = 0.0
    verify = time_verifications(getattr(d.optimizer, '_verifier', None))
    usage_start = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start, start = time.process_time(), time.perf_counter()
    for i in range(args.steps):
        backward_s += d.step(*pool[i % len(pool)])
    elapsed = time.perf_counter() - start
    cpu_s = time.process_time() - cpu_start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    sleeps = usage.ru_nvcsw - usage_start.ru_nvcsw
    preempted = usage.ru_nivcsw - usage_start.ru_nivcsw
    wait_s = d.wait_s
    if args.impl == 'ddp' and d.world > 1:
        local_backward_s = sum(d.step(*pool[i % len(pool)], communicate=False)
                               for i in range(args.steps))
        wait_s = max(0.0, backward_s - local_backward_s)
    d.barrier()
    if d.rank == 0:
        images = args.steps * args.batch_size
        print('bench-torch: impl %s model %s np %d batch %d img/s %.1f step_ms %.2f wait_ms %.2f '
              'cpu_ms_per_img %.3f sleeps_per_step %.1f preempted_per_step %.1f '
              'verify_checks %d verify_ms_per_step %.4f'
              % (args.impl, args.model, d.world, args.batch_size, d.world * images / elapsed,
                 1e3 * elapsed / args.steps, 1e3 * wait_s / args.steps, 1e3 * cpu_s / images,
                 sleeps / args.steps, preempted / args.steps, verify['checks'],
                 1e3 * verify['seconds'] / args.steps),
              flush=True)


if __name__ == '__main__':
    main()
