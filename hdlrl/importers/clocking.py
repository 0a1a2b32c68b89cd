"""An imported design's clocks and reset, read from its RTL, with the description as a witness.

Prose is a poor source of truth: "Defined as 1 for reset and 0 for reset signal inactive" reads
as active-low to a pattern, while the RTL says `posedge rst` and `if (rst)`. A wrong polarity
holds the design in reset for the whole differential simulation, so the gate would compare two
designs that never leave reset. So the clocks, the reset, its polarity and its kind come from
Yosys's netlist (`hdlrl.hdl.netlist_facts`: what clocks and what resets the flip-flops), and
the description and port names are used only when Yosys cannot read the RTL. Where the
description says otherwise, the RTL wins and the import report says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.netlist_facts import NetlistFacts, ResetSignal, netlist_facts
from hdlrl.hdl.ports import DeclaredPort

DEFAULT_PERIOD_NS = 10.0
_RESET_NAME = re.compile(r"(^|_)[a-z]?(rst|reset|clr|clear)(_?n|_?b|_?l)?($|_)", re.IGNORECASE)
_CLOCK_NAME = re.compile(r"^(clk|clock)(_\w+)?$|^\w+_?clk$|^clk\w*$", re.IGNORECASE)


@dataclass
class Clocking:
    """The clocks and reset as design.yaml writes them, and where they came from."""

    clocks: list[dict]  # {"name", "period_ns"}
    reset: dict | None  # {"name", "polarity", "kind"}
    derived_from: str  # "RTL" or "names and description"
    notes: list[str] = field(default_factory=list)  # disagreements and choices, for the import report
    facts: NetlistFacts | None = None  # what Yosys read, for the reset check; None when it could not


def described_polarity(name: str, description: str) -> str | None:
    """The polarity the description's sentence about `name` states, or None where it states none."""
    sentence = next((line for line in description.splitlines() if re.search(rf"\b{re.escape(name)}\b", line)), "")
    if re.search(r"active[- ]low|0 for reset|low[- ]active|negative", sentence, re.IGNORECASE):
        return "low"
    if re.search(r"active[- ]high|1 for reset|high[- ]active", sentence, re.IGNORECASE):
        return "high"
    return None


def _clock_periods(testbench: str) -> dict[str, float]:
    """Periods from the testbench's `always #N clk = ~clk`."""
    periods = {}
    for match in re.finditer(r"always\s*#\s*\(?\s*(\d+(?:\.\d+)?)\s*\)?\s*(\w+)\s*=\s*~\s*\2", testbench):
        periods[match.group(2)] = 2 * float(match.group(1))
    return periods


def _clock_entries(names: list[str], testbench: str) -> list[dict]:
    periods = _clock_periods(testbench)
    default_period = next(iter(periods.values())) if len(periods) == 1 else DEFAULT_PERIOD_NS
    return [{"name": name, "period_ns": periods.get(name, default_period)} for name in names]


def _edge_signals(text: str) -> set[str]:
    """Signals that appear as `posedge X` / `negedge X`."""
    tokens = tokenize(text)
    return {tokens[i + 1].text for i, token in enumerate(tokens[:-1]) if token.text in ("posedge", "negedge")}


def _from_names(ports: list[DeclaredPort], rtl: str, testbench: str, description: str, why: str) -> Clocking:
    """The fallback where Yosys cannot read the RTL: clocks are edge signals or clock-like names,
    the reset an input named like one, its polarity from the description or the name's suffix."""
    edges = _edge_signals(rtl)
    inputs = [port for port in ports if port.direction == "input" and port.width == 1]
    resets = [port.name for port in inputs if _RESET_NAME.match(port.name)]
    clocks = [port.name for port in inputs if port.name not in resets
              and (_CLOCK_NAME.match(port.name) or port.name in edges)]
    clocking = Clocking(_clock_entries(clocks, testbench), None, "names and description", [why])
    if resets and clocks:
        name = resets[0]
        named_low = re.search(r"(_?n|_?b|_l)$", name, re.IGNORECASE)
        polarity = described_polarity(name, description) or ("low" if named_low else "high")
        clocking.reset = {"name": name, "polarity": polarity, "kind": "async" if name in edges else "sync"}
    return clocking


def _chosen_reset(resets: list[ResetSignal], ports: list[DeclaredPort]) -> ResetSignal:
    """The input that resets the most registers; the earlier port on a tie."""
    order = [port.name for port in ports]
    return min(resets, key=lambda reset: (-len(reset.registers), order.index(reset.signal)))


def derive_clocking(rtl_path: Path, top: str, ports: list[DeclaredPort], testbench: str, description: str,
                    runner: ToolRunner) -> Clocking:
    """Clocks and reset of `top` in `rtl_path`: from its flip-flops, the description only as a fallback."""
    rtl = rtl_path.read_text(encoding="utf-8", errors="replace")
    try:
        facts = netlist_facts([rtl_path], top, runner)
    except HdlrlError as error:
        message = str(error).replace(f"{rtl_path.parent.parent}/", "")  # design-relative, as other reasons are
        return _from_names(ports, rtl, testbench, description, f"Yosys cannot read the RTL ({message})")
    port_names = [port.name for port in ports]
    clocked_by = {register.clock for register in facts.registers}
    clocks = [name for name in port_names if name in clocked_by]
    clocking = Clocking(_clock_entries(clocks, testbench), None, "RTL", facts=facts)
    resets = [reset for reset in facts.resets if reset.module_input and reset.signal in port_names]
    if not resets or not clocks:
        return clocking
    chosen = _chosen_reset(resets, ports)
    polarity = "high" if chosen.active_high else "low"
    clocking.reset = {"name": chosen.signal, "polarity": polarity, "kind": "async" if chosen.asynchronous else "sync"}
    others = sorted({reset.signal for reset in resets} - {chosen.signal})
    if others:
        clocking.notes.append(f"also resets registers: {', '.join(others)} (the harness drives one reset, "
                              f"{chosen.signal}, which resets the most)")
    described = described_polarity(chosen.signal, description)
    if described and described != polarity:
        clocking.notes.append(f"the description reads {chosen.signal} as active-{described}, the RTL resets on "
                              f"{chosen.signal} {polarity}: the RTL wins")
    return clocking
