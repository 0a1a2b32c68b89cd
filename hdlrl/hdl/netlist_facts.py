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
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.diagnostics import parse_diagnostics
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.errors import HdlrlError
from hdlrl.hdl.function_kind import TruthTable, cell_drivers, operand_bits, tabulate

COPIES_FOLDER = "netlist_sources"
_INVERTERS = {"$not", "$logic_not", "$_NOT_"}
_ANY_BIT_HIGH = {"$or", "$logic_or", "$reduce_or", "$reduce_bool", "$_OR_"}  # active high when any input bit is
_ANY_BIT_LOW = {"$and", "$logic_and", "$reduce_and", "$_AND_"}  # active low when any input bit is, for 1-bit operands
_FLIP_FLOPS = ("$dff", "$adff", "$sdff", "$aldff")  # prefixes of Yosys's flip-flop cells ($dffe, $sdffce, $dffsr, ...)
_LATCHES = ("$dlatch", "$adlatch")
_SOURCE_LINE, _VECTOR_BIT = re.compile(r":(\d+)\."), re.compile(r"\[\d+\]$")  # `src` attribute line; `ctl[1]`


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
class StateMachine:
    """A state register and its behaviour as fsm_extract found it; states stay encodings (ints)."""

    register: str
    width: int
    states: tuple[int, ...]  # in Yosys's order
    reset_state: int | None
    transitions: tuple[tuple[int, int], ...]  # (from, to) changes of state, reset transitions left out


@dataclass(frozen=True)
class NetlistFacts:
    """What `top` stores, flattened: sub-instance registers are named `instance.signal`."""

    top: str
    registers: tuple[Register, ...]
    latches: tuple[Latch, ...]
    resets: tuple[ResetSignal, ...]
    state_machines: tuple[StateMachine, ...]

    def register(self, name: str) -> Register | None:
        return next((register for register in self.registers if register.name == name), None)


class _Netlist:
    """One module of a `write_json` netlist, indexed by bit: the names it carries and the cell driving it."""

    def __init__(self, module: dict):
        self.cells: list[dict] = list(module["cells"].values())
        self.inputs = {name for name, port in module["ports"].items() if port["direction"] == "input"}
        self.ports = set(module["ports"])
        self.nets = {name: net for name, net in module["netnames"].items()
                     if not net.get("hide_name") and not name.startswith("$")}
        self.names: dict[int, list[tuple[str, int]]] = {}  # bit -> [(name, position)]
        for name, net in self.nets.items():
            for position, bit in enumerate(net["bits"]):
                if isinstance(bit, int):
                    self.names.setdefault(bit, []).append((name, position))
        self.drivers = cell_drivers(module)

    def signal(self, bit: int | str) -> str | None:
        """The name of a control bit, an input port first: `rst`, or `ctrl[2]` for a bit of a vector."""
        named = sorted(self.names.get(bit, []), key=lambda item: (item[0] not in self.inputs,
                                                                  len(self.nets[item[0]]["bits"]) > 1, item[0]))
        if not named:
            return None
        (name, position), net = named[0], self.nets[named[0][0]]
        index = net.get("offset", 0) + (len(net["bits"]) - 1 - position if net.get("upto") else position)
        return name if len(net["bits"]) == 1 else f"{name}[{index}]"

    def owner(self, bit: int | str, stored: Iterable[int] = ()) -> tuple[str, int] | None:
        """(signal, position) of a bit: the narrowest signal holding all of `stored` (its cell's bits, so a bus
        concatenating registers is none of them), an internal one before a port (`assign out = count;`)."""
        return min(self.names.get(bit, []), default=None, key=lambda item: (
            not set(stored) <= set(self.nets[item[0]]["bits"]), len(self.nets[item[0]]["bits"]), item[0] in self.ports,
            item[0]))

    def reads(self, bit: int) -> tuple[str, ...]:
        """The named signals an unnamed bit is computed from, in the order they are reached."""
        found, stack = {}, operand_bits(self.drivers[bit]) if bit in self.drivers else []
        seen = {bit, *stack}
        while stack:
            current = stack.pop(0)
            if (owner := self.owner(current)) is not None:
                found.setdefault(owner[0])
            elif current in self.drivers:
                stack += [each for each in operand_bits(self.drivers[current]) if each not in seen]
                seen.update(stack)
        return tuple(found)

    def declared(self, name: str) -> tuple[int, str]:
        """Where `name` is declared, to list facts in source order."""
        match = _SOURCE_LINE.search(str(self.nets[name].get("attributes", {}).get("src", "")))
        return (int(match.group(1)) if match else 1 << 30), name


