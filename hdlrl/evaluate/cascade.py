"""The evaluation cascade: screen, lint, simulate, synthesise, time; stop at the first failure.

Each stage is cheaper than the next and filters what the next would waste time on, so a
broken candidate costs a lint, not a synthesis. The reason of a failure is one line: the
syntax error with its line, or the first failing testbench line.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.lint import LintResult, linters
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sim import SimResult, simulator
from hdlrl.eda.sim.cocotb_bench import CocotbSimulator
from hdlrl.eda.sta import analyzer
from hdlrl.eda.synth.yosys import YosysSynthesizer
from hdlrl.eda.toolchain import tool_versions
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.eval_flow import EvalFlow
from hdlrl.evaluate.result import PPA, EvalResult, ToolCall
from hdlrl.evaluate.staging import ViewRefusal, build_view, stage_scratch
from hdlrl.hdl.screen import decode_source, screen_source
from hdlrl.pdk import Pdk

TOOLS = ("iverilog", "vvp", "verilator", "yosys", "sta", "openroad", "bwrap")
DESIGN_VIEW = "design"  # the view's file name: view/design.v


def run_testbench(design: Design, runner: ToolRunner, rtl: list[Path], testbench: list[Path],
                  includes: list[Path], flow: EvalFlow, simulator_name: str | None = None) -> SimResult:
    """Simulate the staged design with its testbench on the chosen simulator.

    The choice is `simulator_name`, else the design's own (the one its reference passes on),
    else the flow's; without a design choice, a Verilog testbench the primary simulator cannot
    compile is tried on the fallback simulator. A cocotb testbench has no fallback: it runs on
    Icarus only (`hdlrl.eda.sim.cocotb_bench`).
    """
    limits = replace(flow.limits, time_s=flow.simulation_time_s)
    sources = testbench + rtl
    primary = simulator_name or design.testbench.simulator or flow.simulator
    if design.testbench.kind == "cocotb":
        return CocotbSimulator(primary).simulate(runner, sources, design.testbench, includes, limits)
    simulation = simulator(primary).simulate(runner, sources, design.testbench, includes, limits)
    fallback_name = None if simulator_name or design.testbench.simulator else flow.fallback_simulator
    if not simulation.compiled and fallback_name and fallback_name != primary:
        fallback = simulator(fallback_name).simulate(runner, sources, design.testbench, includes, limits)
        if fallback.compiled:
            if not fallback.passed:
                fallback.reason += f" (on {fallback_name}; {primary}: {simulation.reason})"
            return fallback
        simulation.reason += f" (and {fallback_name}: {fallback.reason})"
    return simulation


def evaluate(design: Design, pdk: Pdk, flow: EvalFlow, sandbox: bool | None = None,
             keep_scratch: Path | None = None, with_ppa: bool = True, ppa_only: bool = False) -> EvalResult:
    """Run the whole cascade on `design` (whose `rtl` may be a candidate) in a fresh scratch dir.

    `with_ppa=False` stops once the testbench passed (verified, without a PPA): what judging
    a mutant by the testbench alone needs. `ppa_only=True` skips lint and the testbench: for RTL
    the gate has verified already, measured again under another synthesis recipe.
    """
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix=f"hdlrl-{design.name}-")) if keep_scratch is None else keep_scratch
    runner = ToolRunner(scratch, flow.limits, sandbox=sandbox, readable=(pdk.liberty,))
    result = EvalResult(design.name, design.top, pdk.name, False, "screen", "",
                        tool_versions=tool_versions(TOOLS), sandboxed=runner.sandboxed)
    try:
        _run_stages(design, pdk, flow, runner, result, with_ppa, ppa_only)
    finally:
        result.tool_calls = [ToolCall(run.argv, run.wall_s, run.returncode) for run in runner.history]
        result.timed_out = any(run.timed_out for run in runner.history)
        result.wall_s = time.perf_counter() - started
        if keep_scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return result


def screen_design(design: Design) -> str:
    """Why the design's untrusted sources are refused before preprocessing, or "" when the
    preprocessor may read them (the view is screened again, `build_view`)."""
    try:
        for path in design.rtl:
            screen_source(path, design.root, design.include_dirs)
        for path in design.testbench.sources:
            decode_source(path)
    except HdlrlError as error:
        return str(error)
    return ""


def lint_sources(runner: ToolRunner, rtl: list[Path], top: str, includes: list[Path],
                 flow: EvalFlow) -> list[LintResult]:
    """The flow's linters in order, stopping after the first that fails (the last result).

    A linter that fails only on constructs it does not support hands the decision to the next
    one, with a warning; the last linter always decides, so nothing goes unlinted."""
    chosen = {linter.name: linter for linter in linters()}
    results = []
    for position, name in enumerate(flow.lint):
        results.append(chosen[name].lint(runner, rtl, top, includes))
        if results[-1].unsupported and position + 1 < len(flow.lint):
            warnings.warn(f"{name} lint: {results[-1].reason}; {flow.lint[position + 1]} decides", stacklevel=2)
            continue
        if not results[-1].ok:
            break
    return results


def measure_ppa(runner: ToolRunner, rtl: list[Path], design: Design, includes: list[Path], pdk: Pdk,
                flow: EvalFlow, result: EvalResult) -> None:
    """Synthesise and time into `result`: its stage, reason and PPA (verified when both pass)."""
    result.stage = "synthesize"
    synthesis = YosysSynthesizer().synthesize(runner, rtl, design.top, includes, pdk, flow.synthesis)
    result.synthesis = synthesis
    if not synthesis.ok:
        result.reason = synthesis.reason
        return
    result.stage = "timing"
    timing = analyzer(flow.timing.analyzer).analyze(runner, synthesis.netlist, design, pdk, flow.timing)
    result.timing = timing
    if not timing.ok:
        result.reason = timing.reason
        return
    result.ppa = PPA(synthesis.area_um2, timing.delay_ns, timing.power_mw)
    result.stage = "done"
    result.verified = True


def _run_stages(design: Design, pdk: Pdk, flow: EvalFlow, runner: ToolRunner, result: EvalResult,
                with_ppa: bool, ppa_only: bool) -> None:
    result.reason = screen_design(design)
    if result.reason:
        return
    rtl, testbench, includes = stage_scratch(design, runner.scratch)
    try:
        view, result.preprocessing = build_view(runner, rtl, includes, DESIGN_VIEW)
    except ViewRefusal as refusal:
        result.reason = str(refusal)
        return
    rtl = [view]
    if ppa_only:
        measure_ppa(runner, rtl, design, includes, pdk, flow, result)
        return

    result.stage = "lint"
    result.lint = lint_sources(runner, rtl, design.top, includes, flow)
    if result.lint and not result.lint[-1].ok:
        result.reason = result.lint[-1].reason
        return

    result.stage = "simulate"
    simulation = run_testbench(design, runner, rtl, testbench, includes, flow)
    result.simulation = simulation
    if not simulation.passed:
        result.reason = simulation.reason
        return
    if with_ppa:
        measure_ppa(runner, rtl, design, includes, pdk, flow, result)
    else:
        result.stage, result.verified = "done", True
