#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Data-parallel equivalence: N ranks with batch B end with the same weights as one process with
batch N*B, the same seed and the same samples in the same order.

Each rank trains, with hvdrun.torch's DistributedOptimizer (SGD, momentum 0.9), its B rows of
every global batch of N*B; in the same process and without hvd it also trains a copy of the
model on the whole global batch. Two models, in float64 so that only rounding separates them:
an MLP, and a small CNN whose batch norm is hvd.SyncBatchNorm in the distributed copy and
torch.nn.BatchNorm2d in the single-process one (with SyncBatchNorm the global batch's
statistics, and so the weights, are the same as one process's). After STEPS steps every
parameter and buffer must agree within TOLERANCE (absolute, on values of order 1).

The test must not pass by accident: a third copy, trained on this rank's B rows alone (what a
DistributedOptimizer that stopped averaging would give), must differ from the reference by more
than MIN_SPREAD. Prints one line per rank,
    torch_equivalence: rank R of N on HOST params P max_diff D failures F
with P a digest of the distributed weights (check_ranks.py wants it equal on every rank).
"""
import copy
import socket
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import hvdrun.torch as hvd

BATCH = 4            # B, per rank
STEPS = 6
SAMPLES = 96         # enough for STEPS global batches of up to 4 ranks
TOLERANCE = 1e-10    # float64; the differences seen are ~1e-16 (rounding of sums)
MIN_SPREAD = 1e-4    # the local-only copy differs by ~1e-2

failures = []


def fail(what):
    failures.append(what)
    print('FAILED: %s' % what, file=sys.stderr, flush=True)


def mlp(_):
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(),
                         nn.Linear(16, 10))


def cnn(batch_norm):
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), batch_norm(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 10))


def train(model, optimizer, images, labels, batches):
    for rows in batches:
        optimizer.zero_grad()
        F.cross_entropy(model(images[rows]), labels[rows]).backward()
        optimizer.step()


def sgd(model):
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def max_difference(a, b):
    """Largest absolute difference over all parameters and floating-point buffers."""
    pairs = zip(a.state_dict().values(), b.state_dict().values())
    return max((x.double() - y.double()).abs().max().item() for x, y in pairs)


def compare(name, make):
    r, n = hvd.rank(), hvd.size()
    torch.manual_seed(1234)
    images = torch.randn(SAMPLES, 1, 8, 8, dtype=torch.float64)
    labels = torch.randint(0, 10, (SAMPLES,))
    order = torch.randperm(SAMPLES)
    global_batches = [order[s * n * BATCH:(s + 1) * n * BATCH] for s in range(STEPS)]
    own_batches = [g[r * BATCH:(r + 1) * BATCH] for g in global_batches]

    reference = make(nn.BatchNorm2d).double()       # one process, batch N*B
    distributed = make(hvd.SyncBatchNorm).double()
    distributed.load_state_dict(reference.state_dict())
    local_only = copy.deepcopy(reference)           # this rank's B rows, no averaging

    train(reference, sgd(reference), images, labels, global_batches)
    train(local_only, sgd(local_only), images, labels, own_batches)
    optimizer = hvd.DistributedOptimizer(sgd(distributed),
                                         named_parameters=distributed.named_parameters())
    hvd.broadcast_parameters(distributed.state_dict(), root_rank=0)
    train(distributed, optimizer, images, labels, own_batches)

    diff = max_difference(distributed, reference)
    spread = max_difference(local_only, reference)
    if not diff <= TOLERANCE:
        fail('%s: %d ranks x batch %d differ from 1 x batch %d by %.3g (tolerance %.3g)'
             % (name, n, BATCH, n * BATCH, diff, TOLERANCE))
    if n > 1 and not spread > MIN_SPREAD:
        fail('%s: training on %d rows alone differs from the global batch by only %.3g: the '
             'comparison cannot tell averaging from none' % (name, BATCH, spread))
    digest = sum(p.double().sum().item() * (i + 1)
                 for i, p in enumerate(distributed.state_dict().values()))
    return diff, digest


def main():
    hvd.init()
    diffs, digests = [], []
    for name, make in (('mlp', mlp), ('cnn+SyncBatchNorm', cnn)):
        diff, digest = compare(name, make)
        diffs.append(diff)
        digests.append('%.17g' % digest)
    r, n = hvd.rank(), hvd.size()
    hvd.shutdown()
    print('torch_equivalence: rank %d of %d on %s params %s max_diff %.3g failures %d'
          % (r, n, socket.gethostname(), ','.join(digests), max(diffs), len(failures)),
          flush=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
