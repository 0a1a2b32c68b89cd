"""`hdlrl eval`: the evaluation cascade on one or many designs, as a table or JSON."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from hdlrl.design import Design, load_design
from hdlrl.eda.synth.recipes import DEFAULT_RECIPE, recipe_options
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import default_cache_path
from hdlrl.evaluate.executors import make_executor
from hdlrl.evaluate.eval_flow import DEFAULT_FLOW, load_flow
from hdlrl.evaluate.job import EvalJob
from hdlrl.evaluate.metrics import orfs_metrics
from hdlrl.evaluate.result import EvalResult
from hdlrl.evaluate.staging import user_paths
from hdlrl.pdk import get_pdk
from hdlrl.text_tables import markdown_table, text_table

HEADERS = ("design", "verified", "stage", "area_um2", "delay_ns", "power_mw", "simulator", "cached", "reason")


def result_row(result: EvalResult) -> tuple:
    ppa = result.ppa
    return (result.design, "yes" if result.verified else "no", result.stage,
            ppa.area_um2 if ppa else None, ppa.delay_ns if ppa else None, ppa.power_mw if ppa else None,
            result.simulation.simulator if result.simulation else None, "yes" if result.cached else "no",
            result.reason)


def _with_candidate(design: Design, rtl: list[Path] | None) -> Design:
    if not rtl:
        return design
    for path in rtl:
        if not path.is_file():
            raise HdlrlError("candidate source not found", path)
    return design.with_rtl(tuple(path.resolve() for path in rtl))


def run_eval(arguments: argparse.Namespace) -> int:
    if arguments.rtl and len(arguments.designs) > 1:
        raise HdlrlError("--rtl replaces the RTL of a single design; give one DESIGN_DIR")
    designs = [_with_candidate(load_design(path), arguments.rtl) for path in arguments.designs]
    pdk = get_pdk(arguments.pdk, arguments.pdk_dir)
    flow = load_flow(arguments.flow or DEFAULT_FLOW)
    if arguments.recipe != DEFAULT_RECIPE:
        try:
            flow = replace(flow, synthesis=recipe_options(flow.synthesis, arguments.recipe))
        except ValueError as error:
            raise HdlrlError(f"--recipe: {error}") from None
    cache_path = default_cache_path(not arguments.no_cache)
    sandbox = False if arguments.no_sandbox else None
    jobs = [EvalJob(design, pdk, flow, cache_path, sandbox) for design in designs]
    executor = make_executor(arguments.executor, arguments.workers, arguments.ray_address)
    try:
        results = list(tqdm(executor.map(jobs), total=len(jobs), desc="eval", unit="design",
                            disable=len(jobs) == 1, leave=False))
    finally:
        executor.close()
    for design, result in zip(designs, results):
        result.reason = user_paths(result.reason, design)

    if arguments.json:
        summaries = [result.summary() for result in results]
        print(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2))
    else:
        print(text_table(HEADERS, [result_row(result) for result in results]))
        verified = sum(result.verified for result in results)
        print(f"\n{verified}/{len(results)} verified on PDK {pdk.name}")
    if arguments.metrics:
        metrics = [orfs_metrics(result) for result in results]
        arguments.metrics.write_text(json.dumps(metrics[0] if len(metrics) == 1 else metrics, indent=2) + "\n")
    if arguments.report:
        arguments.report.parent.mkdir(parents=True, exist_ok=True)
        arguments.report.write_text(markdown_table(HEADERS, [result_row(result) for result in results]) + "\n")
    return 0 if all(result.verified for result in results) else 1
