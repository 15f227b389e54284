# SPDX-License-Identifier: Apache-2.0
"""horovod.common.util under hvdrun --horovod-compat: the helpers of Horovod 0.28's module that
scripts and test suites import (its build-time extension lookups have no meaning here)."""

import contextlib
import os


@contextlib.contextmanager
def env(**kwargs):
    """Sets the environment variables in kwargs (None unsets one) for the with-block, then
    restores the values they had."""
    saved = {key: os.environ.get(key) for key in kwargs}
    try:
        for key, value in kwargs.items():
            _put(key, value)
        yield
    finally:
        for key, value in saved.items():
            _put(key, value)


def _put(key, value):
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = str(value)


def is_iterable(x):
    try:
        iter(x)
    except TypeError:
        return False
    return True


def split_list(items, n):
    """items in n consecutive parts of (almost) equal length, the longer ones first."""
    d, r = divmod(len(items), n)
    return [items[i * d + min(i, r):(i + 1) * d + min(i + 1, r)] for i in range(n)]


def num_rank_is_power_2(num_rank):
    """Whether num_rank is a power of two (Adasum's requirement)."""
    return num_rank != 0 and (num_rank & (num_rank - 1)) == 0
