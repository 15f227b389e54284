# SPDX-License-Identifier: Apache-2.0
"""horovod.torch under hvdrun --horovod-compat: hvdrun.torch under Horovod's name."""

from hvdrun.torch import *  # noqa: F401,F403
from hvdrun.torch import __doc__  # noqa: F401
