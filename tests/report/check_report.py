#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Renders the fixtures in tests/data/report with `hvdrun report` and checks the pictures.

    check_report.py HVDRUN DATA_DIR OUT_DIR

Passes when hvdrun exits 0, prints the paths it wrote, every PNG starts with the PNG signature,
every SVG parses as XML and names the expected series (and no others) in its key, and no scratch
folder is left behind.
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Picture -> the series it must show in its key.
EXPECTED = {
    "bench-fixture-allreduce": {"hvd", "mpi", "gloo"},
    "bench-fixture-broadcast": {"hvd", "mpi"},  # gloo did not run broadcast in the fixture
    "train-scaling": {"images/sec", "scaling efficiency"},
    # A preflight verdict: node2 and its two links flagged; latency's limit is median / 0.7.
    "preflight-fixture-preflight": {"ok", "flagged", "median", "0.7 x median", "median / 0.7"},
}


def svg_titles(path: str) -> set:
    """The key titles: gnuplot draws each series in a <g id="gnuplot_plot_N"> whose <text> is
    the series' title in the key."""
    titles = set()
    for group in ET.parse(path).getroot().iter():
        if group.tag.endswith("}g") and group.get("id", "").startswith("gnuplot_plot_"):
            titles |= {el.text.strip() for el in group.iter() if el.tag.endswith("}text") and el.text}
    return titles


def main() -> int:
    hvdrun, data, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    inputs = [os.path.join(data, f) for f in
              ("bench-fixture.json", "train-np1.json", "train-np2.json", "train-np4.json",
               "train-np8.json", "preflight-fixture.json")]
    result = subprocess.run([hvdrun, "report", *inputs, "-o", out], capture_output=True,
                            text=True, timeout=120)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    problems = [] if result.returncode == 0 else [f"hvdrun report exited {result.returncode}"]
    printed = set(result.stdout.split())
    for name, series in EXPECTED.items():
        png, svg = os.path.join(out, name + ".png"), os.path.join(out, name + ".svg")
        for path in (png, svg):
            if path not in printed:
                problems.append(f"{path} not among the paths hvdrun printed")
        if not os.path.exists(png) or not os.path.exists(svg):
            problems.append(f"{name}: .png or .svg missing in {out}")
            continue
        with open(png, "rb") as f:
            if f.read(8) != PNG_SIGNATURE:
                problems.append(f"{png} does not start with the PNG signature")
        try:
            titles = svg_titles(svg)
        except ET.ParseError as e:
            problems.append(f"{svg} is not XML: {e}")
            continue
        if titles != series:
            problems.append(f"{svg}: series {sorted(titles)}, expected {sorted(series)}")
    leftovers = [f for f in os.listdir(out) if f.startswith(".hvdrun-report")] if os.path.isdir(out) else []
    if leftovers:
        problems.append(f"scratch folders left behind: {leftovers}")
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if not problems:
        print(f"check_report: {2 * len(EXPECTED)} pictures ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
