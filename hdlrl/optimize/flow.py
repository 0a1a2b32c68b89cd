"""The optimiser's configuration (`flows/optimize.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import Objective
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.flow import FLOWS_DIR
from hdlrl.optimize.advantages import METHODS
from hdlrl.optimize.kl_control import KlControlConfig
from hdlrl.verify.flow import GateFlow, load_gate_flow
from hdlrl.yamlfile import load_yaml

DEFAULT_OPTIMIZE_FLOW = FLOWS_DIR / "optimize.yaml"


@dataclass(frozen=True)
class OptimizeFlow:
    gate: GateFlow = field(default_factory=GateFlow)
    budget: int = 64  # candidates judged in all; steps are taken until it is spent or no state has anything new
    groups: int = 2
    group_size: int = 4
    exploration: float = 1.0
    pool_size: int = 200
    advantage: str = "entropic"
    objective: Objective | None = None  # None: the design's own objective
    ratio_floor: float = 1000.0
    kl_control: KlControlConfig = field(default_factory=KlControlConfig)
    feedback_lines: int = 5


def load_optimize_flow(path: Path = DEFAULT_OPTIMIZE_FLOW) -> OptimizeFlow:
    """Read an optimiser flow; unknown keys and bad values are errors with their line."""
    document = load_yaml(path)
    data = dict(document.data or {})
    known = {name for name in OptimizeFlow.__dataclass_fields__}
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown optimiser option (known: {', '.join(sorted(known))})")
    if data.get("advantage", "entropic") not in METHODS:
        raise document.error("advantage", f"{data['advantage']!r} is not one of {', '.join(METHODS)}")
    for key in ("budget", "groups", "group_size", "pool_size"):
        if not isinstance(data.get(key, 1), int) or data.get(key, 1) < 1:
            raise document.error(key, "must be a positive integer")
    objective = data.pop("objective", "design")
    try:
        return OptimizeFlow(
            gate=load_gate_flow(path.parent / data.pop("gate", "gate.yaml")),
            objective=None if objective == "design" else Objective(**objective),
            kl_control=KlControlConfig(**(data.pop("kl_control", None) or {})),
            **data,
        )
    except TypeError as error:
        raise HdlrlError(f"invalid optimiser option: {error}", path) from None