def _number(parameter: str) -> int:
    return int(parameter, 2) if parameter and set(parameter) <= {"0", "1"} else 0


def _conditions(netlist: _Netlist, bit: int | str, active_high: bool) -> list[tuple[str | None, bool, tuple]]:
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
    high = {port: _number(parameters.get(f"{port}_POLARITY", "")) == 1 for port in "ARST SRST ALOAD CLR SET".split()}
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


def _stored_bits(netlist: _Netlist, kinds: tuple[str, ...]) -> dict[tuple, list[tuple]]:
    """(signal, clock, edge, resets, enables) -> [(position, one value bit per reset, the signal bit it loads)]."""
    groups: dict[tuple, list[tuple]] = {}
    for cell in (cell for cell in netlist.cells if cell["type"].startswith(kinds)):
        connections, parameters = cell["connections"], cell["parameters"]
        clock = netlist.signal(connections["CLK"][0]) if "CLK" in connections else None
        edge = "posedge" if _number(parameters.get("CLK_POLARITY", "1")) == 1 else "negedge"
        enables = tuple(dict.fromkeys(Enable(*condition) for condition in _conditions(
            netlist, connections["EN"][0], _number(parameters["EN_POLARITY"]) == 1))) if "EN" in connections else ()
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


def _read_storage(netlist: _Netlist) -> tuple[tuple[Register, ...], tuple[Latch, ...]]:
    """Registers and latches of an `opt_dff`-ed netlist, in source order."""
    registers = [Register(name, len(bits), clock, edge, _resets(resets, bits), enables,
                          *map(tuple, zip(*[(position, source) for position, _, source in sorted(bits)])))
                 for (name, clock, edge, resets, enables), bits in _stored_bits(netlist, _FLIP_FLOPS).items()]
    latches = [Latch(name, len(bits), enables, _resets(resets, bits), tuple(sorted(position for position, *_ in bits)))
               for (name, _, _, resets, enables), bits in _stored_bits(netlist, _LATCHES).items()]
    return (tuple(sorted(registers, key=lambda each: netlist.declared(each.name))),
            tuple(sorted(latches, key=lambda each: netlist.declared(each.name))))


def _reset_signals(netlist: _Netlist, registers: Iterable[Register]) -> tuple[ResetSignal, ...]:
    cleared: dict[tuple[str, bool, bool], list[str]] = {}
    for register, reset in ((register, reset) for register in registers for reset in register.resets if reset.signal):
        cleared.setdefault((reset.signal, reset.active_high, reset.asynchronous), []).append(register.name)
    return tuple(ResetSignal(signal, high, asynchronous, _VECTOR_BIT.sub("", signal) in netlist.inputs,
                             tuple(dict.fromkeys(names))) for (signal, high, asynchronous), names in cleared.items())


def _chosen_among_constants(netlist: _Netlist, cell: dict) -> bool:
    """Whether a flip-flop's next value is a constant or its own value, through multiplexers only."""
    state, stack, seen = cell["connections"]["Q"], list(cell["connections"]["D"]), set()
    while stack:
        bit = stack.pop()
        if isinstance(bit, int) and bit not in state and bit not in seen:
            seen.add(bit)
            driver = netlist.drivers.get(bit)
            if driver is None or driver["type"] not in ("$mux", "$pmux"):
                return False
            stack += driver["connections"]["A"] + driver["connections"]["B"]
    return True


