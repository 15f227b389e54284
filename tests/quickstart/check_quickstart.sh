#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs scripts/quickstart.sh --no-build on BUILD_DIR's programs and checks that it exits 0 and
# prints what the README says: the 4 ranks that checked in, every training epoch with its test
# accuracy, and the allreduce table with Open MPI's column down to its last row (8 MiB).
# No figure is judged: accuracy and bandwidth have tests of their own (tests/trainer, tests/bench).
# Skips (77) when Debian's dataset-fashion-mnist is not installed.
# Usage: check_quickstart.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$1" build_dir="$2"
if [ ! -r /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
  echo "quickstart: Fashion-MNIST not installed (Debian package dataset-fashion-mnist); skipping"
  exit 77
fi
out="$build_dir/test-tmp/quickstart.out"
mkdir -p "$(dirname "$out")"
HVD_BUILD_DIR="$build_dir" "$source_dir/scripts/quickstart.sh" --no-build | tee "$out"

expect() {  # PATTERN WHAT: fails, naming WHAT, unless the output has a line matching PATTERN
  grep -Eq "$1" "$out" ||
    { echo "quickstart: FAIL: no $2 in its output (pattern: $1)" >&2; exit 1; }
}
expect '4 ranks checked in through the rendezvous store' "hvd-whoami summary"
n='[0-9.]+'
for epoch in 1 2 3; do
  expect "^\[0\]<stdout>:Epoch $epoch: loss $n, train accuracy $n, test accuracy $n\$" \
    "line for training epoch $epoch"
done
expect '^# allreduce +\| +hvd +\| +mpi' "allreduce table header with an Open MPI column"
expect '^ +8388608 +2097152 +float32 +sum \|' "allreduce row for 8 MiB"
echo "quickstart: exit 0, 4 ranks, 3 epochs and the allreduce table against Open MPI"
