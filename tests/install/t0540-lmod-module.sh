#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The generated Lmod module file, with Debian's lmod, in a clean shell (env -i): after
# `module load hvdrun`, hvdrun, `man hvdrun` (and still the system's pages), its bash completion
# and hvdrun.torch's import work
# from the moved install tree, and `module unload hvdrun` gives back the environment it found.
# Usage: t0540-lmod-module.sh PREFIX PYTHON LMOD_INIT
set -euo pipefail
p=$1 python=$2 lmod_init=$3
check_torch=0
compgen -G "$p/lib/hvdrun/python/hvdrun/torch/_hvd_torch*.so" >/dev/null && check_torch=1

env -i HOME="$p/.." PATH=/usr/bin:/bin TERM=dumb P="$p" PYTHON="$python" CHECK_TORCH=$check_torch \
  bash --noprofile --norc -euo pipefail -c '
fail() { echo "t0540: $*" >&2; exit 1; }
source "$1"
module use "$P/share/modulefiles"
# Lmod keeps its own bookkeeping variables; everything else must come back as it was.
snapshot() { env | grep -Ev "^(_ModuleTable|__LMOD_REF_COUNT|_LMFILES_=|LOADEDMODULES=)" | sort; }
before=$(snapshot)
module load hvdrun 2>&1 || fail "module load hvdrun failed"
[ "$(command -v hvdrun)" = "$P/bin/hvdrun" ] || fail "hvdrun on PATH is $(command -v hvdrun)"
hvdrun --check-build >/dev/null || fail "hvdrun --check-build failed"
[ "$(man -w hvdrun)" = "$P/share/man/man1/hvdrun.1" ] || fail "man -w hvdrun gives $(man -w hvdrun)"
MANWIDTH=100 man hvdrun 2>/dev/null | grep -q -- "--num-proc" || fail "man hvdrun lacks --num-proc"
manpath 2>/dev/null | tr : "\n" | grep -qx /usr/share/man ||
  fail "with hvdrun loaded, man no longer searches /usr/share/man (manpath: $(manpath 2>&1))"
[ "$HVDRUN_ROOT" = "$P" ] || fail "HVDRUN_ROOT is $HVDRUN_ROOT"
if [ -r /usr/share/bash-completion/bash_completion ]; then
  set +eu  # bash-completion is not written for -eu
  source /usr/share/bash-completion/bash_completion
  __load_completion hvdrun
  loaded=$(complete -p hvdrun 2>&1)
  set -eu
  [[ $loaded == *hvdrun* ]] || fail "no bash completion for hvdrun after module load ($loaded)"
  # The system folders stay searched (the default XDG_DATA_DIRS when it was unset).
  tr : "\n" <<<"$XDG_DATA_DIRS" | grep -qx /usr/share || fail "XDG_DATA_DIRS lost /usr/share: $XDG_DATA_DIRS"
fi
if [ "$CHECK_TORCH" = 1 ]; then
  "$PYTHON" -c "import hvdrun.torch" || fail "python3 cannot import hvdrun.torch"
fi
module unload hvdrun 2>&1 || fail "module unload hvdrun failed"
after=$(snapshot)
if [ "$before" != "$after" ]; then
  diff <(echo "$before") <(echo "$after") >&2
  fail "module unload left the environment changed"
fi
command -v hvdrun >/dev/null && fail "hvdrun still on PATH after module unload"
echo "t0540: module load/unload hvdrun: ok"
' _ "$lmod_init"
