"""State machines in Yosys's netlist: registers chosen among constants, read by `fsm_extract`.

A register of two or more bits whose next value is a constant or its own value, through
multiplexers only, is what `fsm_detect` calls a state register; here it is one whether or not it
drives a port. `fsm_extract` then lists its states (encodings) and transitions, each with the
values of the control inputs it is taken under; `state_outputs` evaluates the outputs that
depend on the state alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.netlist_index import NetlistIndex, number, read_sources, yosys_module

_EVAL_RESULT = re.compile(r"Eval result: \\\S+ = \d+'([01xz]+)\.")  # `eval -show` of a defined output


@dataclass(frozen=True)
class StateMachine:
    """A state register and its behaviour as fsm_extract found it; states stay encodings (ints)."""

    register: str
    width: int
    states: tuple[int, ...]  # in Yosys's order
    reset_state: int | None
    transitions: tuple[tuple[int, int], ...]  # (from, to) changes of state, reset transitions left out
    # (from, to, ((input, level high), ...)): a change taken under one product of named 1-bit inputs
    conditions: tuple[tuple[int, int, tuple[tuple[str, bool], ...]], ...] = ()


def _chosen_among_constants(netlist: NetlistIndex, cell: dict) -> bool:
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


def _state_register_candidates(netlist: NetlistIndex) -> list[str]:
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


def _state_machine(netlist: NetlistIndex, cell: dict, sync_resets: dict[str, list[tuple[str, bool]]]) -> StateMachine:
    """One `$fsm` cell's states and transitions: STATE_TABLE holds the encodings, and each TRANS_TABLE
    entry (last entry first) is state in, control inputs, state out, control outputs, most significant first."""
    parameters, name = cell["parameters"], str(cell["parameters"]["NAME"]).strip().lstrip("\\")
    bits, count, log2, inputs, outputs = (number(parameters[key]) for key in (
        "STATE_BITS", "STATE_NUM", "STATE_NUM_LOG2", "CTRL_IN_WIDTH", "CTRL_OUT_WIDTH"))
    table, transitions, width = parameters["STATE_TABLE"], parameters["TRANS_TABLE"], 2 * log2 + inputs + outputs
    states = tuple(number(table[len(table) - (index + 1) * bits:][:bits].replace("x", "0"))
                   for index in range(count))
    reset_levels = {(position, "1" if active_high else "0")  # the sync reset's control inputs, when active
                    for signal, active_high in sync_resets.get(name, ())
                    for position, bit in enumerate(cell["connections"]["CTRL_IN"]) if netlist.signal(bit) == signal}
    controls = [netlist.signal(bit) for bit in cell["connections"]["CTRL_IN"]]
    resets = {position for position, _ in reset_levels}
    found: dict[tuple[int, int], list[tuple]] = {}  # (from, to) -> the products of control inputs it is taken under
    for index in range(number(parameters["TRANS_NUM"])):
        entry = transitions[len(transitions) - (index + 1) * width:][:width]
        source, condition = int(entry[:log2], 2), entry[log2:log2 + inputs][::-1]  # condition[i]: CTRL_IN bit i
        target = int(entry[log2 + inputs:][:log2], 2)
        if source != target and not any(condition[position] == level for position, level in reset_levels):
            found.setdefault((states[source], states[target]), []).append(tuple(
                (controls[position], value == "1") for position, value in enumerate(condition)
                if value in "01" and position not in resets))
    conditions = tuple((*change, products[0]) for change, products in found.items() if len(products) == 1
                       and 0 < len(products[0]) <= 3 and all(name and "[" not in name for name, _ in products[0]))
    reset_index = number(parameters.get("STATE_RST", "1" * 32))  # -1 (all ones) without a reset state
    return StateMachine(name, bits, states, states[reset_index] if reset_index < count else None, tuple(found),
                        conditions)


def read_state_machines(runner: ToolRunner, sources: list[Path], top: str, elaborated: dict,
                        sync_resets: dict[str, list[tuple[str, bool]]]) -> tuple[StateMachine, ...]:
    """Mark the state-register candidates of the elaborated netlist and let fsm_extract read them;
    `sync_resets` (register -> its synchronous resets, signal and active high) tells the reset's
    changes of state apart."""
    candidates = _state_register_candidates(NetlistIndex(elaborated))
    if not candidates:
        return ()
    for name in candidates:
        elaborated["netnames"][name].setdefault("attributes", {})["fsm_encoding"] = "auto"
        if name in elaborated["ports"]:
            _detach_port(elaborated, name)
    (runner.scratch / "netlist_candidates.json").write_text(json.dumps({"modules": {top: elaborated}}))
    netlist = NetlistIndex(yosys_module(runner, sources, ["read_json netlist_candidates.json", "fsm_detect",
                                                          "fsm_extract"], top, "netlist_fsm.json"))
    machines = [_state_machine(netlist, cell, sync_resets) for cell in netlist.cells if cell["type"] == "$fsm"]
    return tuple(sorted(machines, key=lambda machine: [*candidates, machine.register].index(machine.register)))


def state_outputs(runner: ToolRunner, sources: list[Path], top: str, machines: tuple[StateMachine, ...],
                  outputs: list[str]) -> dict[str, tuple[str, dict[int, int]]]:
    """Output -> (state register, {encoding: the output's value}) for each of `outputs` that is a
    function of one machine's state alone (a Moore output). Every flip-flop becomes ports
    (`expose -evert-dff`: its value an input `NAME.q`), then Yosys's `eval` sets that input to each
    state and shows the output; an output that needs any other input fails to evaluate."""
    commands = [*read_sources(runner, sources, ()), f"hierarchy -check -top {top}", "proc", "flatten", "opt_clean",
                "expose -evert-dff", "opt_clean"]
    asked = [(machine, state, output) for machine in machines for state in machine.states for output in outputs]
    commands += [f"tee -q -o eval{index}.txt eval -set {machine.register}.q {state} -show {output}"
                 for index, (machine, state, output) in enumerate(asked)]
    run = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join(commands)])
    values: dict[tuple[str, str], dict[int, int]] = {}
    for index, (machine, state, output) in enumerate(asked):
        path = runner.scratch / f"eval{index}.txt"
        found = _EVAL_RESULT.search(path.read_text()) if run.ok and path.exists() else None
        if found and set(found.group(1)) <= {"0", "1"}:
            values.setdefault((output, machine.register), {})[state] = int(found.group(1))
    counts = {machine.register: len(machine.states) for machine in machines}
    found: dict[str, tuple[str, dict[int, int]]] = {}
    for (output, register), table in values.items():
        if len(table) == counts[register]:
            found.setdefault(output, (register, table))
    return found
