# SPDX-License-Identifier: Apache-2.0
"""The import structure of hvdrun.torch (docs/architecture.md): basics is a leaf, the package's
modules import each other without a cycle, and none imports another inside a function (the old
way of holding a cycle apart). Read from the source with ast; nothing is imported."""

import ast
import os

import pytest

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'python',
                       'hvdrun', 'torch')
EXTENSION = '_hvd_torch'


def modules():
    """Module name (dotted, relative to the package) -> its path."""
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        prefix = os.path.relpath(folder, PACKAGE).replace(os.sep, '.').lstrip('.')
        for f in files:
            if f.endswith('.py'):
                name = f[:-3] if f != '__init__.py' else ''
                found['.'.join(p for p in (prefix, name) if p)] = os.path.join(folder, f)
    return found


def package_imports(name, path):
    """(imported module, inside a function?) for each import of a module of this package."""
    tree = ast.parse(open(path).read(), path)
    package = name.split('.') if os.path.basename(path) == '__init__.py' else name.split('.')[:-1]
    package = [p for p in package if p]
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = package[:len(package) - (node.level - 1)] + (node.module or '').split('.')
        base = [p for p in base if p]
        for alias in node.names:
            target = '.'.join(base)
            if node.module is None or '.'.join(base + [alias.name]) in modules():
                target = '.'.join(base + [alias.name])
            out.append((target, id(node) in in_function))
    return out


def graph():
    return {name: {t for t, _ in package_imports(name, path) if t != name}
            for name, path in modules().items()}


def test_basics_imports_only_the_extension_and_exceptions():
    assert graph()['basics'] <= {EXTENSION, 'exceptions'}


@pytest.mark.parametrize('name', sorted(modules()))
def test_no_package_import_inside_a_function(name):
    late = [t for t, inside in package_imports(name, modules()[name]) if inside]
    assert late == []


def test_no_import_cycle():
    edges = graph()
    state = {}  # name -> 'visiting' | 'done'

    def visit(name, trail):
        if state.get(name) == 'visiting':
            pytest.fail('import cycle: ' + ' -> '.join(n or '__init__' for n in trail + [name]))
        if state.get(name) == 'done':
            return
        state[name] = 'visiting'
        # A package's __init__ is loaded before its submodules: the submodules' imports of
        # the package itself ('' or 'elastic') are of a module already being loaded, no cycle
        # of ours; skip those edges.
        for target in sorted(edges.get(name, ())):
            if target in edges and not name.startswith(target + '.') and target != '':
                visit(target, trail + [name])
        state[name] = 'done'

    for name in sorted(edges):
        visit(name, [])
