"""Counter ranges: where a counter starts after reset, where it turns, and what it does there.

The text says that `q` counts up (`q <= q + 1`); how far it goes (a modulo-10 compare, the
natural wrap, a saturating guard) needs its behaviour. A range is written from Yosys's own
simulator (`sim`) on the module's netlist and checked on Icarus with the same stimulus: every
reset held for `RESET_CYCLES` then released, the counter's enable held active, every other
input held at 0, for one cycle more than the counter can count. Both traces must give the
same range (`hdlrl.summarize.count_evidence`); a counter that does not turn within them (it
waits for another input) has none. A register that steps by other than one (an LFSR, a ring or a
Johnson counter) is described by its cycle instead: how many values it goes through from its
reset value before it repeats them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.netlist_facts import NetlistFacts

RESET_CYCLES = 2
MAX_COUNTER_BITS = 10  # at most 1,026 cycles simulated per counter
WRAPPER = "hdlrl_count_wrapper"
_VARIABLE = re.compile(r"^\$var \S+ (?P<bits>\d+) (?P<code>\S+) (?P<name>\S+)(?: \[[^\]]*\])? \$end$")


@dataclass(frozen=True)
class CountRange:
    register: str
    direction: str  # up or down
    start: int  # where a wrapping counter wraps to, else the value the reset left
    end: int  # the value it turns at
    after: int | None  # the value after `end` (a wrap), None when it stays at `end`

    def sentence(self) -> str:
        turn = f"then wraps to {self.after}" if self.after is not None else f"then stays at {self.end}"
        return f"`{self.register}` counts {self.direction} from {self.start} to {self.end}, {turn}."


@dataclass(frozen=True)
class CycleLength:
    """A register that, from the value its reset left, goes through `length` distinct values and
    then repeats them, but not by steps of one: an LFSR, a ring or a Johnson counter."""

    register: str
    length: int

    def sentence(self) -> str:
        return f"`{self.register}` cycles through {self.length} distinct states from its reset value before repeating."


def count_of(register: str, trace: list[int | None], width: int) -> CountRange | CycleLength | None:
    """What a trace shows the register counting: a range (`range_of`), else a cycle (`cycle_of`)."""
    return range_of(register, trace, width) or cycle_of(register, trace)


def cycle_of(register: str, trace: list[int | None]) -> CycleLength | None:
    """The cycle a trace shows from its first settled value: the first repeat is of that value, at
    least three distinct values come before it, and every later value repeats the one a cycle
    earlier. None when it settles elsewhere first (a shift register filling with zeros) or never
    repeats within the trace."""
    values = [value for value in trace if value is not None]
    while len(values) > 1 and values[0] == values[1]:
        values.pop(0)  # the reset held
    length = next((index for index, value in enumerate(values) if value in values[:index]), None)
    if length is None or length < 3 or values[length] != values[0]:
        return None
    if any(values[index] != values[index - length] for index in range(length, len(values))):
        return None
    return CycleLength(register, length)


def range_of(register: str, trace: list[int | None], width: int) -> CountRange | None:
    """The range a trace shows, by steps of one from its first settled value to the value whose
    successor is no step on or was seen before; then it stays there, or wraps and repeats from
    where it wrapped to (the range's start), every value after the turn on that cycle. None when
    it never turns, or does anything else (a Gray code, a shift)."""
    modulus = 1 << width
    values = [value for value in trace if value is not None]
    while len(values) > 1 and values[0] == values[1]:
        values.pop(0)  # the reset held: the range starts from the value it left
    if len(values) < 3 or (step := (values[1] - values[0]) % modulus) not in (1, modulus - 1):
        return None
    seen, index = {values[0], values[1]}, 1
    while index + 1 < len(values) and (values[index + 1] - values[index]) % modulus == step \
            and values[index + 1] not in seen:
        index += 1
        seen.add(values[index])
    if index + 1 >= len(values):
        return None
    end, rest = values[index], values[index + 1:]
    direction = "up" if step == 1 else "down"
    if len(seen) == modulus:  # every value: the natural wrap, wherever the reset started it
        top = modulus - 1
        return CountRange(register, direction, *((0, top, 0) if step == 1 else (top, 0, top)))
    if all(value == end for value in rest):
        return CountRange(register, direction, values[0], end, None)
    start = rest[0]
    cycle = [(start + offset * (1 if step == 1 else -1)) % modulus for offset in range((end - start) * (
        1 if step == 1 else -1) % modulus + 1)]  # start, one step on, ..., end
    periodic = all(value == cycle[index % len(cycle)] for index, value in enumerate(rest))
    return CountRange(register, direction, start, end, start) if periodic and set(values[:index + 1]) <= set(
        cycle) and start != end else None


def stimulus(facts: ModuleFacts, netlist: NetlistFacts) -> tuple[dict[str, bool], dict[str, int]]:
    """({reset input: active high}, {every other non-clock input: its held value}): the registers'
    enables active, everything else 0."""
    resets = {reset.signal: reset.active_high for reset in netlist.resets if reset.module_input}
    enables = {enable.signal: enable.active_high for register in netlist.registers
               for enable in register.enables if enable.signal is not None}
    clocks = {name for name, _ in facts.clocks}
    held = {port.name: int(enables.get(port.name, False)) for port in facts.ports
            if port.direction == "input" and port.name not in clocks and port.name not in resets}
    return resets, held


def counted_registers(facts: ModuleFacts, netlist: NetlistFacts) -> dict[str, int]:
    """The registers whose range is worth simulating: 2 to `MAX_COUNTER_BITS` bits, whole, simple names."""
    widths: dict[str, int] = {}
    for register in netlist.registers:
        widths[register.name] = widths.get(register.name, 0) + len(register.bits)
    return {name: width for name, width in widths.items() if 2 <= width <= MAX_COUNTER_BITS
            and facts.widths.get(name) == width and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)}


def yosys_traces(runner: ToolRunner, source: Path, facts: ModuleFacts, netlist: NetlistFacts) -> dict[str, list]:
    """Each counted register's value at every rising clock edge under `stimulus`, from Yosys's `sim`."""
    registers = counted_registers(facts, netlist)
    if not registers or not facts.clocks:
        return {}
    resets, held = stimulus(facts, netlist)
    connections = [f".{facts.clocks[0][0]}(clk)"] + [f".{name}({'rst' if high else '~rst'})"
                                                      for name, high in resets.items()]
    connections += [f".{name}({value})" for name, value in held.items()]
    (runner.scratch / "wrapper.v").write_text(
        f"module {WRAPPER}(input clk, input rst);\n  {facts.name} dut({', '.join(connections)});\nendmodule\n")
    cycles = RESET_CYCLES + (1 << max(registers.values())) + 2
    script = [*read_commands([source, runner.scratch / "wrapper.v"]),
              f"hierarchy -top {WRAPPER}", "proc",
              f"opt_clean {facts.name}",  # the module's unused wires left out: `sim` pays for every wire it dumps
              f"sim -clock clk -reset rst -rstlen {RESET_CYCLES} -n {cycles} -vcd trace.vcd"]
    run = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join(script)])
    vcd = runner.scratch / "trace.vcd"
    return _vcd_values(vcd.read_text(), list(registers)) if run.ok and vcd.is_file() else {}


def _vcd_values(text: str, registers: list[str]) -> dict[str, list[int | None]]:
    """The registers of scope `dut` at each rising edge of the top's `clk`, in a VCD of `sim`."""
    scopes: list[str] = []
    codes: dict[str, str] = {}
    current: dict[str, int | None] = dict.fromkeys(registers)
    traces: dict[str, list[int | None]] = {name: [] for name in registers}
    rose = False
    for line in (line.strip() for line in text.splitlines()):
        if line.startswith("$scope"):
            scopes.append(line.split()[2])
        elif line.startswith("$upscope"):
            scopes.pop()
        elif match := _VARIABLE.match(line):
            name, inside = match.group("name"), scopes[1:]
            if (inside, name) == ([], "clk") or inside == ["dut"] and name in registers:
                codes[match.group("code")] = name if inside else "\0clk"
        elif line.startswith("#") and rose:
            for name in registers:
                traces[name].append(current[name])
            rose = False
        elif line[:1] in ("b", "0", "1", "x", "z"):
            bits, _, code = line[1:].partition(" ") if line[0] == "b" else (line[0], "", line[1:])
            name = codes.get(code.strip())
            if name == "\0clk":
                rose = bits == "1"
            elif name is not None:
                current[name] = int(bits, 2) if set(bits) <= {"0", "1"} else None
    if rose:
        for name in registers:
            traces[name].append(current[name])
    return traces


def claim_value(found: CountRange | CycleLength) -> str:
    """The value of a count_range claim: "up 0 15 0", "up 0 7 stays", or "cycle 31"."""
    if isinstance(found, CycleLength):
        return f"cycle {found.length}"
    return f"{found.direction} {found.start} {found.end} {'stays' if found.after is None else found.after}"
