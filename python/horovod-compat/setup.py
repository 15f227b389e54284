# SPDX-License-Identifier: Apache-2.0
"""The opt-in `horovod` alias (import horovod.torch as hvd -> hvdrun.torch) as a distribution
of its own, hvdrun-horovod, so that it is never installed unless asked for:
    pip install --no-build-isolation <python>/ <python>/horovod-compat/
It holds only Python and needs hvdrun of the same version."""

import os
import sys

from setuptools import setup

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(_here), 'setup_support'))
import libhvd_install  # noqa: E402
import scratch_dirs  # noqa: E402

try:
    _version = libhvd_install.version(
        libhvd_install.find_prefix(os.environ, os.path.dirname(_here)))
except libhvd_install.LibhvdNotFound as e:
    sys.stderr.write(str(e) + '\n')
    sys.exit(1)

setup(
    name='hvdrun-horovod',
    version=_version,
    description="A `horovod` package that is hvdrun.torch under Horovod's name",
    license='Apache-2.0',
    python_requires='>=3.8',
    packages=['horovod', 'horovod.common', 'horovod.torch'],
    install_requires=['hvdrun==' + _version],
    zip_safe=False,
    options=scratch_dirs.setup_options(),
)
