# SPDX-License-Identifier: Apache-2.0
"""setuptools' scratch (build/, *.egg-info) in a temporary folder instead of the source folder,
so that the copy in a site's install tree, often read-only, can be pip-installed as it is, and
a source checkout stays clean."""

import atexit
import os
import shutil
import tempfile


def setup_options():
    """The `options` argument of setup(): build and egg_info under a fresh temporary folder,
    removed when the setup.py process ends."""
    scratch = tempfile.mkdtemp(prefix='hvdrun-pip-build-')
    atexit.register(shutil.rmtree, scratch, True)
    return {'build': {'build_base': os.path.join(scratch, 'build')},
            'egg_info': {'egg_base': scratch}}
