"""The optimiser's configuration (`flows/optimize.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator, Field

from hdlrl.config import Bounded, Count, load_config, schema
from hdlrl.design import Objective
from hdlrl.evaluate.eval_flow import FLOWS_DIR
from hdlrl.ttt.advantages import Method
from hdlrl.ttt.kl_control import KlControlConfig
from hdlrl.verify.gate_flow import GateFlow, load_gate_flow

DEFAULT_OPTIMIZE_FLOW = FLOWS_DIR / "optimize.yaml"


@schema
@dataclass(frozen=True)
class OptimizeFlow:
    gate: GateFlow = field(default_factory=GateFlow)
    budget: Count(1_000_000) = 64  # candidates judged in all; steps are taken until it is spent or no state has anything new
    groups: Count(1024) = 2
    group_size: Count(1024) = 4
    exploration: Bounded(1000.0) = 1.0
    pool_size: Count(1_000_000) = 200
    advantage: Method = "entropic"
    objective: Objective | None = None  # None: the design's own objective
    ratio_floor: Annotated[float, Field(gt=1, le=1e12)] = 1000.0
    kl_control: KlControlConfig = field(default_factory=KlControlConfig)
    feedback_lines: Count(1000, minimum=0) = 5


def _design_means_none(value: object) -> object:
    return None if value == "design" else value


@schema
@dataclass(frozen=True)
class OptimizeFlowFile(OptimizeFlow):
    """optimize.yaml as written: `gate` names the gate flow file beside it, and `objective: design`
    takes the design's own objective."""

    gate: Annotated[str, Field(max_length=4096)] = "gate.yaml"
    objective: Annotated[Objective | None, BeforeValidator(_design_means_none)] = None

def load_optimize_flow(path: Path = DEFAULT_OPTIMIZE_FLOW) -> OptimizeFlow:
    """Read an optimiser flow and the gate flow it names; a bad value is an error at its line."""
    written = load_config(path, OptimizeFlowFile)[0]
    return OptimizeFlow(**{**written.__dict__, "gate": load_gate_flow(path.parent / written.gate)})
