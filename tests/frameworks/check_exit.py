#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a launcher command that must fail in a given way.

    check_exit.py --exit CODE [--expect REGEX]... -- COMMAND...

Passes when the command exits with CODE and its output (stdout and stderr together) matches
every REGEX (Python re, multiline).
"""
import argparse
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--exit', type=int, required=True)
    parser.add_argument('--expect', action='append', default=[])
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(result.stdout)
    problems = []
    if result.returncode != args.exit:
        problems.append('exit code %d, expected %d' % (result.returncode, args.exit))
    for pattern in args.expect:
        if not re.search(pattern, result.stdout, re.MULTILINE):
            problems.append('no line matches %r' % pattern)
    for p in problems:
        print('check_exit: ' + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
