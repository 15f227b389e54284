# SPDX-License-Identifier: Apache-2.0
"""Horovod's elastic API (`hvd.elastic.run`, `TorchState`, `ElasticSampler`) for a fixed set of
ranks. hvdrun starts a job's ranks once and never adds or removes one while it runs (a job
that loses a rank ends, and Slurm's requeue or a restart continues it from a checkpoint), so:
- `run(func)` brings every rank to rank 0's state (`state.sync()`) and calls `func(state)`;
  when a collective fails (HorovodInternalError) it restores the last committed state and
  raises again instead of re-forming the job, which here has nobody to re-form it with;
- `state.commit()` saves the state in memory and never raises HostsUpdatedInterrupt.
Scripts written for elastic Horovod thus run unchanged, as on a fixed-size Horovod launch."""

import functools

from ..exceptions import HorovodInternalError
from .sampler import ElasticSampler
from .state import ObjectState, State, TorchState


def run(func):
    """Decorator for the training function `func(state, ...)`; see the module's doc."""
    @functools.wraps(func)
    def wrapper(state, *args, **kwargs):
        state.sync()
        try:
            return func(state, *args, **kwargs)
        except HorovodInternalError:
            state.restore()
            raise
    return wrapper


__all__ = ['ElasticSampler', 'ObjectState', 'State', 'TorchState', 'run']
