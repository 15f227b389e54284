#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: what hvdrun is for, in well under a minute of run time on 2 cores.
#  1. Installs the Debian packages that are missing and builds only the programs it runs, not
#     the test suite (scripts/test.sh builds that on top, with the same flags).
#  2. Starts 4 ranks on this machine with hvdrun's embedded `local` profile: hvd-whoami shows
#     where each one runs and which CPUs it is bound to.
#  3. Data-parallel training on the same 4 ranks: hvd-train's MLP on Fashion-MNIST (Debian's
#     dataset-fashion-mnist). Each rank trains on its own part of the data and libhvd averages
#     the gradients after every step, so the 4 copies of the model stay identical; rank 0
#     prints each epoch's accuracy.
#  4. An allreduce table: libhvd's ring against Open MPI's MPI_Allreduce, timed in the same
#     processes (hvd-bench, which hvdrun --mpi starts under mpirun), 2 ranks, one per core.
# Usage: scripts/quickstart.sh [--no-build]
#   --no-build runs the programs already built in $HVD_BUILD_DIR (default build); its test does.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${HVD_BUILD_DIR:-build}/bin"
data=/usr/share/datasets/fashion-mnist

if [ "${1:-}" != "--no-build" ]; then
  ./scripts/install-deps.sh
  ./scripts/build.sh --target hvdrun --target hvd-whoami --target hvd-train --target hvd-bench
fi
for program in hvdrun hvd-whoami hvd-train hvd-bench; do
  [ -x "$bin/$program" ] ||
    { echo "quickstart: $bin/$program is missing: run without --no-build" >&2; exit 1; }
done
[ -r "$data/train-images-idx3-ubyte.gz" ] ||
  { echo "quickstart: no Fashion-MNIST in $data: install dataset-fashion-mnist" >&2; exit 1; }

echo "== 4 ranks on this machine: where each runs and what it is bound to (hvd-whoami)"
"$bin/hvdrun" -np 4 -- "$bin/hvd-whoami"

echo
echo "== Data-parallel training on 4 ranks: MLP 784-256-10, Fashion-MNIST, 3 epochs (hvd-train)"
"$bin/hvdrun" -np 4 -- "$bin/hvd-train" --data-dir "$data" --hidden 256 --epochs 3 -b 32 \
  --lr 0.05 -q

echo
echo "== Allreduce on 2 ranks, libhvd's ring vs Open MPI (hvd-bench under hvdrun --mpi)"
"$bin/hvdrun" --mpi --no-tag-output -np 2 -- "$bin/hvd-bench" -b 8 -e 8M -f 4 -w 20 --rounds 3 \
  --peers mpi
