"""Coverage targets and the pass rule: CVDP's per-metric targets per design, LLM4Cov's verdict."""

from __future__ import annotations

from pathlib import Path

from hdlrl.cover.coverage_yaml import load_coverage_targets


def design_targets(flow_targets: dict[str, float], design_root: Path, has_covergroups: bool) -> dict[str, float]:
    """The flow's targets, each overridden where the design's coverage.yaml names the metric;
    no functional target for a design without covergroups."""
    targets = {**flow_targets, **load_coverage_targets(design_root)}
    return {metric: target for metric, target in targets.items() if metric != "functional" or has_covergroups}


def target_met(measured: float | None, target: float) -> bool:
    """A target holds when its metric was measured and reaches it: one not measured meets none."""
    return measured is not None and measured >= target - 1e-12


def targets_met(fractions: dict[str, float | None], targets: dict[str, float]) -> bool:
    """Every target holds (LLM4Cov's pass rule)."""
    return all(target_met(fractions.get(metric), target) for metric, target in targets.items())
