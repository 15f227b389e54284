#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A small CNN on Fashion-MNIST, written the way a Horovod user writes it: `import
horovod.torch as hvd` (hvdrun --horovod-compat), pin nothing on CPU, shard the data by rank,
scale the learning rate by size, broadcast the initial state from rank 0, wrap the optimizer,
and average the test metric.

Reads Debian's IDX files (default /usr/share/datasets/fashion-mnist, or $FASHION_MNIST_DIR).
Prints one line per rank,
    fashion_mnist: rank R of N on HOST accuracy A params HASH
where HASH is a SHA-256 of every parameter's bytes (check_ranks.py --same params: bit-identical
on every rank); exits 1 below --min-accuracy.
"""
import argparse
import gzip
import hashlib
import os
import socket
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

import horovod.torch as hvd


def read_idx(path):
    with gzip.open(path, 'rb') as f:
        data = f.read()
    zero, dtype, ndim = struct.unpack('>HBB', data[:4])
    if zero != 0 or dtype != 0x08:
        raise ValueError('%s: not an unsigned-byte IDX file' % path)
    dims = struct.unpack('>' + 'I' * ndim, data[4:4 + 4 * ndim])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(directory, split, limit):
    images = read_idx(os.path.join(directory, '%s-images-idx3-ubyte.gz' % split))[:limit]
    labels = read_idx(os.path.join(directory, '%s-labels-idx1-ubyte.gz' % split))[:limit]
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)
    return (x - 0.2860) / 0.3530, torch.from_numpy(labels.astype(np.int64))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 5)
        self.conv2 = torch.nn.Conv2d(16, 32, 5)
        self.fc1 = torch.nn.Linear(32 * 4 * 4, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--data', default=os.environ.get('FASHION_MNIST_DIR',
                                                         '/usr/share/datasets/fashion-mnist'))
    parser.add_argument('--train-samples', type=int, default=60000)
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--lr', type=float, default=1e-3)
    parser.add_argument('--min-accuracy', type=float, default=0.85)
    args = parser.parse_args()

    hvd.init()
    torch.manual_seed(1234 + hvd.rank())  # different on every rank: the broadcast must fix it
    torch.set_num_threads(max(1, int(os.environ.get('OMP_NUM_THREADS', '1'))))

    x_train, y_train = load(args.data, 'train', args.train_samples)
    x_test, y_test = load(args.data, 't10k', None)
    # This rank's shard of the training and test sets.
    x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
    x_test, y_test = x_test[hvd.rank()::hvd.size()], y_test[hvd.rank()::hvd.size()]

    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    # Every rank runs the same number of steps (the shards differ by at most one sample).
    steps = len(x_train) // args.batch_size
    steps = int(hvd.allreduce(torch.tensor(steps), op=hvd.Min, name='steps').item())
    generator = torch.Generator().manual_seed(99 + hvd.rank())
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(x_train), generator=generator)
        for step in range(steps):
            batch = order[step * args.batch_size:(step + 1) * args.batch_size]
            optimizer.zero_grad()
            F.cross_entropy(model(x_train[batch]), y_train[batch]).backward()
            optimizer.step()

    model.eval()
    with torch.no_grad():
        correct = (model(x_test).argmax(1) == y_test).sum()
    counts = hvd.allreduce(torch.tensor([float(correct), float(len(y_test))]), op=hvd.Sum,
                           name='test_counts')
    accuracy = (counts[0] / counts[1]).item()

    digest = hashlib.sha256()
    for name, p in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(p.detach().contiguous().numpy().tobytes())
    print('fashion_mnist: rank %d of %d on %s accuracy %.4f params %s'
          % (hvd.rank(), hvd.size(), socket.gethostname(), accuracy, digest.hexdigest()[:16]),
          flush=True)
    hvd.shutdown()
    return 0 if accuracy >= args.min_accuracy else 1


if __name__ == '__main__':
    sys.exit(main())
