"""The gate's configuration (`flows/gate.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from hdlrl.config import load_config, schema
from hdlrl.evaluate.eval_flow import FLOWS_DIR, EvalFlow, load_flow
from hdlrl.verify.diffsim import DiffSimOptions
from hdlrl.verify.equivalence import EquivalenceOptions

DEFAULT_GATE_FLOW = FLOWS_DIR / "gate.yaml"
AcceptableLevel = Literal["proven", "bounded", "simulated"]


@schema
@dataclass(frozen=True)
class GateFlow:
    evaluation: EvalFlow = field(default_factory=EvalFlow)
    differential: DiffSimOptions = field(default_factory=DiffSimOptions)
    equivalence: EquivalenceOptions = field(default_factory=EquivalenceOptions)
    accept_levels: Annotated[tuple[AcceptableLevel, ...], Field(min_length=1, max_length=3)] = \
        ("proven", "bounded", "simulated")
    max_unproven_gain: Annotated[float, Field(ge=1, le=1e6)] = 10.0  # a larger PPA gain is accepted only with a proof


@schema
@dataclass(frozen=True)
class GateFlowFile(GateFlow):
    """gate.yaml as written: `evaluation` names the evaluation flow file beside it."""

    evaluation: Annotated[str, Field(max_length=4096)] = "eval.yaml"


def load_gate_flow(path: Path = DEFAULT_GATE_FLOW) -> GateFlow:
    """Read a gate flow and the evaluation flow it names; a bad value is an error at its line."""
    written = load_config(path, GateFlowFile)[0]
    return GateFlow(**{**written.__dict__, "evaluation": load_flow(path.parent / written.evaluation)})
