#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Validates real `hvdrun --dry-run` output of every mode against docs/dry-run.schema.json.

    check_dry_run_schema.py HVDRUN SCHEMA

For each mode (local; Slurm, offline from a batch script's SLURM_* variables; mpirun with --mpi)
and each option that changes the plan's shape (--output-filename, --tf-config where the mode
allows it), hvdrun's output must validate, its ranks must be the ones asked for, and documents
the schema must refuse (a key of the old per-mode dialects, a Slurm block outside Slurm mode, a
missing rendezvous) must be refused, so that the schema cannot pass everything. Exits 77 when
mpirun is missing (the other modes are still checked), 1 on the first failure.
"""
import copy
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    sys.exit("check_dry_run_schema: python3-jsonschema is missing (scripts/install-deps.sh)")

# A 2-node batch job of the test profile's shape (tests/integration/slurm_offline_test.cc).
SLURM_JOB = {"SLURM_JOB_ID": "81234", "SLURM_JOB_NODELIST": "gpu[07-08]",
             "SLURM_TASKS_PER_NODE": "4(x2)", "SLURM_NTASKS": "8", "SLURM_GPUS_ON_NODE": "4",
             "SLURM_PROCID": "0", "SLURM_CLUSTER_NAME": "hvdtest"}
SLURM_NODES = ["gpu07", "gpu08"]
NP = 3  # local and mpirun


def base_env() -> dict:
    """This environment without Slurm's or HOROVOD_* variables, which would change the mode."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("SLURM_", "HOROVOD_", "HVD_"))}


def dry_run(hvdrun: str, args: list, env: dict) -> dict:
    done = subprocess.run([hvdrun, *args, "--dry-run", "--", "/bin/true"], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise AssertionError(f"hvdrun {' '.join(args)} --dry-run exited {done.returncode}: "
                             f"{done.stderr.strip()}")
    return json.loads(done.stdout)


def check_ranks(plan: dict, mode: str) -> None:
    """The ranks asked for, in order: every rank but under mpirun, which gives them itself."""
    if mode == "mpirun":
        assert plan["size"] == NP and plan["ranks"] == [], plan["ranks"]
        return
    expected = NP if mode == "local" else int(SLURM_JOB["SLURM_NTASKS"])
    assert plan["size"] == expected, plan["size"]
    assert [r["rank"] for r in plan["ranks"]] == list(range(expected))
    hosts = [plan["host"]] if mode == "local" else SLURM_NODES
    assert all(r["host"] in hosts for r in plan["ranks"]), [r["host"] for r in plan["ranks"]]


def refused(validator, doc: dict) -> bool:
    return not validator.is_valid(doc)


def check_refusals(validator, plans: dict) -> None:
    """Documents that are not the one shape fail: the schema is not a blank cheque."""
    for mode, plan in plans.items():
        missing = copy.deepcopy(plan)
        del missing["rendezvous"]
        assert refused(validator, missing), f"{mode}: a plan without a rendezvous passed"
        old = copy.deepcopy(plan)
        old["srun_line" if mode == "slurm" else "mpirun_line"] = "x"
        assert refused(validator, old), f"{mode}: an old dialect's key passed"
        renamed = copy.deepcopy(plan)
        for rank in renamed["ranks"]:
            rank["node"] = rank.pop("host")
        assert not renamed["ranks"] or refused(validator, renamed), f"{mode}: ranks[].node passed"
    if "slurm" in plans:
        for mode in ("local", "mpirun"):
            if mode in plans:
                stray = dict(plans[mode], slurm=plans["slurm"]["slurm"])
                assert refused(validator, stray), f"{mode}: a slurm block passed"
        no_block = dict(plans["slurm"])
        del no_block["slurm"]
        assert refused(validator, no_block), "slurm: a plan without its slurm block passed"


def main() -> int:
    hvdrun, schema_path = sys.argv[1:3]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    env = base_env()
    modes = {"local": (["-np", str(NP)], env),
             "slurm": ([], {**env, **SLURM_JOB}),
             "mpirun": (["--mpi", "-np", str(NP)], env)}
    have_mpirun = shutil.which("mpirun", path=env.get("PATH")) is not None
    if not have_mpirun:
        del modes["mpirun"]
    plans = {}
    with tempfile.TemporaryDirectory(prefix="hvd-dry-run-schema-") as out:
        for (mode, (args, mode_env)), output, tf_config in itertools.product(
                modes.items(), (False, True), (False, True)):
            if tf_config and mode == "mpirun":
                continue  # refused: mpirun gives every rank one environment
            extra = (["--output-filename", out] if output else []) + \
                (["--tf-config"] if tf_config else [])
            plan = dry_run(hvdrun, args + extra, mode_env)
            errors = sorted(validator.iter_errors(plan), key=lambda e: list(e.path))
            assert not errors, f"{mode} {extra}: " + "; ".join(
                f"/{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5])
            assert plan["mode"] == mode, plan["mode"]
            assert plan["output_dir"] == (out if output else None), plan["output_dir"]
            check_ranks(plan, mode)
            plans.setdefault(mode, plan)
            print(f"ok: {mode} {' '.join(extra)}")
    check_refusals(validator, plans)
    if not have_mpirun:
        print("mpirun is not installed: its mode was not checked")
        return 77
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        sys.exit(f"check_dry_run_schema: {e}")
