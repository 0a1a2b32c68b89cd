"""Behavioural facts read from Yosys's elaborated netlist, to check what a summary claims against.

The AST facts (`hdlrl.hdl.facts`) guess a reset from the source's shape, so `if (load)` at the top
of a clocked block reads as one. Yosys's `opt_dff` decides from the logic: a flip-flop whose next
value is a constant whenever a condition holds has a synchronous reset on it, one that keeps its
value unless a condition holds has an enable, the rest is data, whatever the names. A register
chosen among constants by multiplexers is a state machine: `fsm_extract` lists its transitions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.hdl.netlist_index import NetlistIndex, number, read_sources, yosys_module
from hdlrl.hdl.state_machines import StateMachine, read_state_machines

_INVERTERS = {"$not", "$logic_not", "$_NOT_"}
_ANY_BIT_HIGH = {"$or", "$logic_or", "$reduce_or", "$reduce_bool", "$_OR_"}  # active high when any input bit is
_ANY_BIT_LOW = {"$and", "$logic_and", "$reduce_and", "$_AND_"}  # active low when any input bit is, for 1-bit operands
_FLIP_FLOPS = ("$dff", "$adff", "$sdff", "$aldff")  # prefixes of Yosys's flip-flop cells ($dffe, $sdffce, $dffsr, ...)
_LATCHES = ("$dlatch", "$adlatch")
_VECTOR_BIT = re.compile(r"\[\d+\]$")  # `ctl[1]`


@dataclass(frozen=True)
class Reset:
    """One condition that forces a register to a value. Yosys ORs the clears of a register into one
    reset; it is split back into its conditions, so `rst` and a state's `leave` are each named."""

    signal: str | None  # None when the condition is unnamed logic (see `reads`)
    active_high: bool
    asynchronous: bool
    value: int | None  # of the bits of its register entry; None when not a constant (an async load, x bits)
    overrides_enable: bool = True  # False: a synchronous reset that acts only while the enable is active
    reads: tuple[str, ...] = ()  # for an unnamed condition: the named signals it is computed from


@dataclass(frozen=True)
class Enable:
    """A condition without which a register (or latch) keeps its value; several are ORed."""

    signal: str | None
    active_high: bool
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Register:
    """Flip-flops of one named signal with one clock, reset and enable (a signal split by Yosys
    into bits with different controls gets one entry per control set, `bits` saying which)."""

    name: str
    width: int
    clock: str | None
    edge: str  # posedge or negedge
    resets: tuple[Reset, ...]
    enables: tuple[Enable, ...]  # empty: loads on every clock edge
    bits: tuple[int, ...]  # positions in the signal, 0 its least significant bit
    data: tuple[tuple[str, int] | None, ...] = ()  # per bit of `bits`: the (signal, position) it loads, if one

    @property
    def reset(self) -> Reset | None:
        """The reset when there is exactly one."""
        return self.resets[0] if len(self.resets) == 1 else None

    @property
    def enable(self) -> Enable | None:
        """The enable when there is exactly one."""
        return self.enables[0] if len(self.enables) == 1 else None


@dataclass(frozen=True)
class Latch:
    """Level-sensitive storage: transparent while one of `enables` is active, cleared by `resets`."""

    name: str
    width: int
    enables: tuple[Enable, ...]
    resets: tuple[Reset, ...]
    bits: tuple[int, ...]


@dataclass(frozen=True)
class ResetSignal:
    """A named signal that resets registers, as a summary may state it: polarity, kind and what it clears."""

    signal: str
    active_high: bool
    asynchronous: bool
    module_input: bool
    registers: tuple[str, ...]


@dataclass(frozen=True)
class NetlistFacts:
    """What `top` stores, flattened: sub-instance registers are named `instance.signal`."""

    top: str
    registers: tuple[Register, ...]
    latches: tuple[Latch, ...]
    resets: tuple[ResetSignal, ...]
    state_machines: tuple[StateMachine, ...]
    # The elaborated design mapped to gates (`GATE_MAPPINGS`), resets and enables of its flip-flops
    # still in their D logic (no `opt_dff`): what truth tables are read from.
    gate_level: dict | None = field(default=None, repr=False, compare=False)

    def register(self, name: str) -> Register | None:
        return next((register for register in self.registers if register.name == name), None)


