"""What a module does, read from Yosys's netlist: the facts a spec-like summary is written from.

The text reading (`hdlrl.hdl.facts`) knows the interface and the blocks, but not that `out` is
a 4-to-1 multiplexer or that `rst_n` loads `count` with 255. Those come from the netlist
(`hdlrl.hdl.netlist_facts`): the registers with their resets and reset values, and, for a
purely combinational module, each output's standard function recognised from its truth table
(`hdlrl.hdl.function_kind`). A module Yosys cannot read alone (a child defined in another
file, a construct it does not support) has no behaviour, and its summary keeps to the text.

Claims written from these facts are checked again by simulation (`hdlrl.summarize.evidence`),
so that neither source is trusted alone.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.hdl.flip_flop_kind import FlipFlop, recognise_flip_flop
from hdlrl.hdl.function_kind import Function, recognise, recognise_bitwise
from hdlrl.hdl.ir import Module
from hdlrl.hdl.sources import file_text
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.memory_ports import MemoryPorts, memory_ports
from hdlrl.hdl.netlist_facts import NetlistFacts, netlist_facts
from hdlrl.hdl.register_modes import RegisterModes, register_modes
from hdlrl.hdl.state_machines import state_outputs
from hdlrl.hdl.status_flag import StatusFlag, recognise_flag
from hdlrl.hdl.truth_table import TruthTable, next_state_tables, output_tables, register_output_tables
from hdlrl.summarize.counting import CountRange, CycleLength, count_of, counted_registers, yosys_traces

MAX_TABLE_INPUT_BITS = 18  # the widest cone tabulated; 262,144 rows
MAX_FLIP_FLOPS = 2  # a module of at most this many one-bit registers has their kinds read (T, JK, SR)
_LIMITS = Limits(time_s=20.0, memory_mb=2048)
_IDENTIFIER = re.compile(r"`([^`]+)`")


def templated(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` with each backticked name replaced by "`{}`", and those names in order: the form a claim
    stores, so that renaming identifiers renames the claim one to one."""
    return _IDENTIFIER.sub("`{}`", text), tuple(_IDENTIFIER.findall(text))


def function_claim(function: Function) -> tuple[str, tuple[str, ...]]:
    """A function's description as a claim stores it (`templated`)."""
    return templated(function.description)


@dataclass(frozen=True)
class ResetValue:
    """`signal` at its active level sets `register` (every bit of it) to `value`."""

    signal: str
    active_high: bool
    asynchronous: bool
    register: str
    width: int
    value: int


@dataclass(frozen=True)
class RegisterEnable:
    """`register` (every bit of it) loads only while `signal` is at its active level."""

    register: str
    signal: str
    active_high: bool


@dataclass(frozen=True)
class DataPath:
    """What a whole register loads on a clock edge: an input (`shift` None), or its own bits moved one
    place, `source` filling the free end (`shift` "left": toward the most significant bit)."""

    register: str
    source: str
    shift: str | None
    width: int


