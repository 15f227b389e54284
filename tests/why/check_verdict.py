# SPDX-License-Identifier: Apache-2.0
"""Runs one fault of fault_rank.py (or why_probe) under hvdrun and checks the verdict.

  check_verdict.py --expect-rank R --expect TEXT... [--why] -- HVDRUN ARGS...

Without --why, hvdrun must stop the hung job itself (stall shutdown): exit 7, and the verdict
file it wrote beside the output (hvdrun-why-PID.json in the working folder) must name rank R as
the culprit, and its sentence must hold every TEXT.
With --error, the fault is one libhvd reports as an error (a shape mismatch): the job must fail
and stderr must name rank R and hold every TEXT.
With --work DIR, the job's files go to a new folder inside DIR rather than /tmp (the Slurm test
cluster's nodes each have a private /tmp).
With --why, the job runs with the stall shutdown off; once rank 1 reached its fault (a file
"fault" in $HVD_TEST_READY), `hvdrun why --json` from another process must give that verdict,
and hvdrun's stderr must show it too; then the job is stopped with SIGTERM.
Nothing here measures time; the ctest TIMEOUT guards against a hang."""

import argparse
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def fail(message, err=""):
    sys.stderr.write(err[-6000:] + "\n")
    sys.exit("check_verdict: " + message)


def check(verdict, args, err):
    sentence = verdict.get("verdict", "")
    if verdict.get("culprits") != [args.expect_rank]:
        fail("culprits %s, expected [%d]: %s" % (verdict.get("culprits"), args.expect_rank, sentence), err)
    for text in args.expect:
        if text not in sentence:
            fail("the verdict does not say %r: %s" % (text, sentence), err)
    print("verdict: " + sentence)


def wait_for(path, proc):
    while not os.path.exists(path):
        if proc.poll() is not None:
            fail("hvdrun ended (exit %d) before the fault" % proc.returncode, proc.stderr.read())
        time.sleep(0.1)


def run_stall_shutdown(args, env, work):
    p = subprocess.run(args.command, cwd=work, env=env, capture_output=True, text=True)
    if p.returncode != 7:
        fail("hvdrun exited %d, expected 7 (the job hung)" % p.returncode, p.stderr)
    files = glob.glob(os.path.join(work, "hvdrun-why-*.json"))
    if len(files) != 1:
        fail("expected one hvdrun-why-PID.json, found %s" % files, p.stderr)
    with open(files[0]) as f:
        check(json.load(f), args, p.stderr)
    if "verdict: " not in p.stderr:
        fail("hvdrun printed no verdict on stderr", p.stderr)


def run_error(args, env, work):
    """A fault that libhvd turns into an error (a shape mismatch): no hang, no verdict. The
    job must fail, and the error must name the rank and the function (the rank's traceback)."""
    p = subprocess.run(args.command, cwd=work, env=env, capture_output=True, text=True)
    if p.returncode in (0, 7):
        fail("hvdrun exited %d, expected a failed rank's code" % p.returncode, p.stderr)
    for text in args.expect + ["rank %d" % args.expect_rank]:
        if text not in p.stderr:
            fail("stderr does not say %r" % text, p.stderr)
    print("error named rank %d" % args.expect_rank)


def run_why(args, env, work, ready, hvdrun):
    proc = subprocess.Popen(args.command, cwd=work, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(os.path.join(ready, "fault"), proc)
        # The others reach the collective rank 1 skips soon after; ask until it shows.
        for _ in range(30):
            why = subprocess.run([hvdrun, "why", "--json"], env=env, capture_output=True, text=True)
            if why.returncode != 0:
                fail("hvdrun why exited %d: %s" % (why.returncode, why.stderr))
            verdict = json.loads(why.stdout)
            if verdict.get("culprits"):
                break
            time.sleep(1)
        check(verdict, args, "")
    finally:
        proc.send_signal(signal.SIGTERM)
        err = proc.communicate()[1]
    if "verdict: " not in err:
        fail("hvdrun printed no verdict on stderr after SIGQUIT", err)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect-rank", type=int, required=True)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--why", action="store_true")
    parser.add_argument("--error", action="store_true")
    parser.add_argument("--work", help="make the job's folder inside this one (not /tmp)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command and args.command[0] == "--":
        args.command = args.command[1:]
    if args.work:
        os.makedirs(args.work, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        ready = os.path.join(work, "ready")
        runtime_dir = os.path.join(work, "runtime")
        os.mkdir(ready)
        os.mkdir(runtime_dir, 0o700)
        env = dict(os.environ, HVD_TEST_READY=ready, XDG_RUNTIME_DIR=runtime_dir)
        args.command = [a.replace("@READY@", ready) for a in args.command]
        if args.why:
            run_why(args, env, work, ready, args.command[0])
        elif args.error:
            run_error(args, env, work)
        else:
            run_stall_shutdown(args, env, work)


main()
