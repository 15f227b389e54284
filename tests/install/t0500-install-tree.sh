#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fixture for the install tests: `cmake --install BUILD --prefix WORK/first`, then moves the tree
# to WORK/moved (what the other tests use), so that anything that remembered the first prefix
# breaks. Checks the tree's layout, and that test profiles are not in it.
# Usage: t0500-install-tree.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/first" >"$work/install.log"
mv "$work/first" "$work/moved"
p="$work/moved"

fail() { echo "t0500: $*" >&2; exit 1; }
for f in bin/hvdrun bin/horovodrun bin/hvd-bench bin/hvd-whoami bin/hvd-preflight \
         lib/libhvd.so include/hvd/hvd.h include/hvd/hvd_c.h include/hvd/build_config.h \
         lib/cmake/hvd/hvdConfig.cmake lib/cmake/hvd/hvdTargets.cmake \
         share/hvdrun/configs/defaults.yaml share/hvdrun/site-profiles/local.yaml \
         share/hvdrun/templates/sbatch share/man/man1/hvdrun.1 \
         share/bash-completion/completions/hvdrun share/modulefiles/hvdrun \
         share/hvdrun/python/setup.py share/hvdrun/python/horovod-compat/setup.py; do
  [ -e "$p/$f" ] || fail "missing from the install: $f"
done
# hvd-train and hvdrun.torch only where they were built.
if [ -e "$build/bin/hvd-train" ]; then
  [ -x "$p/bin/hvd-train" ] || fail "missing: bin/hvd-train"
fi
if compgen -G "$build/lib/hvdrun/python/hvdrun/torch/_hvd_torch*.so" >/dev/null; then
  compgen -G "$p/lib/hvdrun/python/hvdrun/torch/_hvd_torch*.so" >/dev/null ||
    fail "missing: hvdrun.torch's extension under lib/hvdrun/python"
fi
[ "$(readlink "$p/bin/horovodrun")" = hvdrun ] || fail "bin/horovodrun is not a link to hvdrun"
test_profiles=$(find "$p" -name 'hvdtest*')
[ -z "$test_profiles" ] || fail "a test profile was installed: $test_profiles"
# Nothing may point back into the build tree or the first prefix.
naming=$(grep -rlI -e "$work/first" -e "$(cd "$build" && pwd)/" "$p" || true)
[ -z "$naming" ] || fail "files name the build tree or the first prefix: $naming"
echo "t0500: install tree at $p: ok"
