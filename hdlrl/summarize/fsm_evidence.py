"""State machine claims checked on Icarus: "from `CLOSED` to `OPENING` when `button` is high",
"`motor_up` is high in `OPENING` and low in every other state".

The condition is written from Yosys's `fsm_extract` table (`hdlrl.summarize.state_changes`);
here the module runs alone on Icarus instead: every reset the netlist shows held for
`RESET_CYCLES`, then every input random on every cycle for `RANDOM_CYCLES`, the state register
and the condition's signals printed before each clock edge and the register after it. Each
state encoding comes from the source's `localparam`. The claim holds when, on every edge where
the register was in the first state and the named inputs were at their levels, the register
went to the second state, and that happened at least `MIN_SEEN` times; one edge that went
elsewhere refutes it. An output claim holds when, after every edge, the output is at the
claimed level exactly in the claimed states, each of them seen.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import (BEFORE_EDGE, SIMPLE_NAME, Evidence, edge_series, reset_then_random,
                                           simulate_phases)
from hdlrl.summarize.state_changes import named_changes, named_outputs, state_names

RESET_CYCLES, RANDOM_CYCLES, MIN_SEEN = 2, 256, 2


class StateChangeEvidence:
    """Simulates one module once, the state registers and inputs watched; `__call__` judges a claim."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.series: dict[str, list[str]] | str | None = None

    def __call__(self, claim: Claim) -> Evidence:
        if self.series is None:
            self.series = self._simulate()
        if isinstance(self.series, str):
            return Evidence("unverified", self.series)
        return self._output(claim) if claim.kind == "state_output" else self._change(claim)

    def _change(self, claim: Claim) -> Evidence:
        source, target, *inputs = claim.names
        levels = claim.value.split()
        registers = {change.register for change in named_changes(self.facts, self.behaviour)
                     if (change.source, change.target) == (source, target)}
        if len(registers) != 1 or len(levels) != len(inputs):
            return Evidence("unverified", f"no one state register has the states {source} and {target}")
        register = registers.pop()
        values = {name: value for value, name in state_names(self.facts, register).items()}
        if any(name not in self.series for name in [register, *inputs]):
            return Evidence("unverified", "the claim names a signal the bench cannot watch")
        before, after, seen = self.series[register + BEFORE_EDGE], self.series[register], 0
        for cycle in range(min(len(before), len(after))):
            held = all(self.series[name + BEFORE_EDGE][cycle] == ("1" if level == "high" else "0")
                       for name, level in zip(inputs, levels))
            if before[cycle] != format(values[source], f"0{len(before[cycle])}b") or not held:
                continue
            if after[cycle] != format(values[target], f"0{len(after[cycle])}b"):
                return Evidence("refuted", f"on edge {cycle + 1}, {register} went from {source} to {after[cycle]} "
                                           f"with {', '.join(inputs)} {claim.value}")
            seen += 1
        if seen < MIN_SEEN:
            return Evidence("unverified", f"{register} was in {source} with the inputs at those levels {seen} times")
        return Evidence("verified", f"{register} went from {source} to {target} each of the {seen} times the "
                                    f"inputs were at those levels")

    def _output(self, claim: Claim) -> Evidence:
        """After every edge, the output at the claimed level exactly in the claimed states."""
        output, *states = claim.names
        registers = {each.register for each in named_outputs(self.facts, self.behaviour) if each.output == output}
        register = registers.pop() if len(registers) == 1 else None
        if register not in self.series or output not in self.series:
            return Evidence("unverified", f"{output} is not an output of one watched state register")
        names = state_names(self.facts, register)
        level, seen = "1" if claim.value == "high" else "0", set()
        for cycle, (state, value) in enumerate(zip(self.series[register], self.series[output])):
            name = names.get(int(state, 2)) if set(state) <= {"0", "1"} else None
            if name is None or value not in ("0", "1"):
                continue
            if (value == level) != (name in states):
                return Evidence("refuted", f"after edge {cycle + 1}, {output} was {value} in {name}")
            seen.add(name)
        if not set(states) <= seen or len(seen) < 2:
            return Evidence("unverified", f"{output} was seen in the states {', '.join(sorted(seen)) or 'none'} only")
        return Evidence("verified", f"{output} was {claim.value} in exactly the claimed states, over "
                                    f"{len(seen)} states seen")

    def _simulate(self) -> dict[str, list[str]] | str:
        """The state registers and the signals of their conditions once each cycle's inputs settle (what
        the edge sees) and after the edge: a reset held, then every input random."""
        changes = named_changes(self.facts, self.behaviour)
        named = [change.register for change in changes] + [name for change in changes for name, _ in change.condition]
        named += [name for output in named_outputs(self.facts, self.behaviour)
                  for name in (output.register, output.output)]
        watched = [name for name in dict.fromkeys(named) if SIMPLE_NAME.match(name)]
        phases = reset_then_random(self.behaviour, RESET_CYCLES, RANDOM_CYCLES)
        samples = simulate_phases(self.module, self.facts, phases, watched, self.sandbox, before_edge=True)
        if isinstance(samples, str):
            return samples
        return edge_series(samples, ("S",), watched)
