#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_probe.sh NRANKS METHOD -- COMMAND [ARG...]
# Runs COMMAND (a launch of bootstrap_probe) and checks its output: exactly one JSON line per
# rank 0..NRANKS-1, each with "method":"METHOD" and "ok":true. bootstrap_probe checks the
# world itself; this also catches a launch that started too few ranks or lost their output.
set -euo pipefail
if [[ $# -lt 4 || $3 != -- ]]; then
  echo "usage: $0 NRANKS METHOD -- COMMAND [ARG...]" >&2
  exit 2
fi
nranks=$1 method=$2
shift 3
rc=0
out=$(timeout -k 5 "${HVD_PROBE_TIMEOUT:-150}" "$@" 2>&1) || rc=$?
echo "$out"
if [[ $rc -ne 0 ]]; then
  echo "FAIL: $1 exited with $rc" >&2
  exit 1
fi
# hvdrun tags lines "[RANK]<stdout>:"; the probe's JSON starts at '{"method"'.
json=$(grep -o '{"method".*' <<<"$out" || true)
for ((r = 0; r < nranks; r++)); do
  n=$(grep -c "^{\"method\":\"$method\",\"rank\":$r,.*\"ok\":true" <<<"$json" || true)
  if [[ $n -ne 1 ]]; then
    echo "FAIL: rank $r: expected one line with method $method and ok, got $n" >&2
    exit 1
  fi
done
total=$(grep -c '"ok":' <<<"$json" || true)
if [[ $total -ne $nranks ]]; then
  echo "FAIL: $total probe lines for $nranks ranks" >&2
  exit 1
fi
echo "PASS: $nranks ranks bootstrapped with $method"