@dataclass(frozen=True)
class Behaviour:
    """The netlist's facts about one module; `netlist` is None when Yosys could not read it alone."""

    netlist: NetlistFacts | None
    functions: dict[str, Function] = field(default_factory=dict)  # output -> its recognised function
    tables: dict[str, TruthTable] = field(default_factory=dict)  # output -> the table it was recognised from
    count_ranges: dict[str, CountRange | CycleLength] = field(default_factory=dict)  # register -> its range or
    #                                                                                    cycle under `stimulus`
    memories: tuple[MemoryPorts, ...] = ()  # each memory with the write and read ports a summary can name
    state_outputs: dict[str, tuple[str, dict[int, int]]] = field(default_factory=dict)  # Moore output -> (state
    #                                                         register, {encoding: its value})
    flip_flops: dict[str, FlipFlop] = field(default_factory=dict)  # one-bit register -> its kind (T, JK, SR)
    flags: dict[str, StatusFlag] = field(default_factory=dict)  # one-bit output -> the register value it flags

    @property
    def stores(self) -> bool:
        return bool(self.netlist and (self.netlist.registers or self.netlist.latches))

    @cached_property
    def stated_functions(self) -> dict[str, Function]:
        """The functions a summary should state: all but reductions, whose "OR of all 8 input bits"
        reads as bitwise logic that the text may not show."""
        return {output: function for output, function in self.functions.items() if function.kind != "reduction"}

    def confirms_reset(self, signal: str) -> bool:
        """Whether the netlist shows `signal` resetting a register; True where the netlist is unknown,
        so that the text's reading stands (and the simulation still judges it)."""
        return self.netlist is None or any(reset.signal == signal for reset in self.netlist.resets)

    @cached_property
    def enables(self) -> tuple[RegisterEnable, ...]:
        """The registers with one named enable on every bit, in register order."""
        if self.netlist is None:
            return ()
        found: dict[str, RegisterEnable | None] = {}
        for register in self.netlist.registers:
            (enable, *more) = register.enables or (None,)
            entry = RegisterEnable(register.name, enable.signal, enable.active_high) if (
                enable is not None and enable.signal is not None and not more) else None
            found[register.name] = entry if found.get(register.name, entry) == entry else None
        return tuple(entry for entry in found.values() if entry is not None)

    @cached_property
    def data_paths(self) -> tuple[DataPath, ...]:
        """Registers (one entry, every bit) that load another signal whole, or shift one bit of one in;
        whether that signal is an input port is the claim checker's question."""
        if self.netlist is None:
            return ()
        names = [register.name for register in self.netlist.registers]
        resets = {signal.signal for signal in self.netlist.resets if signal.module_input}
        found = []
        for register in self.netlist.registers:
            data, width = register.data, register.width
            if names.count(register.name) != 1 or register.bits != tuple(range(width)) or None in data:
                continue
            if any(reset.signal not in resets for reset in register.resets) or any(
                    enable.signal is None for enable in register.enables):
                continue  # it loads only under conditions a bench cannot name (a preset from logic, a decoded enable)
            sources = {name for name, _ in data}
            if len(sources) == 1 and [position for _, position in data] == list(range(width)):
                found.append(DataPath(register.name, data[0][0], None, width))
            elif width > 1 and data[1:] == tuple((register.name, position) for position in range(width - 1)):
                found.append(DataPath(register.name, data[0][0], "left", width))
            elif width > 1 and data[:-1] == tuple((register.name, position) for position in range(1, width)):
                found.append(DataPath(register.name, data[-1][0], "right", width))
        return tuple(path for path in found if path.source != path.register)

    @cached_property
    def register_modes(self) -> tuple[RegisterModes, ...]:
        """The registers that inputs steer between at least two things besides holding (load, rotate,
        shift), every reset inactive (`hdlrl.hdl.register_modes`)."""
        if self.netlist is None or self.netlist.gate_level is None or not self.netlist.registers:
            return ()
        inactive = {reset.signal: int(not reset.active_high) for reset in self.netlist.resets if reset.module_input}
        return register_modes(self.netlist.gate_level, inactive)

    @cached_property
    def reset_values(self) -> tuple[ResetValue, ...]:
        """The whole-register reset values by a module input, in register order. A register whose
        bits are reset by different inputs, or to no constant, has none."""
        if self.netlist is None:
            return ()
        found: dict[str, ResetValue | None] = {}
        covered: dict[str, set[int]] = {}
        for register in self.netlist.registers:
            resets = [reset for reset in register.resets if reset.signal is not None and reset.value is not None]
            previous = found.get(register.name, ...)
            if len(resets) != 1 or previous is None:
                found[register.name] = None
                continue
            reset = resets[0]
            bits = sum(((reset.value >> index) & 1) << position for index, position in enumerate(register.bits))
            if previous is not ...:
                if (previous.signal, previous.active_high, previous.asynchronous) != (
                        reset.signal, reset.active_high, reset.asynchronous):
                    found[register.name] = None
                    continue
                bits |= previous.value
            found[register.name] = ResetValue(reset.signal, reset.active_high, reset.asynchronous, register.name,
                                              register.width, bits)
            covered.setdefault(register.name, set()).update(register.bits)
        inputs = {signal.signal for signal in self.netlist.resets if signal.module_input}
        return tuple(value for name, value in found.items() if value is not None and value.signal in inputs
                     and covered[name] == set(range(value.width)))


def module_behaviour(module: Module, facts: ModuleFacts, sandbox: bool | None = None) -> Behaviour:
    """The netlist facts of `module`, read from its file (children defined beside it come along)."""
    with tempfile.TemporaryDirectory(prefix="hdlrl-behaviour-") as scratch:
        runner = ToolRunner(Path(scratch), _LIMITS, sandbox=sandbox)
        source = runner.scratch / "module.v"
        try:
            source.write_text(file_text(module))
            netlist = netlist_facts([source], module.name, runner,
                                    gate_mapping="techmap" if facts.combinational else "simplemap")
            tables = {} if netlist.registers or netlist.latches else output_tables(
                netlist.gate_level, MAX_TABLE_INPUT_BITS)
            traces = yosys_traces(runner, source, facts, netlist) if netlist.registers else {}
            memories = memory_ports([source], module.name, runner) if facts.memories else ()
            outputs = state_outputs(runner, [source], module.name, netlist.state_machines, [
                port.name for port in facts.ports if port.direction == "output" and port.width == 1]
                                    ) if netlist.state_machines else {}
        except (HdlrlError, OSError):
            return Behaviour(None)
    one_bit = netlist.registers and all(register.width == 1 for register in netlist.registers) and len(
        {register.name for register in netlist.registers}) <= MAX_FLIP_FLOPS
    next_states = next_state_tables(netlist.gate_level) if one_bit else {}
    flags = {output: flag for output, table in register_output_tables(netlist.gate_level).items()
             if output not in outputs and (flag := recognise_flag(table)) is not None}
    resets = {reset.signal: reset.active_high for reset in netlist.resets if reset.module_input}
    flip_flops = {name: found for name, table in next_states.items()
                  if (found := recognise_flip_flop(table, resets)) is not None}
    functions = {output: function for output, table in tables.items() if table is not None
                 and (function := recognise_bitwise(table) if table.bitwise else
                      recognise(table.rows, dict(table.inputs), table.output_width)) is not None}
    widths = counted_registers(facts, netlist)
    ranges = {name: found for name, trace in traces.items() if (found := count_of(name, trace, widths[name]))}
    return Behaviour(netlist, functions, {output: tables[output] for output in functions}, ranges, memories, outputs,
                     flip_flops, flags)
