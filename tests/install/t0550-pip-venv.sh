#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvdrun.torch pip-installed the way users do, offline, into a fresh venv that sees Debian's
# torch (--system-site-packages), from a fresh copy of the repo's python/ with libhvd from the
# moved install tree through HVDRUN_ROOT:
#   - with no libhvd to be found, pip fails with a line naming every place it tried;
#   - plain python imports it (size 1) with hvdrun's version as __version__;
#   - a 2-rank training under the tree's hvdrun with the venv's python imports the venv's copy,
#     not the copy hvdrun puts on PYTHONPATH (nor the module file's, set by hand here);
#   - the horovod alias is not installed until asked for, and then from the install tree's copy
#     of python/ with nothing set (setup.py finds the tree around itself).
# Usage: t0550-pip-venv.sh PREFIX SOURCE_DIR WORK_DIR PYTHON
set -euo pipefail
p=$1 src=$2 work=$3 python=$4
export PATH=/usr/bin:/bin PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
unset PYTHONPATH HVDRUN_ROOT CMAKE_PREFIX_PATH HVDRUN_LIBHVD_PREFIX
fail() { echo "t0550: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
version=$(sed -n 's/^#define HVD_VERSION "\(.*\)"$/\1/p' "$p/include/hvd/build_config.h")
[ -n "$version" ] || fail "no HVD_VERSION in $p/include/hvd/build_config.h"

cp -r "$src/python" "$work/src"
"$python" -m venv --system-site-packages "$work/venv"
vpy=$work/venv/bin/python
pip_install() { "$vpy" -m pip install --no-build-isolation "$@"; }

if out=$(pip_install "$work/src" 2>&1); then fail "pip install without any libhvd succeeded"; fi
for tried in "HVDRUN_LIBHVD_PREFIX (not set)" "HVDRUN_ROOT (not set)" "CMAKE_PREFIX_PATH (not set)"; do
  grep -qF "$tried" <<<"$out" || fail "the error does not say it tried $tried: $out"
done

HVDRUN_ROOT=$p pip_install "$work/src" >"$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; fail "pip install with HVDRUN_ROOT failed"; }
[ -z "$(cd "$work/src" && find . -name build -o -name '*.egg-info')" ] ||
  fail "pip left setuptools' scratch in the source folder"

cd "$work"  # never the source folder, whose hvdrun/ would be imported instead
got=$("$vpy" -c 'import hvdrun, hvdrun.torch as hvd; hvd.init()
print(hvd.size(), hvdrun.__version__, hvd.__file__)')
read -r size got_version module <<<"$got"
[ "$size" = 1 ] || fail "plain python: size $size, not 1"
[ "$got_version" = "$version" ] || fail "hvdrun.__version__ is $got_version, not $version"
case $module in "$work/venv/"*) ;; *) fail "plain python imported $module, not the venv's" ;; esac

# As after `module load hvdrun`: its PYTHONPATH must not shadow the venv's copy either.
module=$(PYTHONPATH=$p/lib/hvdrun/python "$vpy" -c 'import hvdrun.torch as h; print(h.__file__)')
case $module in "$work/venv/"*) ;; *) fail "with the module's PYTHONPATH: $module" ;; esac

out=$("$p/bin/hvdrun" -np 2 -- "$vpy" "$src/tests/install/pip_train.py") ||
  fail "2-rank training with the venv's python failed: $out"
echo "$out"
[ "$(grep -c "pip_train: rank . of 2 .* module $work/venv/.* version $version" <<<"$out")" = 2 ] ||
  fail "not both ranks trained with the venv's hvdrun.torch $version"
[ "$(grep -o 'checksum [^ ]*' <<<"$out" | sort -u | wc -l)" = 1 ] ||
  fail "the ranks' weights differ after training"

if "$vpy" -c 'import horovod' 2>/dev/null; then fail "horovod importable without the alias"; fi
pip_install "$p/share/hvdrun/python/horovod-compat" >"$work/pip-alias.log" 2>&1 ||
  { cat "$work/pip-alias.log"; fail "pip install of the horovod alias failed"; }
"$vpy" -c 'import horovod.torch as hvd, hvdrun.torch as h; assert hvd.allreduce is h.allreduce' ||
  fail "horovod.torch is not hvdrun.torch after installing the alias"
[ -z "$(cd "$p/share/hvdrun/python" && find . -name build -o -name '*.egg-info')" ] ||
  fail "pip wrote into the install tree"
echo "t0550: pip install into a venv, hvdrun $version: ok"
