"""The evaluation flow configuration (`flows/eval.yaml`) as a typed, validated dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from hdlrl.config import Positive, Simulator, load_config, schema
from hdlrl.eda.runner import Limits
from hdlrl.eda.sta import TimingOptions
from hdlrl.eda.synth.yosys import SynthOptions

# Package data (hdlrl/flows/*.yaml); the repository's flows/ is a symlink to it.
FLOWS_DIR = Path(__file__).resolve().parents[1] / "flows"
DEFAULT_FLOW = FLOWS_DIR / "eval.yaml"


@schema
@dataclass(frozen=True)
class EvalFlow:
    lint: Annotated[tuple[Literal["verilator", "icarus"], ...], Field(max_length=2)] = ("verilator", "icarus")
    simulator: Simulator = "icarus"
    fallback_simulator: Simulator | None = "verilator"
    synthesis: SynthOptions = field(default_factory=SynthOptions)
    timing: TimingOptions = field(default_factory=TimingOptions)
    limits: Limits = field(default_factory=Limits)
    simulation_time_s: Positive = 60.0


def load_flow(path: Path = DEFAULT_FLOW) -> EvalFlow:
    """Read an evaluation flow; a bad value is an error at its line."""
    return load_config(path, EvalFlow)[0]
