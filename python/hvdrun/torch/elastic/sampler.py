# SPDX-License-Identifier: Apache-2.0
"""ElasticSampler: DistributedSampler's partition of a dataset by rank, which also counts the
samples the job has processed this epoch (record_batch), so that a state restored from a
commit resumes the epoch where the commit left it instead of at its start."""

import math
import random

import torch.utils.data

from ..basics import rank, size


class ElasticSampler(torch.utils.data.Sampler):
    def __init__(self, dataset, shuffle=True, seed=0):
        self.dataset = dataset
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = 0
        self.processed_num = 0
        self.reset()

    def set_epoch(self, epoch):
        """Call at the end of an epoch: the next one starts with nothing processed."""
        self.epoch = epoch
        self.processed_num = 0
        self.reset()

    def record_batch(self, batch_idx, batch_size):
        """This rank processed `batch_size` samples; every rank did the same."""
        self.processed_num += batch_size * self.num_replicas

    def state_dict(self):
        return {'epoch': self.epoch, 'processed_num': self.processed_num}

    def load_state_dict(self, state_dict):
        self.epoch = state_dict['epoch']
        self.processed_num = state_dict['processed_num']
        self.reset()

    def reset(self):
        """Partitions what is left of the epoch among the ranks."""
        self.num_replicas = size()
        self.rank = rank()
        order = list(range(len(self.dataset)))
        if self.shuffle:  # the same order on every rank: the seed and epoch are shared
            random.Random(self.seed + self.epoch).shuffle(order)
        self.remaining_indices = order[self.processed_num:]
        self.num_samples = int(math.ceil(len(self.remaining_indices) / self.num_replicas))
        self.total_size = self.num_samples * self.num_replicas

    def __iter__(self):
        # Padded with the first indices to a multiple of the ranks, so all get as many.
        padded = list(self.remaining_indices)
        while len(padded) < self.total_size:
            padded += self.remaining_indices[:self.total_size - len(padded)]
        self.indices = padded[self.rank:self.total_size:self.num_replicas]
        return iter(self.indices)

    def __len__(self):
        return self.num_samples
