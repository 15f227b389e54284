#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The moved install tree works on its own: hvdrun --check-build, a 2-rank job of the installed
# hvd-whoami, the site profiles from the tree, the man page, the bash completion, and
# hvdrun.torch's import in a rank (when it was built). PATH holds only the system's folders.
# Usage: t0510-installed-tree-runs.sh PREFIX PYTHON
set -euo pipefail
p=$1 python=$2
export PATH=/usr/bin:/bin
unset HVDRUN_PROFILE_PATH PYTHONPATH
fail() { echo "t0510: $*" >&2; exit 1; }

"$p/bin/hvdrun" --check-build >"$p/../check-build.txt" || fail "hvdrun --check-build failed"
out=$("$p/bin/hvdrun" -np 2 -- "$p/bin/hvd-whoami")
echo "$out"
grep -q "2 ranks checked in" <<<"$out" || fail "hvd-whoami under hvdrun -np 2: not 2 ranks"
# hvdrun preflight finds hvd-preflight beside itself in the moved tree.
out=$("$p/bin/hvdrun" preflight -np 2) || fail "hvdrun preflight -np 2 failed: $out"
grep -q "^Verdict: " <<<"$out" || fail "hvdrun preflight -np 2 printed no verdict: $out"

profiles=$(HOME="$p/.." "$p/bin/hvdrun" profiles list)
grep -q "^perlmutter .*$p/share/hvdrun/site-profiles/perlmutter.yaml" <<<"$profiles" ||
  fail "profiles list does not show the moved tree's perlmutter.yaml: $profiles"

page=$(MANWIDTH=200 man -l "$p/share/man/man1/hvdrun.1" 2>&1) || fail "man -l failed: $page"
for word in --num-proc --cycle-time-ms --fusion-threshold-mb "hvdrun sbatch" \
            "hvdrun profiles show" "EXIT STATUS"; do
  grep -qF -- "$word" <<<"$page" || fail "man page lacks '$word'"
done

# Completion as bash would ask for it: "hvdrun --cycle" and "hvdrun sbatch --par".
complete_words() {
  bash --norc -c "source '$p/share/bash-completion/completions/hvdrun'
    COMP_WORDS=($1); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _hvdrun; echo \"\${COMPREPLY[*]}\""
}
expect_completion() {  # WORDS EXPECTED
  local got
  got=$(complete_words "$1")
  [ "$got" = "$2" ] || fail "completing '$1' gives '$got', not '$2'"
}
expect_completion 'hvdrun --cycle' --cycle-time-ms
expect_completion 'hvdrun sbatch --par' --partition
expect_completion 'hvdrun prof' profiles
expect_completion 'hvdrun --launcher s' slurm

if compgen -G "$p/lib/hvdrun/python/hvdrun/torch/_hvd_torch*.so" >/dev/null; then
  script='import hvdrun.torch as hvd; hvd.init(); print("torch rank", hvd.rank()); hvd.shutdown()'
  torch_out=$("$p/bin/hvdrun" -np 2 -- "$python" -c "$script") ||
    fail "hvdrun.torch did not import and init from the moved tree"
  echo "$torch_out"
  [ "$(grep -c 'torch rank' <<<"$torch_out")" = 2 ] || fail "hvdrun.torch: not 2 ranks"
fi
echo "t0510: the moved tree runs: ok"
