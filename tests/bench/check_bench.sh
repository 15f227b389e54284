#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_bench.sh CHECKER IMPLS -- COMMAND [ARG...]
# Runs COMMAND (a launch of hvd-bench --check ...) with "--json FILE" appended, then checks
# FILE with CHECKER (bench_json_check) for the implementations IMPLS (e.g. hvd,mpi,gloo):
# valid JSON in the shared format, and no wrong element. No timing is judged.
set -euo pipefail
if [[ $# -lt 4 || $3 != -- ]]; then
  echo "usage: $0 CHECKER IMPLS -- COMMAND [ARG...]" >&2
  exit 2
fi
checker=$1 impls=$2
shift 3
json=$(mktemp /tmp/hvd-bench-check.XXXXXX.json)
trap 'rm -f "$json"' EXIT
rc=0
timeout -k 5 "${HVD_BENCH_TIMEOUT:-150}" "$@" --json "$json" || rc=$?
if [[ $rc -ne 0 ]]; then
  echo "FAIL: $1 exited with $rc" >&2
  exit 1
fi
"$checker" "$json" "$impls"
