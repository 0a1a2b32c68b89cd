"""The configuration of `hdlrl cover` (`flows/cover.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator

from hdlrl.config import Bounded, Count, Fraction, Positive, Simulator, Weight, load_config, schema
from hdlrl.evaluate.eval_flow import FLOWS_DIR
from hdlrl.ttt.advantages import Method
from hdlrl.ttt.kl_control import KlControlConfig

DEFAULT_COVER_FLOW = FLOWS_DIR / "cover.yaml"
CoverMetric = Literal["line", "branch", "toggle", "functional"]


def _without_nulls(values: dict[str, float | None]) -> dict[str, float]:
    """A metric written as null has no target (or weight): it is left out."""
    return {metric: value for metric, value in values.items() if value is not None}


@schema
@dataclass(frozen=True)
class CoverFlow:
    budget: Count(1_000_000) = 200
    group_size: Count(1024) = 8
    random_cycles: Count(1 << 20) = 256
    max_cycles: Count(1 << 20) = 4096
    reset_cycles: Count(1000, minimum=0) = 3
    simulation_time_s: Positive = 60  # CPU seconds of one stimulus run: a run past it is refused, the run goes on
    simulator: Simulator = "verilator"
    workers: Count(256) = 2
    targets: Annotated[dict[CoverMetric, Fraction | None], AfterValidator(_without_nulls)] = field(
        default_factory=lambda: {"line": 0.95, "branch": 0.90, "functional": 0.95})
    stop_at_targets: bool = True
    reward_weights: Annotated[dict[CoverMetric, Weight | None], AfterValidator(_without_nulls)] = field(
        default_factory=lambda: {"line": 1.0, "branch": 1.0, "toggle": 0.5, "functional": 1.0})
    mutant_weight: Weight = 2.0
    mutants: Count(10_000, minimum=0) = 30
    mutant_seed: Count(1 << 62, minimum=0) = 0
    equivalence_time_s: Positive = 30
    proof_time_s: Positive = 10
    unreachable_budget_s: Bounded(1e6) = 120
    solves_per_step: Count(256, minimum=0) = 64  # uncovered items given a bounded model check each step
    solve_depth: Count(256) = 24  # cycles from reset the model check looks through
    solve_deepenings: Count(8, minimum=0) = 5  # an item without a sequence is checked again at twice the depth
    solve_time_s: Positive = 30  # each model check
    check_cocotb_replay: bool = False  # also run the cocotb replay on the reference and every mutant (slow)
    advantage: Method = "entropic"
    feedback_lines: Count(1000, minimum=0) = 5
    objective: Literal["coverage", "mutants"] = "coverage"  # set by --objective; not in the YAML
    kl_control: KlControlConfig = field(default_factory=KlControlConfig)


def load_cover_flow(path: Path = DEFAULT_COVER_FLOW) -> CoverFlow:
    """Read a cover flow; a bad value is an error at its line."""
    flow, document = load_config(path, CoverFlow)
    if "objective" in (document.data or {}):
        raise document.error("objective", "set by `hdlrl cover --objective`, not in the flow file")
    return flow
