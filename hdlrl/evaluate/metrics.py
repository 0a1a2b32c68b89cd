"""Metrics JSON in the shape of OpenROAD-flow-scripts' `metrics.json`.

ORFS names each metric `<stage>__<category>__<name>[__<qualifier>]`, with SI-free units
as its reports print them (um^2, ns, W). Using the same keys lets ORFS dashboards and
scripts read hdlrl results unchanged.
"""

from __future__ import annotations

from hdlrl import __version__
from hdlrl.evaluate.result import EvalResult


def orfs_metrics(result: EvalResult) -> dict[str, object]:
    metrics: dict[str, object] = {
        "run__flow__version": f"hdlrl {__version__}",
        "run__flow__design": result.design,
        "run__flow__platform": result.pdk,
        "run__flow__verified": result.verified,
        "run__flow__stage": result.stage,
        "run__flow__reason": result.reason,
    }
    metrics.update({f"run__tool__{tool}__version": version for tool, version in sorted(result.tool_versions.items())})
    if result.simulation:
        metrics["simulate__flow__simulator"] = result.simulation.simulator
        metrics["simulate__flow__passed"] = result.simulation.passed
    if result.synthesis and result.synthesis.ok:
        metrics["synth__design__instance__area__stdcell"] = result.synthesis.area_um2
        metrics["synth__design__instance__count__stdcell"] = result.synthesis.cell_count
        metrics["synth__design__instance__count__by_type"] = dict(sorted(result.synthesis.cells.items()))
    if result.timing and result.timing.ok:
        timing = result.timing
        metrics.update({
            "sta__clock__period": timing.period_ns,
            "sta__timing__setup__ws": timing.wns_ns,
            "sta__timing__setup__tns": timing.tns_ns,
            "sta__timing__critical_path__delay": timing.delay_ns,
            "sta__power__internal__total": timing.internal_power_mw / 1e3,
            "sta__power__switching__total": timing.switching_power_mw / 1e3,
            "sta__power__leakage__total": timing.leakage_power_mw / 1e3,
            "sta__power__total": timing.power_mw / 1e3,
        })
    return metrics