def _conditions(netlist: NetlistIndex, bit: int | str, active_high: bool) -> list[tuple[str | None, bool, tuple]]:
    """(name, active high, reads) of each condition that alone makes `bit` active: inverters folded,
    ORs (`$ne` with zero is one) and ANDs of active-low operands split."""
    if isinstance(bit, str):
        return []  # a constant control is never a condition
    cell, name = netlist.drivers.get(bit), netlist.signal(bit)
    if name is not None or cell is None or cell["connections"].get("Y", [None])[0] != bit:  # or an upper result bit
        return [(name, active_high, () if name else netlist.reads(bit))]
    kind, connections = cell["type"], cell["connections"]
    kind = "$reduce_or" if kind == "$ne" and set(connections["B"]) == {"0"} else kind
    operands = [each for port in ("A", "B") for each in connections.get(port, [])]  # constant bits add none
    if kind in _INVERTERS and len(operands) == 1:
        return _conditions(netlist, operands[0], not active_high)
    every_bit = kind in ("$reduce_or", "$reduce_bool", "$logic_or", "$reduce_and") or all(
        len(connections.get(port, [])) <= 1 for port in ("A", "B"))  # else only some bits of wider operands count
    if every_bit and (active_high and kind in _ANY_BIT_HIGH or not active_high and kind in _ANY_BIT_LOW):
        return [found for operand in operands for found in _conditions(netlist, operand, active_high)]
    return [(None, active_high, netlist.reads(bit))]


def _reset_rules(cell: dict, position: int) -> list[tuple[int | str, bool, bool, str, bool]]:
    """(control bit, active high, asynchronous, value bit, overrides enable) of each reset of one stored bit."""
    kind, parameters, ports = cell["type"], cell["parameters"], cell["connections"]
    high = {port: number(parameters.get(f"{port}_POLARITY", "")) == 1 for port in "ARST SRST ALOAD CLR SET".split()}
    if kind in ("$adff", "$adffe", "$adlatch"):
        return [(ports["ARST"][0], high["ARST"], True, parameters["ARST_VALUE"][-1 - position], True)]
    if kind.startswith("$sdff"):
        return [(ports["SRST"][0], high["SRST"], False, parameters["SRST_VALUE"][-1 - position],
                 kind != "$sdffce")]
    if kind.startswith("$aldff"):
        return [(ports["ALOAD"][0], high["ALOAD"], True, "?", True)]
    if kind in ("$dffsr", "$dffsre", "$dlatchsr"):
        return [(ports[port][position], high[port], True, value, True) for port, value in zip(("CLR", "SET"), "01")]
    return []


def _stored_bits(netlist: NetlistIndex, kinds: tuple[str, ...]) -> dict[tuple, list[tuple]]:
    """(signal, clock, edge, resets, enables) -> [(position, one value bit per reset, the signal bit it loads)]."""
    groups: dict[tuple, list[tuple]] = {}
    for cell in (cell for cell in netlist.cells if cell["type"].startswith(kinds)):
        connections, parameters = cell["connections"], cell["parameters"]
        clock = netlist.signal(connections["CLK"][0]) if "CLK" in connections else None
        edge = "posedge" if number(parameters.get("CLK_POLARITY", "1")) == 1 else "negedge"
        enables = tuple(dict.fromkeys(Enable(*condition) for condition in _conditions(
            netlist, connections["EN"][0], number(parameters["EN_POLARITY"]) == 1))) if "EN" in connections else ()
        for position, bit in enumerate(connections["Q"]):
            resets, values = [], []
            for control, active_high, asynchronous, value, overrides in _reset_rules(cell, position):
                for name, level, reads in _conditions(netlist, control, active_high):
                    resets.append((name, level, asynchronous, overrides, reads))
                    values.append(value)
            if (owner := netlist.owner(bit, connections["Q"])) is not None:
                groups.setdefault((owner[0], clock, edge, tuple(resets), enables), []).append(
                    (owner[1], tuple(values), netlist.owner(connections["D"][position]) if "D" in connections else None))
    return groups


