# SPDX-License-Identifier: Apache-2.0
"""hvdrun puts this folder first on every rank's PYTHONPATH, so that any Python program it
starts can show its stack to `hvdrun why` (hvdrun_stack_dump). Then the sitecustomize that this
one shadows, if any (Debian's, a virtual environment's), runs as it would have."""

import importlib.machinery
import importlib.util
import os
import sys


def _install_dump():
    try:
        import hvdrun_stack_dump

        hvdrun_stack_dump.install()
    except Exception as e:  # never stop a program from starting
        sys.stderr.write("hvdrun: no Python stack for hvdrun why: %s\n" % e)


def _run_shadowed():
    here = os.path.dirname(os.path.abspath(__file__))
    others = [p for p in sys.path if p and os.path.abspath(p) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_install_dump()
_run_shadowed()
