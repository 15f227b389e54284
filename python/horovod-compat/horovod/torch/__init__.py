# SPDX-License-Identifier: Apache-2.0
"""horovod.torch under hvdrun --horovod-compat: hvdrun.torch under Horovod's name."""

import sys as _sys

import hvdrun.torch as _impl
from hvdrun.torch import *  # noqa: F401,F403
from hvdrun.torch import __doc__  # noqa: F401

# Horovod's submodules, for scripts that import from them (`from horovod.torch.mpi_ops import
# allreduce, Sum`): each name is the whole API, a superset of what Horovod's module holds.
for _sub in ('compression', 'functions', 'mpi_ops', 'optimizer', 'sync_batch_norm'):
    _sys.modules['%s.%s' % (__name__, _sub)] = _impl
for _sub in ('elastic', 'elastic.sampler', 'elastic.state'):
    _sys.modules['%s.%s' % (__name__, _sub)] = _sys.modules['hvdrun.torch.' + _sub]
