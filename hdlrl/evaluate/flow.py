"""The evaluation flow configuration (`flows/eval.yaml`) as a typed, validated dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.eda.runner import Limits
from hdlrl.eda.sta import TimingOptions
from hdlrl.eda.synth.yosys import SynthOptions
from hdlrl.errors import HdlrlError
from hdlrl.yamlfile import load_yaml

FLOWS_DIR = Path(__file__).resolve().parents[2] / "flows"
DEFAULT_FLOW = FLOWS_DIR / "eval.yaml"


@dataclass(frozen=True)
class EvalFlow:
    lint: tuple[str, ...] = ("verilator", "icarus")
    simulator: str = "icarus"
    fallback_simulator: str | None = "verilator"
    synthesis: SynthOptions = field(default_factory=SynthOptions)
    timing_analyzer: str = "auto"
    timing: TimingOptions = field(default_factory=TimingOptions)
    limits: Limits = field(default_factory=Limits)
    simulation_time_s: float = 60.0


def load_flow(path: Path = DEFAULT_FLOW) -> EvalFlow:
    """Read an evaluation flow; unknown keys are errors with their line."""
    document = load_yaml(path)
    data = document.data or {}
    known = {"lint", "simulator", "fallback_simulator", "synthesis", "timing", "limits"}
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown flow option (known: {', '.join(sorted(known))})")
    try:
        timing = dict(data.get("timing") or {})
        limits = dict(data.get("limits") or {})
        return EvalFlow(
            lint=tuple(data.get("lint", EvalFlow.lint)),
            simulator=data.get("simulator", "icarus"),
            fallback_simulator=data.get("fallback_simulator"),
            synthesis=SynthOptions(**(data.get("synthesis") or {})),
            timing_analyzer=timing.pop("analyzer", "auto"),
            timing=TimingOptions(**timing),
            simulation_time_s=float(limits.pop("simulation_time_s", 60.0)),
            limits=Limits(**limits),
        )
    except TypeError as error:
        raise HdlrlError(f"invalid flow option: {error}", path) from None
