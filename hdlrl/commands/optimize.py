"""`hdlrl optimize`: one design, one policy, one seed (`optimize_suite` runs many of these)."""

from __future__ import annotations

import argparse
import json
import shlex
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import yaml

from hdlrl.checkpoint import HISTORY, SUMMARY, refuse_unfinished
from hdlrl.design import Design, load_design
from hdlrl.eda.synth.recipes import recipe_options
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import default_cache_path
from hdlrl.evaluate.executors import Executor, make_executor
from hdlrl.evaluate.staging import view_text
from hdlrl.hdl.design_files import write_sources
from hdlrl.optimize.optimize_flow import DEFAULT_OPTIMIZE_FLOW, OptimizeFlow, load_optimize_flow
from hdlrl.optimize.choice_policy import ChoicePolicy
from hdlrl.optimize.loop import OptimizeRun
from hdlrl.ttt.pool import PoolState
from hdlrl.optimize.report import load_history, write_report
from hdlrl.pdk import Pdk, get_pdk
from hdlrl.serialize import to_jsonable
from hdlrl.optimize.rewrite_policy import EMBEDDED_POLICIES
from hdlrl.policy import make_policy, policy_options
from hdlrl.text_tables import text_table
from hdlrl.ttt.protocol import Policy

EVAL_FLOW = "eval.yaml"  # the run's evaluation flow, for the command in summary.json that measures best.v again


def run_mode(arguments: argparse.Namespace) -> str:
    return "best-of-n" if arguments.best_of_n else "frozen" if arguments.no_update else "ttt"


@dataclass
class Shared:
    """What every design of one command uses: loaded and started once, not per design."""

    flow: OptimizeFlow
    pdk: Pdk
    executor: Executor
    cache_path: Path | None


def shared_resources(arguments: argparse.Namespace) -> Shared:
    flow = load_optimize_flow(arguments.flow or DEFAULT_OPTIMIZE_FLOW)
    return Shared(replace(flow, budget=arguments.budget) if arguments.budget is not None else flow,
                   get_pdk(arguments.pdk, arguments.pdk_dir),
                   make_executor(arguments.executor, arguments.workers, arguments.ray_address),
                   default_cache_path(not arguments.no_cache))


def optimize_design(design: Design, arguments: argparse.Namespace, run_dir: Path, shared: Shared) -> dict:
    """Run (or resume) one optimisation with a fresh policy and write its outputs; returns the summary."""
    flow, pdk = shared.flow, shared.pdk
    if not arguments.resume:
        refuse_unfinished(run_dir)
    policy = _policy(arguments)
    run = OptimizeRun(design, policy, pdk, flow, run_dir, shared.executor, shared.cache_path, arguments.seed,
                      run_mode(arguments), False if arguments.no_sandbox else None, progress=not arguments.json,
                      accept_unproven=arguments.accept_unproven)
    best = run.run(resume=arguments.resume)
    summary = {
        "design": design.name, "policy": policy.name, "mode": run_mode(arguments), "pdk": pdk.name,
        "seed": arguments.seed, "budget": flow.budget, "steps": run.loop.state.step,
        "candidates": run.candidates_judged(),  # fewer than the budget when the search ran out of new designs
        "calls": load_history(run_dir / HISTORY).calls(),
        "reference_ppa": run.state.reference_ppa, "best_ppa": best.ppa,
        "ppa_product_ratio": run.best_ratio(),
        "verified": best.accepted, "gate_level": best.level, "best_state_id": best.id,
        "best_levels": "any accepted level (--accept-unproven)" if arguments.accept_unproven else "proven only",
        "best_action": best.metadata.get("action"),
        "best_lineage": _lineage(run, best),
        "recipe": best.recipe,  # the synthesis recipe best.v was measured with
        "synthesis": asdict(recipe_options(flow.gate.evaluation.synthesis, best.recipe)),
        "reproduce": _reproduce_command(design, run_dir, best.recipe, arguments, flow),
        "best_file": "best.v: the synthesis view the gate verified (SYNTHESIS defined; translate_off regions, "
                     "comments and attributes but keep removed)",
    }
    with tempfile.TemporaryDirectory(prefix="hdlrl-best-") as folder:
        best_design = design.with_rtl(write_sources(design, best.sources, Path(folder)))
        (run_dir / "best.v").write_text(view_text(best_design, False if arguments.no_sandbox else None))
    (run_dir / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    write_report(run_dir, run.original, best.sources)
    return summary


def _reproduce_command(design: Design, run_dir: Path, recipe: str, arguments: argparse.Namespace,
                       flow: OptimizeFlow) -> str:
    """The `hdlrl eval` command that measures best.v again: the same PDK, recipe and evaluation
    flow (written beside best.v as eval.yaml)."""
    (run_dir / EVAL_FLOW).write_text(yaml.safe_dump(to_jsonable(flow.gate.evaluation), sort_keys=False))
    return shlex.join(["hdlrl", "eval", str(design.root), "--rtl", str(run_dir / "best.v"), "--recipe", recipe,
                       "--flow", str(run_dir / EVAL_FLOW), "--pdk", arguments.pdk,
                       *(["--pdk-dir", str(arguments.pdk_dir)] if arguments.pdk_dir else [])])


def _policy(arguments: argparse.Namespace) -> Policy:
    """The `--policy`, acting as `--lm-mode` says: a language model writes RTL or chooses from the menu."""
    policy = make_policy(arguments.policy, EMBEDDED_POLICIES, **policy_options(arguments.policy_option or []))
    if arguments.lm_mode == "write":
        return policy
    if not hasattr(policy, "continuation_logprobs"):
        raise HdlrlError(f"--lm-mode choose needs an hf:MODEL policy (it scores the menu by the model's "
                         f"log-probabilities), not {arguments.policy!r}")
    return ChoicePolicy(policy)


def _lineage(run: OptimizeRun, state: PoolState | None) -> list[str]:
    """The actions that led from the original design to `state`, first to last."""
    actions = []
    while state is not None and not state.initial:
        actions.append(state.metadata.get("action") or "?")
        state = run.pool.states.get(state.parent)
    return actions[::-1]


def run_optimize(arguments: argparse.Namespace) -> int:
    design = load_design(arguments.design)
    run_dir = arguments.out or Path("runs") / f"{design.name}-seed{arguments.seed}"
    shared = shared_resources(arguments)
    try:
        summary = optimize_design(design, arguments, run_dir, shared)
    finally:
        shared.executor.close()
    if arguments.json:
        print(json.dumps(summary, indent=2))
    else:
        print(text_table(("field", "value"), [
            ("design", summary["design"]), ("policy", f"{summary['policy']} ({summary['mode']})"),
            ("budget", summary["budget"]), ("PPA product ratio", round(summary["ppa_product_ratio"], 4)),
            ("gate level", summary["gate_level"]), ("rewrites", " + ".join(summary["best_lineage"]) or "-"),
            ("run directory", str(run_dir))]))
    return 0
