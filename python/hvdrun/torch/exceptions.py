# SPDX-License-Identifier: Apache-2.0
"""Horovod's exception names (horovod.common.exceptions), for scripts that catch them."""


class HorovodInternalError(RuntimeError):
    """A collective failed: a peer died, the ranks disagreed about a tensor, or libhvd itself
    failed. As in Horovod, every error that synchronize() sees is one of these."""


class HostsUpdatedInterrupt(RuntimeError):
    """Elastic training's signal in Horovod; hvdrun.torch has no elastic mode and never
    raises it. Defined so that scripts that name it still import."""
