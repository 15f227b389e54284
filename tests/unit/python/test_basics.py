# SPDX-License-Identifier: Apache-2.0
"""basics.py: Horovod's op values mapped to libhvd's ReduceOp (read from runtime/include/hvd/
tensor.h, the C++ side's one list), and Horovod's rule for the deprecated `average`."""

import os
import re

import pytest

from hvdrun.torch import basics

SOURCE_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')

HOROVOD_OPS = [basics.Average, basics.Sum, basics.Adasum, basics.Min, basics.Max,
               basics.Product]


def reduce_op_names():
    """libhvd's ReduceOp members in declaration order (their values), from hvd/tensor.h."""
    with open(os.path.join(SOURCE_ROOT, 'runtime', 'include', 'hvd', 'tensor.h')) as f:
        body = re.search(r'enum class ReduceOp[^{]*\{([^}]*)\}', f.read()).group(1)
    return [m.group(1) for m in re.finditer(r'\bk(\w+)', body)]


@pytest.mark.parametrize('op', [op for op in HOROVOD_OPS if op != basics.Adasum])
def test_lib_op_is_the_reduce_op_of_the_same_name(op):
    assert reduce_op_names()[basics.lib_op(op)] == basics._OP_NAMES[op]


def test_lib_op_refuses_adasum_and_unknown_values():
    with pytest.raises(NotImplementedError):
        basics.lib_op(basics.Adasum)
    for unknown in (max(HOROVOD_OPS) + 1, -1, 'Sum', None):
        with pytest.raises(ValueError):
            basics.lib_op(unknown)


@pytest.mark.parametrize('average', [None, True, False])
@pytest.mark.parametrize('op', [None] + HOROVOD_OPS)
def test_op_from(op, average):
    # Horovod's handle_average_backwards_compatibility: both given is an error, op wins, then
    # average picks Average or Sum, and Average is the default.
    if op is not None and average is not None:
        with pytest.raises(ValueError):
            basics.op_from(op, average)
        return
    if op is not None:
        expected = op
    elif average is not None:
        expected = basics.Average if average else basics.Sum
    else:
        expected = basics.Average
    assert basics.op_from(op, average) == expected


def test_queries_refuse_before_init(fake):
    fake.reset(size=4, rank=2, initialized=False)
    for query in (basics.size, basics.rank, basics.local_size, basics.local_rank,
                  basics.cross_size, basics.cross_rank):
        with pytest.raises(ValueError):
            query()
    fake.reset(size=4, rank=2)
    assert (basics.size(), basics.rank()) == (fake.size(), fake.rank())
