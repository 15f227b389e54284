# SPDX-License-Identifier: Apache-2.0
"""The state an elastic training function carries: plain attributes, models, optimizers,
learning-rate schedulers and ElasticSamplers, each with a saved copy (commit/restore) and a
way to take rank 0's value (sync), with Horovod's semantics."""

import copy

import torch

from ..functions import broadcast_object, broadcast_optimizer_state, broadcast_parameters
from .sampler import ElasticSampler


class State:
    """Saved in memory by commit(), rolled back by restore(), made rank 0's by sync()."""

    def __init__(self):
        self._reset_callbacks = []

    def register_reset_callbacks(self, callbacks):
        """Kept for Horovod's API: called after the ranks change, which never happens here."""
        self._reset_callbacks.extend(callbacks)

    def on_reset(self):
        for callback in self._reset_callbacks:
            callback()

    def commit(self):
        self.save()
        self.check_host_updates()

    def check_host_updates(self):
        """Horovod raises HostsUpdatedInterrupt here when hosts joined or left; hvdrun's set of
        ranks is fixed for the run, so there is never an update to report."""

    def save(self):
        raise NotImplementedError()

    def restore(self):
        raise NotImplementedError()

    def sync(self):
        raise NotImplementedError()


class ObjectState(State):
    """Keyword arguments become attributes; their values are what is saved and synced."""

    def __init__(self, bcast_object=broadcast_object, get_rank=None, **kwargs):
        self._bcast_object = bcast_object
        self._saved_state = kwargs
        self._set_attrs()
        super().__init__()

    def save(self):
        self._saved_state = {name: getattr(self, name) for name in self._saved_state}

    def restore(self):
        self._set_attrs()

    def sync(self):
        if self._saved_state:
            self._saved_state = self._bcast_object(self._saved_state)
            self._set_attrs()

    def _set_attrs(self):
        for name, value in self._saved_state.items():
            setattr(self, name, value)


class _Handler:
    """Save, restore and sync of one object that is not a plain value: a model, optimizer,
    scheduler or sampler, each saved as a copy of its state_dict(). sync() takes rank 0's
    state_dict(); models and optimizers override it with their own broadcasts."""

    def __init__(self, value):
        self.value = value
        self.save()

    def set_value(self, value):
        self.value = value
        self.save()

    def save(self):
        self._saved = copy.deepcopy(self.value.state_dict())

    def restore(self):
        self.value.load_state_dict(self._saved)

    def sync(self):
        self.value.load_state_dict(broadcast_object(self.value.state_dict()))


class _ModelHandler(_Handler):
    def sync(self):
        broadcast_parameters(self.value.state_dict(), root_rank=0)


class _OptimizerHandler(_Handler):
    def sync(self):
        broadcast_optimizer_state(self.value, root_rank=0)


def _handler_for(value):
    # Schedulers and samplers: the base handler (record_batch() counts every rank's samples, so
    # a sampler's own count is already the job's).
    for kind, handler in ((torch.nn.Module, _ModelHandler),
                          (torch.optim.Optimizer, _OptimizerHandler),
                          (torch.optim.lr_scheduler._LRScheduler, _Handler),
                          (ElasticSampler, _Handler)):
        if isinstance(value, kind):
            return handler(value)
    return None


class TorchState(ObjectState):
    """The state of a PyTorch training: `model`, `optimizer` and any keyword argument, each a
    model, optimizer, scheduler, ElasticSampler or plain value (epoch, batch, ...)."""

    def __init__(self, model=None, optimizer=None, **kwargs):
        kwargs.update(model=model, optimizer=optimizer)
        handlers, plain = {}, {}
        for name, value in kwargs.items():
            handler = _handler_for(value)
            if handler is None:
                plain[name] = value
            else:
                handlers[name] = handler
        object.__setattr__(self, '_handlers', handlers)
        for name, handler in handlers.items():
            object.__setattr__(self, name, handler.value)
        super().__init__(bcast_object=broadcast_object, **plain)

    def save(self):
        for handler in self._handlers.values():
            handler.save()
        super().save()

    def restore(self):
        for handler in self._handlers.values():
            handler.restore()
        super().restore()

    def sync(self):
        for handler in self._handlers.values():
            handler.sync()
        super().sync()

    def __setattr__(self, name, value):
        # Assigning a new model (or optimizer, ...) makes it the one saved and synced.
        handlers = self.__dict__.get('_handlers', {})
        if name in handlers:
            handlers[name].set_value(value)
        super().__setattr__(name, value)