def _state_register_candidates(netlist: _Netlist) -> list[str]:
    """Registers of two or more bits chosen among constants: what Yosys's fsm_detect calls a state
    register, here whether or not it drives a port."""
    states = [(cell, cell["connections"]["Q"]) for cell in netlist.cells if cell["type"] in ("$dff", "$adff")]
    owners = [(cell, state, netlist.owner(state[0], state)) for cell, state in states if len(state) > 1]
    return [owner[0] for cell, state, owner in owners
            if owner and netlist.nets[owner[0]]["bits"] == state and _chosen_among_constants(netlist, cell)]


def _detach_port(module: dict, name: str) -> None:
    """Make port `name` a copy of the register of that name. fsm_extract on a register that is itself
    a port leaves Yosys 0.23's module broken (write_json crashes); the copy keeps the register internal."""
    bits, width = module["netnames"][name]["bits"], format(len(module["netnames"][name]["bits"]), "032b")
    first = 1 + max(bit for net in module["netnames"].values() for bit in net["bits"] if isinstance(bit, int))
    copy = list(range(first, first + len(bits)))
    module["ports"][f"{name}$port"] = {**module["ports"].pop(name), "bits": copy}
    module["netnames"][f"{name}$port"] = {"hide_name": 0, "bits": copy, "attributes": {}}
    module["cells"][f"$hdlrl$port${name}"] = {
        "hide_name": 1, "type": "$pos", "attributes": {}, "port_directions": {"A": "input", "Y": "output"},
        "parameters": {"A_SIGNED": "0", "A_WIDTH": width, "Y_WIDTH": width}, "connections": {"A": bits, "Y": copy}}


def _state_machine(netlist: _Netlist, cell: dict, registers: tuple[Register, ...]) -> StateMachine:
    """One `$fsm` cell's states and transitions: STATE_TABLE holds the encodings, and each TRANS_TABLE
    entry (last entry first) is state in, control inputs, state out, control outputs, most significant first."""
    parameters, name = cell["parameters"], str(cell["parameters"]["NAME"]).strip().lstrip("\\")
    bits, count, log2, inputs, outputs = (_number(parameters[key]) for key in (
        "STATE_BITS", "STATE_NUM", "STATE_NUM_LOG2", "CTRL_IN_WIDTH", "CTRL_OUT_WIDTH"))
    table, transitions, width = parameters["STATE_TABLE"], parameters["TRANS_TABLE"], 2 * log2 + inputs + outputs
    states = tuple(_number(table[len(table) - (index + 1) * bits:][:bits].replace("x", "0"))
                   for index in range(count))
    register = next((each for each in registers if each.name == name), None)
    reset_levels = {(position, "1" if reset.active_high else "0")  # the sync reset's control inputs, when active
                    for reset in (register.resets if register else ()) if not reset.asynchronous
                    for position, bit in enumerate(cell["connections"]["CTRL_IN"])
                    if netlist.signal(bit) == reset.signal}
    found: dict[tuple[int, int], None] = {}
    for index in range(_number(parameters["TRANS_NUM"])):
        entry = transitions[len(transitions) - (index + 1) * width:][:width]
        source, condition = int(entry[:log2], 2), entry[log2:log2 + inputs]
        target = int(entry[log2 + inputs:][:log2], 2)
        if source != target and not any(condition[inputs - 1 - position] == level for position, level in reset_levels):
            found.setdefault((states[source], states[target]))
    reset_index = _number(parameters.get("STATE_RST", "1" * 32))  # -1 (all ones) without a reset state
    return StateMachine(name, bits, states, states[reset_index] if reset_index < count else None, tuple(found))


def _copies(sources: list[Path]) -> list[Path]:
    return [Path(COPIES_FOLDER) / f"source{index}{Path(source).suffix or '.v'}" for index, source in enumerate(sources)]


def read_sources(runner: ToolRunner, sources: list[Path], include_dirs: Iterable[Path]) -> list[str]:
    """Copy the sources into the scratch folder and return the commands that read the copies; each
    original's folder joins the include path, so an `include next to it is still found."""
    (runner.scratch / COPIES_FOLDER).mkdir(parents=True, exist_ok=True)
    for source, copy in zip(sources, _copies(sources)):
        try:
            shutil.copyfile(source, runner.scratch / copy)
        except OSError as error:
            raise HdlrlError(f"cannot read the source: {error.strerror}", source) from None
    folders = [*map(Path, include_dirs), *dict.fromkeys(Path(source).resolve().parent for source in sources)]
    return read_commands(_copies(sources), folders)


