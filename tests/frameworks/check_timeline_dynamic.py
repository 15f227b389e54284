#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a launcher command in a new, empty folder with HOROVOD_TIMELINE set, checks the ranks'
report lines as check_ranks.py does, and then that the folder holds the trace the ranks asked
for and nothing named after the variable's value: DYNAMIC is no file name, neither for libhvd
(DYNAMIC.rank<N>.bin) nor for hvdrun's merge at exit.

    check_timeline_dynamic.py --np N --name NAME [--value DYNAMIC] -- COMMAND...
"""
import argparse
import os
import subprocess
import sys
import tempfile

from check_ranks import check


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--value", default="DYNAMIC")
    parser.add_argument("--same", default="checks")
    parser.add_argument("--hosts", type=int)
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    env = dict(os.environ, HOROVOD_TIMELINE=args.value)
    with tempfile.TemporaryDirectory(prefix="hvd-tl-dynamic-", dir=os.getcwd()) as where:
        result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout,
                                cwd=where, env=env)
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        problems = check(args, result.stdout)
        if result.returncode != 0:
            problems.insert(0, f"command exited {result.returncode}")
        left = sorted(os.listdir(where))
        named = [f for f in left if f.startswith(args.value)]
        if named:
            problems.append(f"files named after HOROVOD_TIMELINE={args.value}: {named}")
        if "dynamic-run.json" not in left:
            problems.append(f"no dynamic-run.json from start_timeline(); the folder has {left}")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if not problems:
        print(f"check_timeline_dynamic: {args.np} ranks of {args.name} ok, no {args.value}* file")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
