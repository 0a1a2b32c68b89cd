"""The configuration of `hdlrl cover` (`flows/cover.yaml`) as a typed dataclass."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.errors import HdlrlError
from hdlrl.evaluate.flow import FLOWS_DIR
from hdlrl.optimize.advantages import METHODS
from hdlrl.optimize.kl_control import KlControlConfig
from hdlrl.yamlfile import load_yaml

DEFAULT_COVER_FLOW = FLOWS_DIR / "cover.yaml"
COVER_METRICS = ("line", "branch", "toggle", "functional")
OBJECTIVES = ("coverage", "mutants")


@dataclass(frozen=True)
class CoverFlow:
    budget: int = 200
    group_size: int = 8
    random_cycles: int = 256
    max_cycles: int = 4096
    reset_cycles: int = 3
    simulator: str = "verilator"
    workers: int = 2
    targets: dict[str, float] = field(default_factory=lambda: {"line": 0.95, "branch": 0.90, "functional": 0.95})
    stop_at_targets: bool = True
    reward_weights: dict[str, float] = field(default_factory=lambda: {"line": 1.0, "branch": 1.0, "toggle": 0.5,
                                                                        "functional": 1.0})
    mutant_weight: float = 2.0
    mutants: int = 30
    mutant_seed: int = 0
    equivalence_time_s: float = 30
    proof_time_s: float = 10
    unreachable_budget_s: float = 120
    advantage: str = "entropic"
    feedback_lines: int = 5
    objective: str = "coverage"  # set by --objective; not in the YAML
    kl_control: KlControlConfig = field(default_factory=KlControlConfig)


def load_cover_flow(path: Path = DEFAULT_COVER_FLOW) -> CoverFlow:
    """Read a cover flow; unknown keys and bad values are errors with their line."""
    document = load_yaml(path)
    data = dict(document.data or {})
    known = set(CoverFlow.__dataclass_fields__) - {"objective"}
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown cover option (known: {', '.join(sorted(known))})")
    for key in ("budget", "group_size", "random_cycles", "max_cycles", "workers"):
        if not isinstance(data.get(key, 1), int) or data.get(key, 1) < 1:
            raise document.error(key, "must be a positive integer")
    if data.get("advantage", "entropic") not in METHODS:
        raise document.error("advantage", f"{data['advantage']!r} is not one of {', '.join(METHODS)}")
    if data.get("simulator", "verilator") not in ("verilator", "icarus"):
        raise document.error("simulator", "must be verilator or icarus")
    for key in ("targets", "reward_weights"):
        values = data.get(key) or {}
        for metric, value in values.items():
            if metric not in COVER_METRICS:
                raise document.error(f"{key}.{metric}", f"unknown metric (known: {', '.join(COVER_METRICS)})")
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise document.error(f"{key}.{metric}", "must be a non-negative number or null")
        data[key] = {metric: float(value) for metric, value in values.items() if value is not None}
    try:
        return CoverFlow(kl_control=KlControlConfig(**(data.pop("kl_control", None) or {})), **data)
    except TypeError as error:
        raise HdlrlError(f"invalid cover option: {error}", path) from None
