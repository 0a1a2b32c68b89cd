"""Which kind of flip-flop a one-bit register is (T, JK or SR), from its next-state table.

A spec names a JK flip-flop, not "a register with a case statement". The table is the
register's next value as a function of itself and the inputs its D logic reads, resets
included (`hdlrl.hdl.truth_table.next_state_tables`); the resets are held inactive, and the
rest must be one of the textbook characteristic equations on every row:

- T:  Q+ = T xor Q
- JK: Q+ = J and not Q, or not K and Q
- SR: Q+ = S or (not R and Q) where S wins, not R and (S or Q) where R wins

A register that loads an input (a D flip-flop) is a data path (`hdlrl.summarize.behaviour`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hdlrl.hdl.truth_table import TruthTable


@dataclass(frozen=True)
class FlipFlop:
    """`register` is a flip-flop of `kind` ("T", "JK", "SR set wins", "SR reset wins") on `inputs`,
    in the order the kind names them (T; J, K; S, R)."""

    register: str
    kind: str
    inputs: tuple[str, ...]


@dataclass(frozen=True)
class _Kind:
    inputs: int  # how many inputs the equation reads besides Q
    equation: Callable[..., int]  # (Q, the inputs in the kind's order) -> Q+


_KINDS: dict[str, _Kind] = {
    "T": _Kind(1, lambda q, t: q ^ t),
    "JK": _Kind(2, lambda q, j, k: (j & (1 - q)) | ((1 - k) & q)),
    "SR set wins": _Kind(2, lambda q, s, r: s | ((1 - r) & q)),
    "SR reset wins": _Kind(2, lambda q, s, r: (1 - r) & (s | q)),
}


def characteristic(kind: str) -> Callable[..., int] | None:
    """Q+ as a function of (Q, the inputs in the kind's order), for a kind `FlipFlop` names."""
    return _KINDS[kind].equation if kind in _KINDS else None


def recognise_flip_flop(table: TruthTable, resets: Mapping[str, bool]) -> FlipFlop | None:
    """The kind of flip-flop `table` (first input: the register itself) is, with `resets`
    ({signal: active high}) held inactive, or else with every input free: an SR flip-flop's R
    clears it as a synchronous reset would. None when it is none of them."""
    if any(width != 1 for _, width in table.inputs):
        return None
    return _recognise(table, resets) or (_recognise(table, {}) if resets else None)


def _recognise(table: TruthTable, resets: Mapping[str, bool]) -> FlipFlop | None:
    register, *others = table.inputs
    controls = [name for name, _ in others if name not in resets]
    rows = []  # (Q, {control: value}, Q+) with every reset inactive
    for index, next_value in enumerate(table.rows):
        values = {name: (index >> position) & 1 for position, (name, _) in enumerate(table.inputs)}
        if all(values[name] != int(level) for name, level in resets.items() if name in values):
            rows.append((values[register[0]], values, next_value))
    for kind, entry in _KINDS.items():
        orders = [controls] if entry.inputs == 1 else [controls, controls[::-1]]
        for order in orders if len(controls) == entry.inputs else []:
            if all(entry.equation(q, *(values[name] for name in order)) == next_value
                   for q, values, next_value in rows):
                return FlipFlop(register[0], kind, tuple(order))
    return None
