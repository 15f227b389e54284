#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_refusal.sh PATTERN -- COMMAND [ARG...]
# Runs COMMAND, which must fail: it passes when COMMAND exits non-zero (not by timing out) and
# its output (stdout and stderr) matches the extended regular expression PATTERN. Used for
# launches that libhvd must refuse with a clear message, e.g. HVD_BACKEND=mpi under hvdrun.
set -euo pipefail
if [[ $# -lt 3 || $2 != -- ]]; then
  echo "usage: $0 PATTERN -- COMMAND [ARG...]" >&2
  exit 2
fi
pattern=$1
shift 2
rc=0
out=$(timeout -k 5 "${HVD_PROBE_TIMEOUT:-100}" "$@" 2>&1) || rc=$?
echo "$out"
if [[ $rc -eq 0 ]]; then
  echo "FAIL: $1 succeeded; it should have been refused" >&2
  exit 1
fi
if [[ $rc -eq 124 || $rc -eq 137 ]]; then
  echo "FAIL: $1 timed out (exit $rc) instead of failing with a message" >&2
  exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$out"; then
  echo "FAIL: $1 exited with $rc, but its output does not match: $pattern" >&2
  exit 1
fi
echo "PASS: $1 exited with $rc and said: $(grep -Eo -- "$pattern" <<<"$out" | head -n 1)"
