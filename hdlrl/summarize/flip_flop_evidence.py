"""Flip-flop claims checked on Icarus: "`q` is a JK flip-flop on `j` and `k`" must hold in simulation.

The claim is written from Yosys's netlist (the register's next-state table,
`hdlrl.hdl.flip_flop_kind`); here the module runs alone on Icarus: every reset the netlist shows
but the claim's inputs held for `RESET_CYCLES` then released, every other input random on every
cycle for `RANDOM_CYCLES` (an SR flip-flop's R is one of its inputs, though it clears as a reset).
After each clock edge the register must be what the kind's characteristic equation gives from
its value before the edge and the inputs the edge sampled; every row of the equation must be
seen at least once.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.flip_flop_kind import characteristic
from hdlrl.hdl.ir import Module
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import Evidence, reset_then_random, simulate_phases, watched_registers

RESET_CYCLES, RANDOM_CYCLES = 2, 64


class FlipFlopEvidence:
    """Simulates one module once, its registers and one-bit inputs watched; `__call__` gives a claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.samples: dict[tuple[str, ...], dict[tuple[str, str], list[str]] | str] = {}  # by the inputs left free

    def __call__(self, claim: Claim) -> Evidence:
        register, *inputs = claim.names
        equation = characteristic(claim.value)
        if register not in watched_registers(self.facts) or equation is None:
            return Evidence("unverified", f"{register} cannot be watched as a {claim.value} flip-flop")
        key = tuple(sorted(inputs))
        if key not in self.samples:
            watched = [*watched_registers(self.facts), *(port.name for port in self.facts.ports
                                                         if port.direction == "input" and port.width == 1)]
            phases = [(label, cycles, {name: level for name, level in held.items() if name not in inputs})
                      for label, cycles, held in reset_then_random(self.behaviour, RESET_CYCLES, RANDOM_CYCLES)]
            self.samples[key] = simulate_phases(self.module, self.facts, phases, list(dict.fromkeys(watched)),
                                                self.sandbox)
        samples = self.samples[key]
        if isinstance(samples, str):
            return Evidence("unverified", samples)
        values = samples.get(("S", register), [])
        sampled = [samples.get(("S", name), []) for name in inputs]
        seen = set()
        for cycle in range(1, len(values)):
            row = [values[cycle - 1], *(series[cycle] for series in sampled if cycle < len(series))]
            if len(row) != len(inputs) + 1 or any(bits not in ("0", "1") for bits in [*row, values[cycle]]):
                continue
            expected = equation(*map(int, row))
            if int(values[cycle]) != expected:
                shown = ", ".join(f"{name}={bits}" for name, bits in zip(inputs, row[1:]))
                return Evidence("refuted", f"after edge {cycle + 1} from {register}={row[0]} with {shown}, "
                                           f"{register} was {values[cycle]}, not {expected}")
            seen.add(tuple(row))
        if len(seen) < 1 << (len(inputs) + 1):
            return Evidence("unverified", f"only {len(seen)} of the {1 << (len(inputs) + 1)} rows were seen")
        return Evidence("verified", f"{register} followed the {claim.value} equation on every row, "
                                    f"{len(values) - 1} random cycles")
