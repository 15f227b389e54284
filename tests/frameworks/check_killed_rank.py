#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a launcher command in which one rank is killed by a signal and checks the outcome.

    check_killed_rank.py --np N --exit CODE -- COMMAND...

Passes when the command exits with CODE (128 + the signal that killed the rank) and every rank
but the last printed "torch_killed_rank: rank R raised HorovodInternalError" under its own tag.
"""
import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--np', type=int, required=True)
    parser.add_argument('--exit', type=int, required=True)
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(result.stdout)
    problems = []
    if result.returncode != args.exit:
        problems.append('exit code %d, expected %d' % (result.returncode, args.exit))
    for r in range(args.np - 1):
        pattern = r'^\[%d\]<stdout>:torch_killed_rank: rank %d raised HorovodInternalError' % (r, r)
        if not re.search(pattern, result.stdout, re.MULTILINE):
            problems.append('rank %d did not report HorovodInternalError' % r)
    for p in problems:
        print('check_killed_rank: ' + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
