# SPDX-License-Identifier: Apache-2.0
"""hvdrun's Python stack dump, for `hvdrun why`, the stall verdict and SIGQUIT to hvdrun.

On hvdrun's why signal (SIGURG, whose default action is to ignore it), faulthandler writes the
stack of every thread into HVD_WHY_DIR/py.<rank>: a folder of the user's own (0700) that hvdrun
made for the job. The dump is written from the signal handler in C, so it comes even while the
main thread loops in Python or waits in C code holding the GIL. libhvd's responder (or hvdrun)
reads the file and empties it; the file is opened O_APPEND so that the next dump starts at 0.

chain=False: libhvd installs its handler after this one and calls this one first. With
chain=True faulthandler would put itself back over libhvd's handler after every dump.
"""

import faulthandler
import os
import signal

_fd = None


def install():
    """Registers the dump once per process; returns whether it is active."""
    global _fd
    if _fd is not None:
        return True
    folder = os.environ.get("HVD_WHY_DIR")
    rank = os.environ.get("HOROVOD_RANK")
    if not folder or rank is None or not rank.isdigit():
        return False
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(os.path.join(folder, "py." + rank), flags, 0o600)
    except OSError:
        return False  # not on hvdrun's node (a folder of another host): no Python stack
    faulthandler.register(signal.SIGURG, file=fd, all_threads=True, chain=False)
    _fd = fd
    return True
