"""A state machine's changes of state in the names the source gives its states, with the inputs they wait for.

Yosys's `fsm_extract` (`hdlrl.hdl.state_machines`) knows each change of state and the control
inputs it is taken under, but as encodings; the source names them (`localparam CLOSED = 2'd0`).
A change whose two states both have a name is one a summary can state: "from `CLOSED` to
`OPENING` when `button` is high".
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
