#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# hvdrun sbatch against the real sbatch: directive values with spaces, quotes and '#' arrive as
# one value each (sbatch's #SBATCH parser reads hvdrun's quoting), and a newline in a flag is
# refused before any script exists (issue 10). The job is submitted held and cancelled unrun.
# usage: t0140-sbatch-quoting.sh WORKDIR HVDRUN
source "$(dirname "$0")/lib.sh"
[[ $# -eq 2 ]] || fail "usage: $0 WORKDIR HVDRUN"
hvdrun=$2
use_workdir "$1"
mkdir -p "out dir"

name='my job #1 "q" it'"'"'s \ end'
"$hvdrun" sbatch --profile hvdtest -N 1 -t 5 -J "$name" --log "$PWD/out dir/%j.out" \
  --sbatch-arg='--comment=two words #x' --sbatch-arg=--hold -o job.sh -- /bin/true ||
  fail "hvdrun sbatch failed"
bash -n job.sh || fail "job.sh does not parse"
id=$(bounded sbatch --parsable job.sh) || fail "sbatch refused job.sh"
info=$(bounded scontrol show job "$id")
timeout 10 scancel "$id" || true
echo "$info"
grep -qF "JobName=$name" <<<"$info" || fail "job name is not '$name'"
grep -qF "Comment=two words #x" <<<"$info" || fail "comment is not 'two words #x'"
grep -qF "StdOut=$PWD/out dir/$id.out" <<<"$info" || fail "output path with a space lost"
grep -qF "JobState=PENDING" <<<"$info" || fail "--hold after the others was dropped"

if "$hvdrun" sbatch --profile hvdtest -t 5 -J $'x\ntouch pwned' -o bad.sh -- /bin/true 2>err.txt; then
  fail "a newline in -J was accepted"
fi
grep -qF -- "-J/--job-name: the value holds a newline" err.txt || fail "unclear error: $(cat err.txt)"
[[ ! -e bad.sh && ! -e pwned ]] || fail "a refused request left a file"
echo "PASS: sbatch reads hvdrun's quoted directives as single values"