def yosys_module(runner: ToolRunner, sources: list[Path], commands: list[str], top: str, json_name: str) -> dict:
    """Run one Yosys script and read the module `top` of the netlist it wrote; an error becomes an
    HdlrlError at the original file and line."""
    run = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join([*commands, f"write_json {json_name}"])])
    errors = [each for each in parse_diagnostics("yosys", run.output) if each.severity == "error"]
    if run.ok and not errors:
        return json.loads((runner.scratch / json_name).read_text())["modules"][top]
    error = errors[0] if errors and not run.fault else None
    reason = error.message if error else f"yosys {run.fault or f'exit status {run.returncode}'}"
    for copy, source in zip(_copies(sources), sources):
        reason = reason.replace(str(copy), str(source))
    where = next((source for copy, source in zip(_copies(sources), sources) if error and str(copy) == error.file), None)
    raise HdlrlError(f"{reason} (reading the netlist of {top})", where or next(iter(sources), None),
                     error.line if where else None)


def _state_machines(runner: ToolRunner, sources: list[Path], top: str, elaborated: dict,
                    registers: tuple[Register, ...]) -> tuple[StateMachine, ...]:
    """Mark the state-register candidates of the elaborated netlist and let fsm_extract read them."""
    candidates = _state_register_candidates(_Netlist(elaborated))
    if not candidates:
        return ()
    for name in candidates:
        elaborated["netnames"][name].setdefault("attributes", {})["fsm_encoding"] = "auto"
        if name in elaborated["ports"]:
            _detach_port(elaborated, name)
    (runner.scratch / "netlist_candidates.json").write_text(json.dumps({"modules": {top: elaborated}}))
    netlist = _Netlist(yosys_module(runner, sources, ["read_json netlist_candidates.json", "fsm_detect", "fsm_extract"],
                              top, "netlist_fsm.json"))
    machines = [_state_machine(netlist, cell, registers) for cell in netlist.cells if cell["type"] == "$fsm"]
    return tuple(sorted(machines, key=lambda machine: [*candidates, machine.register].index(machine.register)))


def netlist_facts(sources: list[Path], top: str, runner: ToolRunner, include_dirs: Iterable[Path] = (),
                  state_machines: bool = True) -> NetlistFacts:
    """The registers, latches, resets and (unless not asked for) state machines of `top`, from Yosys's netlist."""
    commands = [*read_sources(runner, sources, include_dirs), f"hierarchy -check -top {top}", "proc", "flatten",
                "opt_expr -mux_bool", "opt_clean", "design -save elaborated", "opt_dff", "opt_clean",
                "write_json netlist_registers.json", "design -load elaborated", "opt -nodffe -nosdff"]
    elaborated = yosys_module(runner, sources, commands, top, "netlist_elaborated.json")
    netlist = _Netlist(json.loads((runner.scratch / "netlist_registers.json").read_text())["modules"][top])
    registers, latches = _read_storage(netlist)
    machines = _state_machines(runner, sources, top, elaborated, registers) if state_machines else ()
    return NetlistFacts(top, registers, latches, _reset_signals(netlist, registers), machines)


def truth_tables(sources: list[Path], top: str, runner: ToolRunner, max_input_bits: int = 10,
                 include_dirs: Iterable[Path] = ()) -> dict[str, TruthTable | None]:
    """Each output's truth table (`tabulate`) from one gate-level netlist of `top`."""
    commands = [*read_sources(runner, sources, include_dirs), f"hierarchy -check -top {top}", "proc", "flatten",
                "memory", "opt_clean", "techmap", "opt -fast", "opt_clean"]
    module = yosys_module(runner, sources, commands, top, "netlist_gates.json")
    return {name: tabulate(module, name, max_input_bits) for name, port in module["ports"].items()
            if port["direction"] == "output"}
