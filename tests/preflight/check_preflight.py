#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs `hvdrun preflight ... --json FILE` (the command after --) and checks the structure of
what it prints and writes: the exit code (0, or --expect-exit), the node and link tables, and a --json report with one entry
per node, one per link, and the figures as numbers. Nothing timed is judged (timing varies with
other work on the machine): whether anything is flagged is printed, not asserted. The wall time
of the whole command is printed for the benchmark row."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def fail(message):
    print(f"check_preflight: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check_report(report, nodes, links):
    if report.get("tool") != "hvdrun preflight":
        fail(f"--json: tool is {report.get('tool')!r}, not 'hvdrun preflight'")
    if len(report["nodes"]) != nodes:
        fail(f"--json: {len(report['nodes'])} nodes, expected {nodes}")
    if len(report["links"]) != links:
        fail(f"--json: {len(report['links'])} links, expected {links}")
    for node in report["nodes"]:
        for key in ("memory_gbps", "clock_offset_ms", "clock_rtt_ms", "intra_busbw_gbps"):
            if not isinstance(node[key], (int, float)):
                fail(f"--json: node {node.get('host')}: {key} is not a number")
        if not isinstance(node["flagged"], bool) or not isinstance(node["reasons"], list):
            fail(f"--json: node {node.get('host')}: no flagged/reasons")
    for link in report["links"]:
        if link["busbw_gbps"] <= 0 or link["latency_us"] <= 0:
            fail(f"--json: link {link['a']}-{link['b']}: figures must be positive")
    if report["all"]["busbw_gbps"] <= 0 or report["all"]["latency_us"] <= 0:
        fail("--json: the all-rank allreduce figures must be positive")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--links", type=int, required=True)
    parser.add_argument("--json-dir", default=None, help="where --json goes (visible to hvdrun)")
    parser.add_argument("--expect-exit", type=int, default=0)
    parser.add_argument("--expect-text", action="append", default=[],
                        help="a line the output must hold (repeatable)")
    parser.add_argument("--expect-flagged", default=None,
                        help="comma-separated hosts --json must list as flagged, exactly ('' for none)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    with tempfile.TemporaryDirectory(dir=args.json_dir) as folder:
        path = os.path.join(folder, "preflight.json")
        start = time.monotonic()
        run = subprocess.run(command + ["--json", path], capture_output=True, text=True,
                             check=False)
        wall = time.monotonic() - start
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        if run.returncode != args.expect_exit:
            fail(f"exit {run.returncode}, expected {args.expect_exit}")
        for text in args.expect_text:
            if text not in run.stdout.splitlines():
                fail(f"no line {text!r} in the output")
        for heading in ("Nodes\n", "HOST", "MEMORY GB/s", "VERDICT", "median", "Verdict: "):
            if heading not in run.stdout:
                fail(f"no {heading!r} in the output")
        if args.links and "Links (node leaders" not in run.stdout:
            fail("no link table")
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    check_report(report, args.nodes, args.links)
    expected = [h for h in (args.expect_flagged or "").split(",") if h]  # "": none flagged
    if args.expect_flagged is not None and report["flagged_hosts"] != expected:
        fail(f"--json: flagged {report['flagged_hosts']}, expected {args.expect_flagged}")
    print(f"check_preflight: ok: {args.nodes} nodes, {args.links} links, flagged: "
          f"{report['flagged_hosts'] or 'none'}; wall time {wall:.2f} s "
          f"(hvd-preflight {report['seconds']:.2f} s)")


if __name__ == "__main__":
    main()
