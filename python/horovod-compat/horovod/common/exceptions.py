# SPDX-License-Identifier: Apache-2.0
"""horovod.common.exceptions under hvdrun --horovod-compat."""

from hvdrun.torch.exceptions import HorovodInternalError, HostsUpdatedInterrupt  # noqa: F401
