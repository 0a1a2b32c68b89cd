"""OpenSTA: the standalone timer, reading the netlist and liberty the synthesiser wrote."""

from __future__ import annotations

from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.diagnostics import emit_warnings, parse_diagnostics
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sta.base import TimingAnalyzer, TimingOptions, TimingResult, parse_timing_output, timing_script
from hdlrl.eda.toolchain import require_tool
from hdlrl.pdk import Pdk


class OpenStaAnalyzer(TimingAnalyzer):
    name = "opensta"
    binary = "sta"
    arguments = ("-no_init", "-no_splash", "-exit")

    def analyze(self, runner: ToolRunner, netlist: Path, design: Design, pdk: Pdk,
                options: TimingOptions) -> TimingResult:
        script = runner.scratch / "timing.tcl"
        script.write_text(timing_script(netlist, design, pdk, options))
        run = runner.run([require_tool(self.binary).path, *self.arguments, script.name])
        emit_warnings(self.name, parse_diagnostics(self.name, run.output))
        if run.fault:
            return TimingResult(False, f"{self.name} {run.fault}", self.name, wall_s=run.wall_s)
        result = parse_timing_output(self.name, run.output)
        result.wall_s = run.wall_s
        return result
