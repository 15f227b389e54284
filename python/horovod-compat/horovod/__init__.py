# SPDX-License-Identifier: Apache-2.0
"""A `horovod` package that hvdrun --horovod-compat puts on the ranks' PYTHONPATH, so that
Horovod scripts run unchanged on hvdrun.torch. Without the flag it is never on the path."""

__version__ = '0.28.1'
