#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a launcher command and checks that every rank reported once, under its own tag.

    check_ranks.py --np N --name NAME [--same FIELD] [--hosts H] [--timeout S] -- COMMAND...

The ranks print "NAME: rank R of N ... FIELD VALUE ..." (torch_ddp.py, mpi4py_ranks.py), and
hvdrun tags each line "[R]<stdout>:". Passes when the command exits 0 and ranks 0..N-1 each
printed one such line under the tag of the same rank, every line says "of N", FIELD (if given)
has the same value on every rank, and (with --hosts) the lines name H distinct hosts in their
"on HOST" field.
"""
import argparse
import re
import subprocess
import sys

TAG = re.compile(r"^\[(\d+)\]<stdout>:(.*)$")


def fields(text: str) -> dict:
    """Each word mapped to the word after it (the first time it appears)."""
    words, out = text.split(), {}
    for key, value in zip(words, words[1:]):
        out.setdefault(key, value)
    return out


def check(args: argparse.Namespace, out: str) -> list:
    problems, seen = [], {}
    for line in out.splitlines():
        match = TAG.match(line)
        if not match or not match.group(2).startswith(args.name + ": "):
            continue
        tag_rank, f = int(match.group(1)), fields(match.group(2))
        rank = int(f.get("rank", -1))
        if rank != tag_rank:
            problems.append(f"line tagged [{tag_rank}] says rank {rank}: {line}")
        if f.get("of") != str(args.np):
            problems.append(f"rank {rank} says size {f.get('of')}, expected {args.np}")
        if rank in seen:
            problems.append(f"rank {rank} reported twice")
        seen[rank] = f
    if sorted(seen) != list(range(args.np)):
        problems.append(f"ranks that reported: {sorted(seen)}, expected 0..{args.np - 1}")
    if args.same and seen:
        values = {f.get(args.same) for f in seen.values()}
        if len(values) != 1 or None in values:
            problems.append(f"'{args.same}' differs between ranks: {sorted(map(str, values))}")
    if args.hosts and len({f.get("on") for f in seen.values()}) != args.hosts:
        problems.append(f"hosts: {sorted({str(f.get('on')) for f in seen.values()})}, "
                        f"expected {args.hosts} distinct")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--same")
    parser.add_argument("--hosts", type=int)
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    problems = check(args, result.stdout)
    if result.returncode != 0:
        problems.insert(0, f"command exited {result.returncode}")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if not problems:
        print(f"check_ranks: {args.np} ranks of {args.name} ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
