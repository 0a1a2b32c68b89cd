"""Register-mode claims checked on Icarus: "`q` takes `data` when `load` is high, else rotates right
by one bit when `ena` is 01, else holds its value" must hold cycle by cycle in simulation.

The claim is written from the gate-level netlist (`hdlrl.hdl.register_modes`); here its text is
read back into a chain of conditions and modes, and the module runs alone on Icarus: its resets
held for `RESET_CYCLES` then released, every other input random on every cycle for
`RANDOM_CYCLES`. At each clock edge after the release where everything watched is defined, the first clause whose
condition holds on the inputs before the edge must give the register's value after it. Every
clause must be seen, or the claim stays unverified.
"""

from __future__ import annotations

import re

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.register_modes import Mode
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import (BEFORE_EDGE, Evidence, edge_series, reset_then_random, simulate_phases,
                                            watched_registers)

RESET_CYCLES, RANDOM_CYCLES, MIN_CHECKED_CYCLES = 2, 96, 16
_CLAUSE = re.compile(r"^(?P<phrase>.*?)(?: when `\{\}` is (?P<level>high|low|[01]+))?$")
_PHRASES = [(re.compile(r"holds its value"), lambda match: Mode("hold")),
            (re.compile(r"takes `\{\}`"), lambda match: Mode("load", source="")),
            (re.compile(r"rotates (left|right) by one bit"), lambda match: Mode("rotate", match.group(1))),
            (re.compile(r"shifts (left|right) by one bit, filled by `\{\}`"),
             lambda match: Mode("shift", match.group(1), source="")),
            (re.compile(r"shifts (left|right) by one bit, filled with ([01])"),
             lambda match: Mode("shift", match.group(1), value=int(match.group(2)))),
            (re.compile(r"becomes (\d+)"), lambda match: Mode("constant", value=int(match.group(1))))]

Clause = tuple[Mode, tuple[str, str] | None]  # a mode, and the input and level that select it (None: the rest)


def claimed_chain(claim: Claim) -> list[Clause] | None:
    """The clauses a register_mode claim states, in order, each `{}` filled from its names; None
    when its text is not one this module reads."""
    names = list(claim.names[1:])
    chain: list[Clause] = []
    for text in claim.value.split(", else "):
        clause = _CLAUSE.match(text)
        mode = next((build(found) for pattern, build in _PHRASES
                     if (found := pattern.fullmatch(clause.group("phrase")))), None)
        if mode is None:
            return None
        if mode.source == "":
            if not names:
                return None
            mode = Mode(mode.kind, mode.direction, names.pop(0), mode.value)
        condition = None
        if clause.group("level"):
            if not names:
                return None
            condition = (names.pop(0), clause.group("level"))
        chain.append((mode, condition))
    return chain if not names and chain and chain[-1][1] is None else None


def _holds(level: str, bits: str) -> bool:
    """Whether an input's bits are at a clause's level: high, low, or a binary value."""
    return int(bits, 2) == ({"high": 1, "low": 0}[level] if level in ("high", "low") else int(level, 2))


class RegisterModeEvidence:
    """Simulates one module once, every register with modes watched; `__call__` gives a claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.series: dict[str, list[str]] | str | None = None

    def __call__(self, claim: Claim) -> Evidence:
        register = claim.names[0]
        chain = claimed_chain(claim)
        if chain is None or register not in watched_registers(self.facts):
            return Evidence("unverified", f"{register} is not a register the bench can watch with this claim")
        inputs = list(dict.fromkeys(name for mode, condition in chain
                                    for name in (mode.source, condition[0] if condition else None) if name))
        if self.series is None:
            phases = reset_then_random(self.behaviour, RESET_CYCLES, RANDOM_CYCLES)
            watched = list(dict.fromkeys([register, *inputs, *self._watched()]))
            samples = simulate_phases(self.module, self.facts, phases, watched, self.sandbox, before_edge=True)
            self.series = samples if isinstance(samples, str) else edge_series(samples, ("S",), watched)
        if isinstance(self.series, str):
            return Evidence("unverified", self.series)
        return self._judge(register, chain, inputs, self.series)

    def _watched(self) -> list[str]:
        return [name for modes in self.behaviour.register_modes
                for name in (modes.register, *(control for control, _ in modes.controls),
                             *(mode.source for mode in modes.modes if mode.source))]

    @staticmethod
    def _judge(register: str, chain: list[Clause], inputs: list[str], series: dict[str, list[str]]) -> Evidence:
        before, after = series.get(register + BEFORE_EDGE, []), series.get(register, [])
        columns = {name: series.get(name + BEFORE_EDGE, []) for name in inputs}
        seen, checked = set(), 0
        for cycle in range(min(len(before), len(after), *(len(column) for column in columns.values()))):
            values = {name: column[cycle] for name, column in columns.items()}
            if any(set(bits) - {"0", "1"} for bits in (before[cycle], after[cycle], *values.values())):
                continue  # a register with no reset is unknown until it loads
            index, (mode, _) = next((index, clause) for index, clause in enumerate(chain)
                                    if clause[1] is None or _holds(clause[1][1], values[clause[1][0]]))
            width = len(after[cycle])
            expected = mode.next_value(int(before[cycle], 2), {name: int(bits, 2) for name, bits in values.items()},
                                       width)
            if int(after[cycle], 2) != expected:
                return Evidence("refuted", f"edge {cycle + 1}: {register} went from {before[cycle]} to {after[cycle]}, "
                                           f"not {expected:0{width}b} ({mode.phrase()})")
            seen.add(index)
            checked += 1
        if checked < MIN_CHECKED_CYCLES or len(seen) < len(chain):
            return Evidence("unverified", f"{checked} edges checked, {len(seen)} of the {len(chain)} clauses seen")
        return Evidence("verified", f"{register} followed every one of the {len(chain)} clauses on {checked} random "
                                    "edges")
