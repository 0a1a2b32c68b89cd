"""A state machine's changes of state in the names the source gives its states, with the inputs they wait for.

Yosys's `fsm_extract` (`hdlrl.hdl.state_machines`) knows each change of state and the control
inputs it is taken under, but as encodings; the source names them (`localparam CLOSED = 2'd0`).
A change whose two states both have a name is one a summary can state: "from `CLOSED` to
`OPENING` when `button` is high"; so is an output that the state alone sets: "`motor_up` is
high in `OPENING` and low in every other state".
"""

from __future__ import annotations

from dataclasses import dataclass

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.summarize.behaviour import Behaviour


@dataclass(frozen=True)
class NamedChange:
    """`register` goes from `source` to `target` (state names); when `condition` is not empty, exactly
    while each of its 1-bit inputs is at its level (True: high)."""

    register: str
    source: str
    target: str
    condition: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class StateOutput:
    """1-bit `output` is at `level` (True: high) exactly in `states` of `register`, at the other level in
    the machine's other states."""

    output: str
    register: str
    states: tuple[str, ...]
    level: bool


def state_names(facts: ModuleFacts, register: str) -> dict[int, str]:
    """Encoding -> name of the text's state machine on `register`, where one name has that value."""
    machine = next((machine for machine in facts.state_machines if machine.register == register), None)
    by_value: dict[int, list[str]] = {}
    for name in machine.states if machine else ():
        if isinstance(facts.parameters.get(name), int):
            by_value.setdefault(facts.parameters[name], []).append(name)
    return {value: names[0] for value, names in by_value.items() if len(names) == 1}


def named_changes(facts: ModuleFacts, behaviour: Behaviour | None) -> tuple[NamedChange, ...]:
    """Every change of state the netlist shows between two named states, in the netlist's order."""
    if behaviour is None or behaviour.netlist is None:
        return ()
    found = []
    for machine in behaviour.netlist.state_machines:
        names = state_names(facts, machine.register)
        conditions = {(source, target): condition for source, target, condition in machine.conditions}
        found += [NamedChange(machine.register, names[source], names[target], conditions.get((source, target), ()))
                  for source, target in machine.transitions if source in names and target in names]
    return tuple(found)


def named_outputs(facts: ModuleFacts, behaviour: Behaviour | None) -> tuple[StateOutput, ...]:
    """Each output of the state alone, over a machine whose every state has a name, said by the states
    at its rarer level."""
    if behaviour is None or behaviour.netlist is None:
        return ()
    machines = {machine.register: machine for machine in behaviour.netlist.state_machines}
    found = []
    for output, (register, rows) in behaviour.state_outputs.items():
        names, machine = state_names(facts, register), machines.get(register)
        if machine is None or not all(state in names and state in rows for state in machine.states):
            continue
        high = [names[state] for state in machine.states if rows[state]]
        low = [names[state] for state in machine.states if not rows[state]]
        if high and low:
            found.append(StateOutput(output, register, *((tuple(high), True) if len(high) <= len(low)
                                                         else (tuple(low), False))))
    return tuple(found)
