# SPDX-License-Identifier: Apache-2.0
"""Imports hvdrun.torch from the source tree (python/) with FakeExtension in place of the
compiled extension: these tests need torch but neither libhvd nor a build of python/csrc."""

import os
import sys

import pytest

sys.dont_write_bytecode = True  # no __pycache__ of hvdrun in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SOURCE_ROOT, 'python'))

from fake_extension import FakeExtension  # noqa: E402

FAKE = FakeExtension()
sys.modules['hvdrun.torch._hvd_torch'] = FAKE


@pytest.fixture
def fake():
    """The fake extension, reset to one initialized rank, with the package's per-runtime state
    (handles, registered process sets) forgotten, as after shutdown()."""
    from hvdrun.torch import handles, process_sets
    FAKE.reset()
    handles.reset()
    process_sets._forget_all()
    process_sets._init_global()
    return FAKE
