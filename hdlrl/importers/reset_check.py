"""Cross-check an imported reset by simulation: asserted as imported, does every register it
resets take its reset value?

The polarity and kind come from the netlist (`hdlrl.importers.clocking`); this check runs the
reference itself on Icarus, so a misread reset (the wrong level, a reset that only acts while
an enable is high) shows as registers that keep `x` or another value while the reset is held.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sim.icarus import compile_and_run
from hdlrl.hdl.netlist_facts import NetlistFacts

CHECK_TOP = "hdlrl_reset_check"
HELD_CYCLES = 4
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$")  # `q` or `instance.q`
_LINE = re.compile(r"^HDLRL_RESET (?P<name>\S+) (?P<bits>[01xz]+)$")


@dataclass
class ResetCheck:
    ok: bool
    checked: int  # registers compared
    reason: str  # what was held and what differed, one sentence


def _expected(facts: NetlistFacts, reset: dict) -> dict[str, dict[int, int]]:
    """Register -> {bit position: reset value} for the registers the netlist says `reset`'s signal forces
    to a constant on its own, whatever polarity and kind it read: the simulation holds the imported ones."""
    expected: dict[str, dict[int, int]] = {}
    for register in facts.registers:
        for each in register.resets:
            if (each.signal == reset["name"] and each.value is not None and each.overrides_enable
                    and _PATH.match(register.name)):
                bits = expected.setdefault(register.name, {})
                bits.update({position: (each.value >> index) & 1 for index, position in enumerate(register.bits)})
    return expected


def _testbench(top: str, clocks: list[str], reset: dict, registers: list[str]) -> str:
    active, idle = ("1'b1", "1'b0") if reset["polarity"] == "high" else ("1'b0", "1'b1")
    lines = ["`timescale 1ns/1ps", f"module {CHECK_TOP};",
             *(f"  reg {clock} = 1'b0;" for clock in clocks), f"  reg {reset['name']} = {idle};",
             f"  {top} dut(" + ", ".join(f".{name}({name})" for name in [*clocks, reset["name"]]) + ");",
             *(f"  always #5 {clock} = ~{clock};" for clock in clocks),
             "  initial begin", f"    #1 {reset['name']} = {active};", f"    #{10 * HELD_CYCLES};",
             *(f'    $display("HDLRL_RESET {name} %b", dut.{name});' for name in registers),
             "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def check_reset(runner: ToolRunner, rtl: Path, top: str, clocks: list[str], reset: dict,
                facts: NetlistFacts) -> ResetCheck:
    """Hold `reset` active for `HELD_CYCLES` clock cycles (other inputs left floating) and compare
    every register it resets with the value the netlist says it resets to."""
    expected = _expected(facts, reset)
    if not expected:
        return ResetCheck(True, 0, f"no register is reset to a constant by {reset['name']} alone: nothing to check")
    bench = runner.scratch / f"{CHECK_TOP}.v"
    bench.write_text(_testbench(top, clocks, reset, sorted(expected)))
    run = compile_and_run(runner, [bench, rtl], CHECK_TOP)
    if not run.ok:
        return ResetCheck(False, 0, f"the reset check did not run: {run.output.strip().splitlines()[-1:] or run.fault}")
    seen = {match.group("name"): match.group("bits") for match in map(_LINE.match, run.output.splitlines()) if match}
    wrong = []
    for name, bits in sorted(expected.items()):
        shown = seen.get(name, "")
        if any(position >= len(shown) or shown[len(shown) - 1 - position] != str(value)
               for position, value in bits.items()):
            wrong.append(f"{name}={shown or '?'}")
    held = f"{reset['name']} held {reset['polarity']} for {HELD_CYCLES} cycles"
    if wrong:
        return ResetCheck(False, len(expected), f"{held}, yet {len(wrong)} of {len(expected)} registers did not take "
                                                f"their reset values: {', '.join(wrong[:4])}")
    return ResetCheck(True, len(expected), f"{held}: all {len(expected)} registers took their reset values")
