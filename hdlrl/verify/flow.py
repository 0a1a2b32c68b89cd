"""The gate's configuration (`flows/gate.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.errors import HdlrlError
from hdlrl.evaluate.flow import FLOWS_DIR, EvalFlow, load_flow
from hdlrl.verify.diffsim import DiffSimOptions
from hdlrl.verify.equivalence import EquivalenceOptions
from hdlrl.yamlfile import load_yaml

DEFAULT_GATE_FLOW = FLOWS_DIR / "gate.yaml"
LEVELS = ("proven", "bounded", "simulated", "failed")


@dataclass(frozen=True)
class GateFlow:
    evaluation: EvalFlow = field(default_factory=EvalFlow)
    differential: DiffSimOptions = field(default_factory=DiffSimOptions)
    equivalence: EquivalenceOptions = field(default_factory=EquivalenceOptions)
    accept_levels: tuple[str, ...] = ("proven", "bounded", "simulated")
    max_unproven_gain: float = 10.0  # a larger PPA gain is accepted only with a proof


def load_gate_flow(path: Path = DEFAULT_GATE_FLOW) -> GateFlow:
    """Read a gate flow; unknown keys and levels are errors with their line."""
    document = load_yaml(path)
    data = document.data or {}
    known = {"evaluation", "differential", "equivalence", "accept_levels", "max_unproven_gain"}
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown gate option (known: {', '.join(sorted(known))})")
    levels = tuple(data.get("accept_levels", GateFlow.accept_levels))
    for level in levels:
        if level not in LEVELS or level == "failed":
            raise document.error("accept_levels", f"{level!r} is not an acceptable level (proven, bounded, simulated)")
    try:
        return GateFlow(
            evaluation=load_flow(path.parent / data.get("evaluation", "eval.yaml")),
            differential=DiffSimOptions(**(data.get("differential") or {})),
            equivalence=EquivalenceOptions(**(data.get("equivalence") or {})),
            accept_levels=levels,
            max_unproven_gain=float(data.get("max_unproven_gain", GateFlow.max_unproven_gain)),
        )
    except TypeError as error:
        raise HdlrlError(f"invalid gate option: {error}", path) from None
