"""`hdlrl cover-compare`: policies side by side on coverage per simulation, and their combinations.

Every policy (an expert: a strategy, a seed, an LM checkpoint) runs the full budget on every
design with every seed, without stopping at the targets, so the curves have the same length.
The curves are one number: the reachable items hit over all metrics (line, branch and
toggle points, functional bins), the quantity the reward counts.

Reported per design:
- each policy's final coverage (mean over seeds), per metric too, the simulations it needed to
  reach 95 % of the functional and the branch bins, and those it needed to reach the
  baseline's final coverage, against the simulations the baseline itself took to get there
  (mean over seeds; the CDG criterion: at most half);
- each expert's strengths: the items it reached that no other expert did;
- two combinations of the experts (CHORUS): the *union* of their stimulus sets (everything
  any expert's corpus reached), and *routing* (the expert that led after the first step,
  given the whole budget: what a router that probes each expert once would pick), set
  against the best single expert.
"""

from __future__ import annotations

import html
import json
import statistics
from dataclasses import dataclass, replace
from pathlib import Path

from hdlrl.cover.cover_flow import CoverFlow
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.report import svg_coverage_comparison
from hdlrl.design import Design
from hdlrl.html_page import html_page
from hdlrl.cover.directed_policy import stimulus_policy


@dataclass
class ExpertRun:
    policy: str
    seed: int
    curve: list[float]  # overall coverage after each simulation
    reached: set[str]  # the items its corpus reached
    total: int  # reachable items
    fractions: dict[str, float | None]  # the final fraction per metric, over its reachable points
    to_95: int | None  # the first simulation with 95 % of the functional and the branch bins; None: never

    @property
    def final(self) -> float:
        return self.curve[-1] if self.curve else 0.0


def run_expert(design: Design, policy_spec: str, seed: int, flow: CoverFlow, run_dir: Path) -> ExpertRun:
    """One policy, one seed, the whole budget (not stopping at the targets)."""
    run = CoverRun(design, stimulus_policy(policy_spec, flow), replace(flow, stop_at_targets=False), run_dir, seed,
                   progress=False)
    run.run()
    points = run.curve()
    to_95 = next((point["simulations"] for point in points
                  if all(point[metric] is None or point[metric] >= 0.95 for metric in ("functional", "branch"))), None)
    return ExpertRun(policy_spec, seed, [point["overall"] for point in points],
                     run.covered() - set(run.state.unreachable),
                     sum(run.totals().values()) - len(run.state.unreachable), run.fractions(), to_95)


def simulations_to_reach(curve: list[float], level: float) -> int | None:
    """The first simulation (1-based) at which the curve reaches `level`; None if it never does."""
    return next((index + 1 for index, value in enumerate(curve) if value >= level - 1e-12), None)


def compare_design(design: Design, policies: list[str], seeds: list[int], flow: CoverFlow, out: Path,
                   baseline: str = "random") -> dict:
    """Every policy and seed on `design`; the comparison and the combinations as a dict."""
    runs = [run_expert(design, policy, seed, flow, out / design.name / f"{policy.replace(':', '_')}-seed{seed}")
            for policy in policies for seed in seeds]
    by_policy = {policy: [run for run in runs if run.policy == policy] for policy in policies}
    baseline_final = statistics.mean(run.final for run in by_policy[baseline]) if baseline in by_policy else None
    policy_rows = {}
    for policy, policy_runs in by_policy.items():
        needed = [simulations_to_reach(run.curve, baseline_final) for run in policy_runs] if baseline_final else []
        policy_rows[policy] = {
            "final_mean": statistics.mean(run.final for run in policy_runs),
            "finals": [run.final for run in policy_runs],
            "simulations_to_own_final": [simulations_to_reach(run.curve, run.final) for run in policy_runs],
            "simulations_to_baseline_final": needed,
            "curves": [run.curve for run in policy_runs],
            "final_metrics": [run.fractions for run in policy_runs],  # per seed: line, branch, toggle, functional
            "simulations_to_95": [run.to_95 for run in policy_runs],  # functional and branch both
        }
    if baseline in policy_rows:
        # The CDG criterion: the baseline's final coverage in at most half the simulations the baseline took.
        baseline_took = statistics.mean(policy_rows[baseline]["simulations_to_own_final"])
        for policy, row in policy_rows.items():
            row["within_half_of_baseline"] = (policy != baseline and all(
                needed is not None and needed <= baseline_took / 2 for needed in row["simulations_to_baseline_final"]))
    everything = set().union(*(run.reached for run in runs))
    total = max(run.total for run in runs)
    best = max(runs, key=lambda run: run.final)
    router_pick = max(runs, key=lambda run: (run.curve[flow.group_size - 1] if len(run.curve) >= flow.group_size
                                             else run.final))
    strengths = {f"{run.policy}-seed{run.seed}": sorted(run.reached - set().union(
        *(other.reached for other in runs if other is not run))) for run in runs}
    return {
        "design": design.name, "budget": flow.budget, "seeds": seeds, "baseline": baseline,
        "baseline_final": baseline_final, "policies": policy_rows,
        "experts": {"best_single": {"expert": f"{best.policy}-seed{best.seed}", "coverage": best.final},
                    "union": {"coverage": len(everything) / total if total else 1.0,
                              "beats_best_single": len(everything) / total > best.final + 1e-12 if total else False},
                    "routing": {"expert": f"{router_pick.policy}-seed{router_pick.seed}",
                                "coverage": router_pick.final},
                    "strengths": strengths},
    }


def write_comparison(results: list[dict], out: Path) -> None:
    """compare.json, and compare.html: per design the overall coverage against simulations,
    every policy's seeds and their mean."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(results, indent=1))
    body = []
    for result in results:
        curves = {policy: [[{"simulations": index + 1, "overall": value} for index, value in enumerate(curve)]
                           for curve in row["curves"]] for policy, row in result["policies"].items()}
        body += [f"<h2>{html.escape(result['design'])}</h2>", svg_coverage_comparison(curves, "overall")]
    (out / "compare.html").write_text(html_page("hdlrl cover-compare", body))
