#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Preemption and requeue (hvdrun sbatch --requeue-on-signal; launcher/src/exec/requeue.h):
#  1. a 2-node hvd-train job, uninterrupted: the reference weights;
#  2. the same job from a script rendered with --requeue-on-signal, preempted mid-run
#     (scancel --signal=USR2 --batch, as Slurm's --signal=B:USR2@LEAD does): the ranks checkpoint
#     and exit 0, hvdrun requeues the job, the second run (SLURM_RESTART_COUNT=1) resumes and
#     finishes, and its final weights are bit-identical to the reference;
#  3. a job whose rank 1 fails on the notice: not requeued, and the log names rank 1;
#  4. a job whose rank 1 fails with no notice: not requeued either.
# The job waits at step 20 for the notice (hvd-train --test-pause-at-step), so the signal never
# races the end of training. Prints "BENCH signal_to_requeue_s=... signal_to_running_again_s=..."
# usage: t0170-preempt-requeue.sh WORKDIR HVDRUN HVD_TRAIN WEIGHTS_COMPARE PROFILE
source "$(dirname "$0")/lib.sh"
[[ $# -eq 5 ]] || fail "usage: $0 WORKDIR HVDRUN HVD_TRAIN WEIGHTS_COMPARE PROFILE"
use_workdir "$1"
hvdrun=$2 train=$3 compare=$4 profile=$5
# The requeued job waits the cluster's cred_expire (20 s, cluster.sh) before it starts again.
HVD_SLURM_CMD_TIMEOUT=240

# job_field ID NAME: one field of scontrol show job (JobState, Restarts, ExitCode...).
job_field() { scontrol -o show job "$1" | grep -oE "(^| )$2=[^ ]*" | cut -d= -f2; }

# wait_done ID: like lib.sh's wait_job, but a requeued job is still in progress.
wait_done() {
  local id=$1 state deadline=$((SECONDS + HVD_SLURM_CMD_TIMEOUT))
  while ((SECONDS < deadline)); do
    state=$(job_field "$id" JobState)
    case $state in
      PENDING | CONFIGURING | RUNNING | COMPLETING | REQUEUED | SUSPENDED | "") sleep 0.2 ;;
      *) echo "$state $(job_field "$id" ExitCode)"; return 0 ;;
    esac
  done
  timeout 10 scancel "$id" || true
  fail "job $id did not finish within ${HVD_SLURM_CMD_TIMEOUT}s"
}

# wait_for_lines N PATTERN FILE: until FILE has N lines matching PATTERN.
wait_for_lines() {
  local deadline=$((SECONDS + HVD_SLURM_CMD_TIMEOUT))
  while ((SECONDS < deadline)); do
    (($(grep -cE -- "$2" "$3" 2>/dev/null || true) >= $1)) && return 0
    sleep 0.1
  done
  cat "$3" 2>/dev/null || true
  fail "$3: no $1 lines matching '$2' within ${HVD_SLURM_CMD_TIMEOUT}s"
}

# render NAME [sbatch options...] -- COMMAND: a 2-node, 1-rank-per-node script, NAME.sbatch.
render() {
  local name=$1
  shift
  "$hvdrun" sbatch --profile "$profile" -N 2 --ntasks-per-node 1 -t 00:10:00 -J "hvd-$name" \
    --log "$PWD/$name.out" -o "$name.sbatch" "$@"
}

# Each rank says which run it is in, then becomes hvd-train.
show_run='echo "rank $SLURM_PROCID restart ${SLURM_RESTART_COUNT:-unset}'
show_run+=' requeue $HVD_REQUEUE_COUNT"; exec "$0" "$@"'
common=(--synthetic --synthetic-samples 2048 --hidden 128,64 -b 32 --num-warmup-batches 0 -q
        --steps 40)

# --- 1. the reference ---------------------------------------------------------------------
render ref -- "$train" "${common[@]}" --save-weights "$PWD/ref.bin"
id=$(bounded sbatch --parsable ref.sbatch)
result=$(wait_done "$id")
[[ $result == "COMPLETED 0:0" ]] || { cat ref.out; fail "reference job $id ended $result"; }

# --- 2. preempted, checkpointed, requeued, resumed -----------------------------------------
render pre --requeue-on-signal --hvdrun-arg=--checkpoint-grace-seconds=60 -- \
  /bin/sh -c "$show_run" "$train" "${common[@]}" --checkpoint "$PWD/ck.bin" --resume \
  --save-weights "$PWD/pre.bin" --test-pause-at-step 20
