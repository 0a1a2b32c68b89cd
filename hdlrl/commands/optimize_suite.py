"""`hdlrl optimize-suite`: many designs, under one arm or several (`--arms`, `hdlrl.optimize.arms`)
and seeds, with a report. Every arm spends the same budget of gate calls per design; what
differs is the policy and whether it learns.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hdlrl.commands.optimize import Shared, optimize_design, run_mode, shared_resources
from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.optimize.arms import ARMS
from hdlrl.optimize.suite_report import ArmRun, write_suite_report
from hdlrl.text_tables import text_table

HEADERS = ("design", "verified", "gate_level", "ppa_product_ratio", "rewrites", "gate_calls", "syntheses",
           "reference_area_um2", "best_area_um2", "reference_delay_ns", "best_delay_ns", "reference_power_mw",
           "best_power_mw")


def _arm_of(arguments: argparse.Namespace) -> str:
    """The arm the plain flags name, when `--arms` is not given."""
    return "random" if arguments.policy == "random" else run_mode(arguments)


def _run_arm(arguments: argparse.Namespace, arm: str, seed: int, folder: Path, shared: Shared) -> ArmRun:
    arm_settings = dict(ARMS[arm])
    arm_settings["policy_option"] = (arguments.policy_option or []) + arm_settings.get("policy_option", [])
    settings = argparse.Namespace(**{**vars(arguments), **arm_settings, "seed": seed})
    run = ArmRun(arm, seed, folder, [])
    for path in arguments.designs:
        try:
            design = load_design(path)
            run.summaries.append(optimize_design(design, settings, folder / f"{design.name}-seed{seed}", shared))
        except HdlrlError as error:
            run.failures.append(f"{path.name}: {error}")
    return run


def _row(summary: dict) -> tuple:
    reference, best = summary["reference_ppa"], summary["best_ppa"]
    return (summary["design"], "yes" if summary["verified"] else "no", summary["gate_level"],
            summary["ppa_product_ratio"], " + ".join(summary["best_lineage"]) or "-",
            summary["calls"]["gate_calls"], summary["calls"]["syntheses"], reference["area_um2"], best["area_um2"],
            reference["delay_ns"], best["delay_ns"], reference["power_mw"], best["power_mw"])


def run_optimize_suite(arguments: argparse.Namespace) -> int:
    out = arguments.out or Path("runs") / "suite"
    arms, seeds = arguments.arms or [_arm_of(arguments)], arguments.seeds or [arguments.seed]
    several = len(arms) * len(seeds) > 1
    shared = shared_resources(arguments)
    runs = []
    try:
        for arm in arms:
            for seed in seeds:
                runs.append(_run_arm(arguments, arm, seed, out / f"{arm}-seed{seed}" if several else out, shared))
    finally:
        shared.executor.close()
    out.mkdir(parents=True, exist_ok=True)
    result = {"runs": [run.to_json() for run in runs]}
    (out / "suite.json").write_text(json.dumps(result, indent=2) + "\n")
    if arguments.report:
        write_suite_report(arguments.report, runs, shared.flow.budget)
    if arguments.json:
        print(json.dumps(result, indent=2))
    else:
        for run in runs:
            print(f"{run.arm}, seed {run.seed}:")
            print(text_table(HEADERS, [_row(summary) for summary in run.summaries]
                             + [("geomean", "", "", run.geomean(), "", None, None, None, None, None, None, None, None)]))
            for failure in run.failures:
                print(f"hdlrl: not optimised: {failure}")
    return 1 if any(run.failures for run in runs) else 0
