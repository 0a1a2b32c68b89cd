"""What every timing backend is and returns, and the Tcl they share: `TimingAnalyzer`,
`TimingOptions`, `TimingResult`, `timing_script` (the script both OpenSTA and OpenROAD run)
and `parse_timing_output` (which reads its log). The conventions are in `hdlrl.eda.sta`."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hdlrl.config import Bounded, Positive
from hdlrl.design import Design
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import ToolRunner
from hdlrl.pdk import Pdk

VIRTUAL_CLOCK = "hdlrl_virtual_clock"


@dataclass(frozen=True)
class TimingOptions:
    analyzer: Literal["auto", "opensta", "openroad"] = "auto"  # auto: openroad where installed
    combinational_period_ns: Positive = 10.0  # period of the virtual clock of combinational designs
    activity: Bounded(2.0) = 0.1  # switching activity of every net without annotation, per clock period


@dataclass
class TimingResult:
    ok: bool
    reason: str = ""
    tool: str = ""
    period_ns: float = 0.0
    delay_ns: float = 0.0
    wns_ns: float = 0.0
    tns_ns: float = 0.0
    power_mw: float = 0.0
    internal_power_mw: float = 0.0
    switching_power_mw: float = 0.0
    leakage_power_mw: float = 0.0
    constrained_paths: int = 0
    wall_s: float = 0.0


class TimingAnalyzer(ABC):
    """One timing backend; `name` is its key in `hdlrl.eda.sta.ANALYZERS`."""

    name: str

    @abstractmethod
    def analyze(self, runner: ToolRunner, netlist: Path, design: Design, pdk: Pdk,
                options: TimingOptions) -> TimingResult:
        """Time and power `netlist` (the mapped top `design.top`) against `pdk`."""


def timing_script(netlist: Path, design: Design, pdk: Pdk, options: TimingOptions) -> str:
    """The Tcl script both OpenSTA and OpenROAD run; it prints `HDLRL_*` lines to parse."""
    lines = [f"read_liberty {pdk.liberty}", f"read_verilog {netlist}", f"link_design {design.top}"]
    if design.clocks:
        for clock in design.clocks:
            lines.append(f"create_clock -name {clock.name} -period {clock.period_ns} [get_ports {{{clock.name}}}]")
        reference = design.clocks[0].name
        clock_ports = " ".join(clock.name for clock in design.clocks)
        lines.append(f"set data_inputs [delete_from_list [all_inputs] [get_ports {{{clock_ports}}}]]")
        period = min(clock.period_ns for clock in design.clocks)
    else:
        reference = VIRTUAL_CLOCK
        period = options.combinational_period_ns
        lines.append(f"create_clock -name {VIRTUAL_CLOCK} -period {period}")
        lines.append("set data_inputs [all_inputs]")
    lines += [
        f"set_input_delay 0 -clock {reference} $data_inputs",
        f"set_output_delay 0 -clock {reference} [all_outputs]",
    ]
    if design.reset and design.reset.kind == "async":
        lines.append(f"set_false_path -from [get_ports {{{design.reset.name}}}]")
    lines += [
        f"set_power_activity -global -activity {options.activity} -duty 0.5",
        "set worst_slack 1e30",
        "set paths 0",
        "foreach path_end [find_timing_paths -path_delay max -group_count 1 -endpoint_count 1] {",
        "  incr paths",
        "  set slack [$path_end slack]",
        "  if {$slack < $worst_slack} { set worst_slack $slack }",
        "}",
        'puts "HDLRL_PATHS $paths"',
        'puts "HDLRL_WORST_SLACK_S $worst_slack"',
        f'puts "HDLRL_PERIOD_NS {period}"',
        "report_tns -digits 6",
        "report_power -digits 9",
    ]
    return "\n".join(lines) + "\n"


_POWER_TOTAL = re.compile(r"^Total\s+([\d.eE+-]+)\s+([\d.eE+-]+)\s+([\d.eE+-]+)\s+([\d.eE+-]+)", re.MULTILINE)


def parse_timing_output(tool: str, output: str) -> TimingResult:
    """Read the `HDLRL_*` lines, `report_tns` and the `report_power` total from a timing log."""
    def value(tag: str) -> float | None:
        match = re.search(rf"^{tag}\s+(\S+)", output, re.MULTILINE)
        return float(match.group(1)) if match else None

    paths, worst_slack_s, period = value("HDLRL_PATHS"), value("HDLRL_WORST_SLACK_S"), value("HDLRL_PERIOD_NS")
    power = _POWER_TOTAL.search(output)
    tns_match = re.search(r"^tns\s+(\S+)", output, re.MULTILINE)
    error = first_error(tool, output, "")
    if error or paths is None or period is None or power is None:
        return TimingResult(False, f"{tool}: {error or 'no timing report produced'}", tool)
    internal, switching, leakage, total = (float(number) * 1e3 for number in power.groups())  # W -> mW
    if paths == 0:
        return TimingResult(False, f"{tool}: no constrained timing path (no logic between inputs, registers "
                            "and outputs: constant outputs, or delays the synthesiser dropped)", tool)
    worst_slack_ns = worst_slack_s * 1e9
    delay, wns = period - worst_slack_ns, min(0.0, worst_slack_ns)
    return TimingResult(True, "", tool, period, delay, wns, float(tns_match.group(1)) if tns_match else 0.0,
                        total, internal, switching, leakage, int(paths))
