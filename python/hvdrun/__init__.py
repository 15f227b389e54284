# SPDX-License-Identifier: Apache-2.0
"""hvdrun's Python packages. hvdrun.torch is Horovod 0.28's horovod.torch API over libhvd."""

import importlib as _importlib
import os as _os
import site as _site
import sys as _sys

try:
    from . import _version
except ImportError:  # the source tree itself (tests/unit/python): no build or pip wrote one
    _version = None


def _users_own_copy():
    """The hvdrun package that pip installed into this Python's environment (built against its
    torch), when this copy is the one hvdrun or its module file put on PYTHONPATH (built against
    the torch of hvdrun's build machine). PYTHONPATH comes before site-packages, so without this
    the launcher's copy would shadow the user's. None when there is no such copy."""
    if _version is None or not _version.launcher_copy:
        return None
    here = _os.path.dirname(_os.path.realpath(__file__))
    folders = list(_site.getsitepackages()) if hasattr(_site, 'getsitepackages') else []
    folders.append(_site.getusersitepackages())
    for folder in folders:
        package = _os.path.join(folder, 'hvdrun')
        if (folder in _sys.path and _os.path.isfile(_os.path.join(package, '_version.py'))
                and _os.path.realpath(package) != here):
            return package
    return None


_theirs = _users_own_copy()
if _theirs is not None:
    # Every submodule (hvdrun.torch, its extension, _version) now comes from the user's copy.
    __path__[:] = [_theirs]
    del _sys.modules[__name__ + '._version']
    _version = _importlib.import_module(__name__ + '._version')
__version__ = _version.__version__ if _version is not None else '0+source'
