"""Result types of one evaluation: the PPA and everything the cascade learned on the way."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from hdlrl.design import Objective
from hdlrl.eda.lint import LintResult
from hdlrl.eda.sim import SimResult
from hdlrl.eda.sta import TimingResult
from hdlrl.eda.synth import SynthResult
from hdlrl.hdl.view import PreprocessRecord
from hdlrl.serialize import JsonRecord, to_jsonable

STAGES = ("screen", "lint", "simulate", "synthesize", "timing", "done")


@dataclass(frozen=True)
class PPA:
    area_um2: float
    delay_ns: float
    power_mw: float

    def product(self, objective: Objective = Objective()) -> float:
        """area^a * delay^d * power^p with the design's objective exponents."""
        return (self.area_um2 ** objective.area) * (self.delay_ns ** objective.delay) * (self.power_mw ** objective.power)

    def normalised_to(self, reference: "PPA", objective: Objective = Objective()) -> float:
        """This PPA product over the reference's: below 1 is an improvement."""
        denominator = reference.product(objective)
        return self.product(objective) / denominator if denominator > 0 else math.inf


@dataclass
class ToolCall:
    """One tool invocation as it ran, kept so a benchmark can replay it without hdlrl."""

    argv: list[str]
    wall_s: float
    returncode: int


@dataclass
class EvalResult(JsonRecord):
    design: str
    top: str
    pdk: str
    verified: bool  # every stage passed: the testbench agrees and the PPA is measured
    stage: str  # the stage that failed, or "done"
    reason: str  # one line; empty when verified
    ppa: PPA | None = None
    lint: list[LintResult] = field(default_factory=list)
    simulation: SimResult | None = None
    synthesis: SynthResult | None = None
    timing: TimingResult | None = None
    preprocessing: PreprocessRecord | None = None  # how the one view every tool read was made
    tool_versions: dict[str, str] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)
    sandboxed: bool = False
    timed_out: bool = False  # a tool hit its time limit: no verdict on the design, so never cached
    wall_s: float = 0.0
    cache_key: str = ""
    cached: bool = False

    def summary(self) -> dict:
        """The machine-readable answer of `hdlrl eval --json`."""
        return {
            "design": self.design, "top": self.top, "pdk": self.pdk, "verified": self.verified,
            "stage": self.stage, "reason": self.reason,
            "ppa": to_jsonable(self.ppa) if self.ppa else None,
            "simulator": self.simulation.simulator if self.simulation else None,
            "cells": self.synthesis.cell_count if self.synthesis and self.synthesis.ok else None,
            "wns_ns": self.timing.wns_ns if self.timing and self.timing.ok else None,
            "tns_ns": self.timing.tns_ns if self.timing and self.timing.ok else None,
            "preprocessing": to_jsonable(self.preprocessing) if self.preprocessing else None,
            "sandboxed": self.sandboxed, "timed_out": self.timed_out, "cached": self.cached,
            "wall_s": round(self.wall_s, 4),
            "cache_key": self.cache_key,
        }
