"""How strong is the gate? Mutants it kills, against what the design's testbench alone kills.

For one design: N seeded mutants and the equivalence-preserving rewrites are each judged by
the testbench alone (the cascade through simulation) and by the whole gate. Mutants the gate
accepts with a *proof* are equivalent to the reference and left out of the rates; every
other mutant the gate accepts is a survivor. The reference itself and the rewrites must be
accepted: each rejection of one is a false rejection.

    kill_rate_gate      = killed_by_gate      / (mutants - equivalent)
    kill_rate_testbench = killed_by_testbench / (mutants - equivalent)
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from hdlrl.design import Design
from hdlrl.evaluate.executors import Executor
from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.hdl.equivalent_rewrites import equivalent_rewrites
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import check_round_trip, make_mutants
from hdlrl.pdk import Pdk
from hdlrl.verify.gate_flow import GateFlow
from hdlrl.verify.job import GateJob


@dataclass
class Survivor:
    """A non-equivalent mutant the gate accepted: where the gate is weak."""

    design: str
    operator: str
    file: str
    line: int
    description: str
    level: str


@dataclass
class GateScore:
    design: str
    mutants: int = 0
    equivalent: int = 0
    killed_by_testbench: int = 0
    killed_by_gate: int = 0
    kill_rate_testbench: float = 0.0
    kill_rate_gate: float = 0.0
    rewrites: int = 0  # the reference plus the equivalence-preserving rewrites judged
    false_rejections: int = 0
    false_rejection_reasons: list[str] = field(default_factory=list)
    survivors: list[Survivor] = field(default_factory=list)
    seed: int = 0
    gate_median_s: float = 0.0
    gate_p90_s: float = 0.0
    tool_median_s: float = 0.0  # of the same verdicts: the time spent inside the EDA tools alone
    tool_p90_s: float = 0.0
    gate_seconds: list[float] = field(default_factory=list)  # each verdict's wall time, first run
    tool_seconds: list[float] = field(default_factory=list)  # each verdict's time inside the tools
    error: str = ""  # why this design could not be scored (its mutants could not be made)

    def rate(self) -> None:
        """Fill the kill rates and time percentiles from the counts and times."""
        live = self.mutants - self.equivalent
        self.kill_rate_testbench = self.killed_by_testbench / live if live else 1.0
        self.kill_rate_gate = self.killed_by_gate / live if live else 1.0
        self.gate_median_s = _percentile(self.gate_seconds, 0.5)
        self.gate_p90_s = _percentile(self.gate_seconds, 0.9)
        self.tool_median_s = _percentile(self.tool_seconds, 0.5)
        self.tool_p90_s = _percentile(self.tool_seconds, 0.9)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[int(fraction * (len(ordered) - 1))] if ordered else 0.0


def score_design(design: Design, count: int, pdk: Pdk, flow: GateFlow, executor: Executor,
                 cache_path: Path | None, seed: int = 0, sandbox: bool | None = None,
                 progress: bool = True) -> GateScore:
    """Judge `count` mutants of `design` and its equivalent rewrites by testbench and by gate.

    Mutants are printed by pyverilog, so first check that printing the unmutated RTL keeps it
    passing its testbench: otherwise every kill could be the printer's, not the mutation's.
    """
    check_round_trip(design, lambda candidate: run_job(
        EvalJob(candidate, pdk, flow.evaluation, cache_path, sandbox, with_ppa=False)).verified)
    mutants = make_mutants(design, count, seed)
    rewrites = equivalent_rewrites(design)
    with tempfile.TemporaryDirectory(prefix=f"hdlrl-score-{design.name}-") as folder:
        mutant_sources = [write_mutant(design, mutant, Path(folder) / f"mutant_{mutant.index:03d}")
                          for mutant in mutants]
        rewrite_sources = [design.rtl] + [write_mutant(design, rewrite, Path(folder) / f"rewrite_{number:03d}")
                                          for number, rewrite in enumerate(rewrites)]
        jobs: list = [EvalJob(design.with_rtl(sources), pdk, flow.evaluation, cache_path, sandbox, with_ppa=False)
                      for sources in mutant_sources]
        jobs += [GateJob(design, sources, pdk, flow, cache_path, sandbox, with_ppa=False)
                 for sources in mutant_sources + rewrite_sources]
        results = list(tqdm(executor.map(jobs), total=len(jobs), desc=f"gate-score {design.name}",
                            unit="run", leave=False, disable=not progress))
    testbench_results = results[: len(mutants)]
    mutant_verdicts = results[len(mutants): 2 * len(mutants)]
    rewrite_verdicts = results[2 * len(mutants):]

    score = GateScore(design.name, mutants=len(mutants), rewrites=len(rewrite_verdicts), seed=seed)
    for mutant, by_testbench, verdict in zip(mutants, testbench_results, mutant_verdicts):
        if verdict.accepted and verdict.level == "proven":
            score.equivalent += 1
            continue
        score.killed_by_testbench += not by_testbench.verified
        score.killed_by_gate += not verdict.accepted
        if verdict.accepted:
            score.survivors.append(Survivor(design.name, mutant.operator, mutant.file, mutant.line, mutant.description,
                                            verdict.level))
    for name, verdict in zip(["reference"] + [rewrite.name for rewrite in rewrites], rewrite_verdicts):
        if not verdict.accepted:
            score.false_rejections += 1
            score.false_rejection_reasons.append(f"{name}: {verdict.stage}: {verdict.reason}")
    score.gate_seconds = [round(verdict.wall_s, 3) for verdict in mutant_verdicts + rewrite_verdicts]
    score.tool_seconds = [round(verdict.tool_s, 3) for verdict in mutant_verdicts + rewrite_verdicts]
    score.rate()
    return score


def pooled_score(scores: list[GateScore]) -> GateScore:
    """All designs as one: counts summed, rates and time percentiles over every candidate."""
    total = GateScore("all", seed=scores[0].seed if scores else 0)
    for score in scores:
        for name in ("mutants", "equivalent", "killed_by_testbench", "killed_by_gate", "rewrites",
                     "false_rejections"):
            setattr(total, name, getattr(total, name) + getattr(score, name))
        total.false_rejection_reasons += [f"{score.design}: {reason}" for reason in score.false_rejection_reasons]
        total.survivors += score.survivors
        total.gate_seconds += score.gate_seconds
        total.tool_seconds += score.tool_seconds
    total.rate()
    return total