for line in '#SBATCH --signal=B:USR2@120' '#SBATCH --requeue  #' '#SBATCH --open-mode=append'; do
  grep -qF -- "$line" pre.sbatch || { cat pre.sbatch; fail "pre.sbatch lacks '$line'"; }
done
grep -qE '^exec .* --requeue-on-signal .*--' pre.sbatch ||
  fail "hvdrun in the job lacks --requeue-on-signal"
id=$(bounded sbatch --parsable pre.sbatch)
wait_for_lines 1 'Pausing before step 20' pre.out
signal_at=$(date +%s.%N)
bounded scancel --signal=USR2 --batch "$id"
# When the job first leaves RUNNING (requeued), and when it runs again.
requeued_at="" running_again_at=""
deadline=$((SECONDS + HVD_SLURM_CMD_TIMEOUT))
while ((SECONDS < deadline)) && [[ -z $running_again_at ]]; do
  state=$(job_field "$id" JobState) restarts=$(job_field "$id" Restarts)
  if [[ -z $requeued_at && ($state != RUNNING || $restarts -ge 1) ]]; then
    requeued_at=$(date +%s.%N)
  fi
  if [[ -n $requeued_at && $state == RUNNING && $restarts -ge 1 ]]; then
    running_again_at=$(date +%s.%N)
  fi
  case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) break ;; esac
  sleep 0.1
done
result=$(wait_done "$id")
out=$(cat pre.out)
echo "$out"
[[ $result == "COMPLETED 0:0" ]] || fail "preempted job $id ended $result"
restarts=$(job_field "$id" Restarts)
[[ $restarts == 1 ]] || fail "job $id: Restarts=$restarts, expected 1"
expect_count 1 'received SIGUSR2 \(preemption notice\)' "$out" "hvdrun's notice line"
expect_count 1 'Checkpoint due \(SIGUSR2\): saved step 21 ' "$out" "the checkpoint at the notice"
expect_count 1 "requeueing job $id \(scontrol requeue\), [0-9.]+ s after the notice" "$out" \
  "hvdrun's requeue line"
expect_count 1 'Resumed from .*ck.bin at step 21' "$out" "the resumed run"
expect_count 2 'rank [01] restart unset requeue 0$' "$out" "first run's ranks"
expect_count 2 'rank [01] restart 1 requeue 1$' "$out" "second run's ranks (SLURM_RESTART_COUNT)"
"$compare" ref.bin pre.bin || fail "preempted + resumed weights differ from the uninterrupted run"
hvdrun_s=$(grep -oE "requeueing job $id \(scontrol requeue\), [0-9.]+ s" <<<"$out" |
  grep -oE '[0-9.]+ s$')
echo "BENCH signal_to_requeue_s=$(awk "BEGIN { print $requeued_at - $signal_at }")" \
     "hvdrun_notice_to_requeue_s=${hvdrun_s% s}" \
     "signal_to_running_again_s=$(awk "BEGIN { print $running_again_at - $signal_at }")"

# --- 3. a rank fails on the notice: never requeued ----------------------------------------
fail_on_notice='trap '\''if [ "$SLURM_PROCID" = 1 ]; then echo "rank 1 fails"; exit 3; fi; exit 0'\'' USR2
echo ready; while :; do sleep 0.1; done'
render bad --requeue-on-signal -- /bin/sh -c "$fail_on_notice"
id=$(bounded sbatch --parsable bad.sbatch)
wait_for_lines 2 'ready' bad.out
bounded scancel --signal=USR2 --batch "$id"
result=$(wait_done "$id")
out=$(cat bad.out)
echo "$out"
[[ $result == "FAILED 3:0" ]] || fail "failing job $id ended '$result', expected 'FAILED 3:0'"
[[ $(job_field "$id" Restarts) == 0 ]] || fail "failing job $id was requeued"
expect_count 1 'first failure: rank 1 on node2 exited with code 3' "$out" "the failing rank"
expect_count 1 'not requeueing the job: the run failed after the preemption notice' "$out" \
  "hvdrun's verdict"

# --- 4. a rank fails with no notice: not requeued ------------------------------------------
render crash --requeue-on-signal -- /bin/sh -c '[ "$SLURM_PROCID" = 1 ] && exit 4; sleep 1'
id=$(bounded sbatch --parsable crash.sbatch)
result=$(wait_done "$id")
[[ $result == "FAILED 4:0" ]] || { cat crash.out; fail "crashing job $id ended '$result'"; }
[[ $(job_field "$id" Restarts) == 0 ]] || fail "crashing job $id was requeued"
grep -q 'requeue' crash.out && { cat crash.out; fail "crash.out mentions a requeue"; }
echo "PASS: preempted job checkpointed, requeued, resumed bit-identical; failures not requeued"
