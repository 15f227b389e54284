#!/bin/bash
# Fails when fuzz/corpus holds binary seeds that the current encoders no longer write.
# usage: check_seeds.sh FUZZ_MAKE_SEEDS CORPUS_DIR
set -euo pipefail
make_seeds=$1 corpus=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$corpus/." "$scratch/"
"$make_seeds" "$scratch"
status=0
for target in control_messages_fuzz store_frames_fuzz checkpoint_fuzz idx_fuzz; do
  if ! diff -r "$corpus/$target" "$scratch/$target" >/dev/null; then
    echo "fuzz/corpus/$target: seeds differ from what fuzz_make_seeds writes now;" \
         "rerun: <build>/bin/fuzz_make_seeds fuzz/corpus" >&2
    status=1
  fi
done
for seed in complete torn; do
  [ -s "$corpus/timeline_records_fuzz/$seed" ] ||
    { echo "fuzz/corpus/timeline_records_fuzz/$seed is missing" >&2; status=1; }
done
# The JSON seeds are copies of tests/data/report (no encoder writes them): only their presence.
for seed in predict_json_fuzz/train-np1.json predict_json_fuzz/bench-fixture.json; do
  [ -s "$corpus/$seed" ] || { echo "fuzz/corpus/$seed is missing" >&2; status=1; }
done
[ "$status" -eq 0 ] && echo "PASS: fuzz seeds match the current encoders"
exit "$status"
