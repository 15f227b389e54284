# SPDX-License-Identifier: Apache-2.0
"""Finds the installed libhvd that `pip install` builds hvdrun.torch against, and its version
(hvdrun's version, which the Python packages take as theirs). Used by setup.py and by
horovod-compat/setup.py; no torch here, so the alias builds without it."""

import os
import re

# The explicit setting: the prefix hvdrun was installed to, for this build only.
EXPLICIT_VARIABLE = 'HVDRUN_LIBHVD_PREFIX'


class LibhvdNotFound(Exception):
    pass


def _missing(prefix):
    """What keeps `prefix` from being an hvdrun install, or '' when it is one."""
    wanted = ('include/hvd/hvd.h', 'include/hvd/build_config.h', 'lib/libhvd.so')
    absent = [w for w in wanted if not os.path.isfile(os.path.join(prefix, w))]
    return 'no ' + ', no '.join(absent) if absent else ''


def _own_install_prefix(source_dir):
    """<prefix> when this source is the copy in <prefix>/share/hvdrun/python, else None."""
    parent, name = os.path.split(os.path.abspath(source_dir))
    share_hvdrun, hvdrun = os.path.split(parent)
    prefix, share = os.path.split(share_hvdrun)
    if (name, hvdrun, share) == ('python', 'hvdrun', 'share'):
        return prefix
    return None


def _candidates(environ, source_dir):
    """(where the candidate came from, prefix or None, why there is none), in order."""
    yield EXPLICIT_VARIABLE, environ.get(EXPLICIT_VARIABLE) or None, 'not set'
    yield ('the install tree around this source', _own_install_prefix(source_dir),
           '%s is not in <prefix>/share/hvdrun/python' % os.path.abspath(source_dir))
    yield 'HVDRUN_ROOT', environ.get('HVDRUN_ROOT') or None, 'not set'
    entries = [e for e in environ.get('CMAKE_PREFIX_PATH', '').split(':') if e]
    if not entries:
        yield 'CMAKE_PREFIX_PATH', None, 'not set'
    for entry in entries:
        yield 'CMAKE_PREFIX_PATH entry', entry, ''


def find_prefix(environ, source_dir):
    """The first candidate prefix that holds libhvd and its headers; raises LibhvdNotFound
    naming every place tried and why each was passed over."""
    tried = []
    for origin, prefix, why_none in _candidates(environ, source_dir):
        if prefix is None:
            tried.append('%s (%s)' % (origin, why_none))
            continue
        why = _missing(prefix)
        if not why:
            return os.path.abspath(prefix)
        tried.append('%s %s (%s)' % (origin, prefix, why))
    raise LibhvdNotFound(
        'hvdrun.torch: cannot find an installed libhvd to build against; tried: %s. Load the '
        'hvdrun module (it sets HVDRUN_ROOT and CMAKE_PREFIX_PATH), or set %s to the prefix '
        'hvdrun was installed to (the folder with lib/libhvd.so and include/hvd/hvd.h).'
        % ('; '.join(tried), EXPLICIT_VARIABLE))


def version(prefix):
    """HVD_VERSION from <prefix>/include/hvd/build_config.h: the installed hvdrun's version."""
    path = os.path.join(prefix, 'include', 'hvd', 'build_config.h')
    with open(path) as f:
        match = re.search(r'^#define HVD_VERSION "([^"]+)"', f.read(), re.MULTILINE)
    if not match:
        raise LibhvdNotFound('hvdrun.torch: %s has no HVD_VERSION line; reinstall hvdrun' % path)
    return match.group(1)
