"""The report of `hdlrl optimize-suite`: every design under every arm and seed, and best-so-far curves.

An arm is one way of spending the same budget (`hdlrl.optimize.arms`): TTT,
the same search frozen, best-of-N and random-action search. The table gives each design's PPA
ratio per arm and seed with the geometric mean below; the curves give, per arm, the geometric
mean over the designs of the best ratio reached after c gate calls (averaged over the seeds),
so arms are compared at equal numbers of calls, not of steps.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.checkpoint import HISTORY
from hdlrl.html_page import Series, html_page, html_table, svg_chart
from hdlrl.optimize.report import load_history
from hdlrl.text_tables import markdown_table

COLOURS = {"ttt": "#d62728", "frozen": "#1f77b4", "best-of-n": "#7f7f7f", "random": "#2ca02c",
           "ttt-no-action-features": "#ff7f0e", "ttt-no-state-features": "#8c564b"}


@dataclass
class ArmRun:
    """One arm with one seed over the suite's designs."""

    arm: str
    seed: int
    folder: Path
    summaries: list[dict]
    failures: list[str] = field(default_factory=list)

    def geomean(self) -> float:
        return geometric_mean([summary["ppa_product_ratio"] for summary in self.summaries])

    def to_json(self) -> dict:
        return {"arm": self.arm, "seed": self.seed, "designs": self.summaries,
                "geomean_ppa_product_ratio": self.geomean(), "failures": self.failures}


def geometric_mean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(value) for value in values) / len(values)) if values else 1.0


def best_so_far(run_dir: Path, proven_only: bool, calls: int) -> list[float]:
    """The best PPA ratio after each of `calls` gate calls (1.0: the original); a run that
    stopped early keeps its last value."""
    best, curve = 1.0, []
    for row in load_history(run_dir / HISTORY).candidates:
        if not row.get("gate_call"):
            continue
        if row["accepted"] and (row["level"] == "proven" or not proven_only):
            best = min(best, row["ppa_ratio"])
        curve.append(best)
    return (curve + [best] * calls)[:calls]


def arm_curve(runs: list[ArmRun], calls: int) -> list[tuple[float, float]]:
    """(c, geometric mean over designs of best-so-far after c calls), averaged over the seeds."""
    per_seed = []
    for run in runs:
        curves = [best_so_far(run.folder / f"{summary['design']}-seed{run.seed}",
                              summary["best_levels"] == "proven only", calls) for summary in run.summaries]
        per_seed.append([geometric_mean([curve[index] for curve in curves]) for index in range(calls)])
    return [(index + 1, sum(seed[index] for seed in per_seed) / len(per_seed)) for index in range(calls)]


def _table(runs: list[ArmRun]) -> tuple[list[str], list[list]]:
    """Designs down, arm/seed across, the geometric mean last."""
    headers = ["design"] + [f"{run.arm} s{run.seed}" for run in runs]
    designs = list(dict.fromkeys(summary["design"] for run in runs for summary in run.summaries))
    ratios = [{summary["design"]: summary["ppa_product_ratio"] for summary in run.summaries} for run in runs]
    rows = [[design] + [ratio.get(design) for ratio in ratios] for design in designs]
    rows.append(["geomean"] + [run.geomean() for run in runs])
    rows.append(["gate calls"] + [sum(summary["calls"]["gate_calls"] for summary in run.summaries) for run in runs])
    rows.append(["syntheses"] + [sum(summary["calls"]["syntheses"] for summary in run.summaries) for run in runs])
    return headers, rows


def _by_arm(runs: list[ArmRun]) -> dict[str, list[ArmRun]]:
    arms: dict[str, list[ArmRun]] = {}
    for run in runs:
        arms.setdefault(run.arm, []).append(run)
    return arms


def write_suite_report(path: Path, runs: list[ArmRun], budget: int) -> None:
    """Markdown for a `.md` path, else a self-contained HTML page with the best-so-far curves."""
    headers, rows = _table(runs)
    failures = [f"{run.arm} s{run.seed}: {failure}" for run in runs for failure in run.failures]
    if path.suffix == ".md":
        path.write_text(markdown_table(headers, rows) + "\n" + "".join(f"\n- not optimised: {failure}"
                                                                      for failure in failures) + "\n")
        return
    series = [Series(arm, arm_curve(arm_runs, budget), COLOURS.get(arm, "#9467bd"), "line")
              for arm, arm_runs in _by_arm(runs).items()]
    body = ["<h2>PPA product ratio (best / reference) per design</h2>", html_table(headers, rows),
            "<h2>Best so far against gate calls</h2>",
            svg_chart(series, "gate calls", "geomean best PPA ratio", "best so far")]
    body += [f"<p>not optimised: {html.escape(failure)}</p>" for failure in failures]
    path.write_text(html_page("hdlrl optimize-suite", body))
