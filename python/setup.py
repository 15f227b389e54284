# SPDX-License-Identifier: Apache-2.0
"""pip install --no-build-isolation <this folder>: hvdrun.torch built against the torch of the
environment pip runs in and an installed libhvd (setup_support/libhvd_install.py says where it
looks). Offline: nothing is downloaded, which is why build isolation must be off (the build
needs the environment's own torch, not a fresh one from an index)."""

import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, 'setup_support'))
import libhvd_install  # noqa: E402
import scratch_dirs  # noqa: E402


def _fail(message):
    sys.stderr.write(message + '\n')
    sys.exit(1)


def _torch():
    try:
        import torch
        from torch.utils import cpp_extension
    except ImportError as e:
        _fail('hvdrun.torch: this Python (%s) cannot import torch (%s); install torch into the '
              'environment first, and run pip with --no-build-isolation so the build sees it'
              % (sys.executable, e))
    # libhvd's C++ API passes std::string and std::vector: the extension has to use the same
    # C++ ABI as libhvd (g++'s default, the C++11 ABI). Wheels of torch before 2.7 use the old.
    if not torch._C._GLIBCXX_USE_CXX11_ABI:
        _fail('hvdrun.torch: torch %s was built with the pre-C++11 ABI '
              '(_GLIBCXX_USE_CXX11_ABI=0), which cannot link libhvd; use torch 2.7 or later from '
              'pip, conda-forge\'s torch, or a torch built with the C++11 ABI' % torch.__version__)
    return cpp_extension


try:
    _prefix = libhvd_install.find_prefix(os.environ, _here)
    _version = libhvd_install.version(_prefix)
except libhvd_install.LibhvdNotFound as e:
    _fail(str(e))


class BuildPyWithVersion(build_py):
    """Also writes hvdrun/_version.py: the installed hvdrun's version, and that this copy is
    the user's own (hvdrun/__init__.py prefers it to the copy hvdrun puts on PYTHONPATH)."""

    def run(self):
        super().run()
        path = os.path.join(self.build_lib, 'hvdrun', '_version.py')
        with open(path, 'w') as f:
            f.write('# Written by setup.py: the hvdrun this package was built against.\n'
                    '__version__ = %r\nlauncher_copy = False\nlibhvd_prefix = %r\n'
                    % (_version, _prefix))


_cpp = _torch()
_include = os.path.join(_prefix, 'include')
_lib = os.path.join(_prefix, 'lib')
extension = _cpp.CppExtension(
    'hvdrun.torch._hvd_torch',
    sources=['csrc/module.cc', 'csrc/handle_table.cc', 'csrc/torch_tensor.cc'],
    include_dirs=[_include], library_dirs=[_lib], libraries=['hvd'],
    # libhvd is found through the RUNPATH, as in hvdrun's own build: no LD_LIBRARY_PATH needed.
    runtime_library_dirs=[_lib],
    # -std given here keeps torch 1.13's default of C++14 out (libhvd's headers need C++17).
    extra_compile_args=['-std=c++17', '-fvisibility=hidden', '-fvisibility-inlines-hidden'])

setup(
    name='hvdrun',
    version=_version,
    description="hvdrun.torch: Horovod 0.28's horovod.torch API over hvdrun's libhvd",
    license='Apache-2.0',
    python_requires='>=3.8',
    packages=['hvdrun', 'hvdrun.torch', 'hvdrun.torch.elastic'],
    ext_modules=[extension],
    # The `horovod` alias is its own distribution (horovod-compat/), never installed unless
    # asked for: pip install hvdrun[horovod], or horovod-compat/ by path.
    extras_require={'horovod': ['hvdrun-horovod==' + _version]},
    cmdclass={'build_ext': _cpp.BuildExtension.with_options(use_ninja=False),
              'build_py': BuildPyWithVersion},
    zip_safe=False,
    options=scratch_dirs.setup_options(),
)