def _resets(resets: tuple, bits: list[tuple]) -> tuple[Reset, ...]:
    """The resets of one group of stored bits, each with the value it loads into them."""
    texts = ["".join(values[index] for _, values, _ in sorted(bits, reverse=True)) for index in range(len(resets))]
    return tuple(dict.fromkeys(Reset(name, high, asynchronous, int(text, 2) if set(text) <= {"0", "1"} else None,
                                     overrides, reads)
                               for (name, high, asynchronous, overrides, reads), text in zip(resets, texts)))


def _read_storage(netlist: NetlistIndex) -> tuple[tuple[Register, ...], tuple[Latch, ...]]:
    """Registers and latches of an `opt_dff`-ed netlist, in source order."""
    registers = [Register(name, len(bits), clock, edge, _resets(resets, bits), enables,
                          *map(tuple, zip(*[(position, source) for position, _, source in sorted(bits)])))
                 for (name, clock, edge, resets, enables), bits in _stored_bits(netlist, _FLIP_FLOPS).items()]
    latches = [Latch(name, len(bits), enables, _resets(resets, bits), tuple(sorted(position for position, *_ in bits)))
               for (name, _, _, resets, enables), bits in _stored_bits(netlist, _LATCHES).items()]
    return (tuple(sorted(registers, key=lambda each: netlist.declared(each.name))),
            tuple(sorted(latches, key=lambda each: netlist.declared(each.name))))


def _reset_signals(netlist: NetlistIndex, registers: Iterable[Register]) -> tuple[ResetSignal, ...]:
    cleared: dict[tuple[str, bool, bool], list[str]] = {}
    for register, reset in ((register, reset) for register in registers for reset in register.resets if reset.signal):
        cleared.setdefault((reset.signal, reset.active_high, reset.asynchronous), []).append(register.name)
    return tuple(ResetSignal(signal, high, asynchronous, _VECTOR_BIT.sub("", signal) in netlist.inputs,
                             tuple(dict.fromkeys(names))) for (signal, high, asynchronous), names in cleared.items())


# The passes that map the elaborated design to gates for `NetlistFacts.gate_level`.
GATE_MAPPINGS = {
    "techmap": ["memory", "opt_clean", "techmap", "opt -fast", "opt_clean"],  # arithmetic too: outputs' tables
    "simplemap": ["pmuxtree", "simplemap", "opt_clean"],  # logic cells only, cheap: flags, flip-flop kinds
}


def netlist_facts(sources: list[Path], top: str, runner: ToolRunner, include_dirs: Iterable[Path] = (),
                  state_machines: bool = True, gate_mapping: str | None = None) -> NetlistFacts:
    """The registers, latches, resets and (unless not asked for) state machines of `top`, from Yosys's
    netlist; with a `gate_mapping` (`GATE_MAPPINGS`), also that netlist mapped to gates, from the same
    Yosys run."""
    commands = [*read_sources(runner, sources, include_dirs), f"hierarchy -check -top {top}", "proc", "flatten",
                "opt_expr -mux_bool", "opt_clean", "design -save elaborated", "opt_dff", "opt_clean",
                "write_json netlist_registers.json"]
    if gate_mapping is not None:
        commands += ["design -load elaborated", *GATE_MAPPINGS[gate_mapping], "write_json netlist_gate_level.json"]
    commands += ["design -load elaborated", "opt -nodffe -nosdff"]
    elaborated = yosys_module(runner, sources, commands, top, "netlist_elaborated.json")
    netlist = NetlistIndex(json.loads((runner.scratch / "netlist_registers.json").read_text())["modules"][top])
    gates = json.loads((runner.scratch / "netlist_gate_level.json").read_text())["modules"][top] if (
        gate_mapping is not None) else None
    registers, latches = _read_storage(netlist)
    sync_resets: dict[str, list[tuple[str, bool]]] = {}
    for register in registers:
        sync_resets.setdefault(register.name, []).extend(
            (reset.signal, reset.active_high) for reset in register.resets if not reset.asynchronous)
    machines = read_state_machines(runner, sources, top, elaborated, sync_resets) if state_machines else ()
    return NetlistFacts(top, registers, latches, _reset_signals(netlist, registers), machines, gates)
