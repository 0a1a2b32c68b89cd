"""Status-flag claims checked on Icarus: "`zero` is high when `count` is 0" must hold in simulation.

The claim is written from Yosys's gate-level netlist (`hdlrl.hdl.status_flag`); here the claim's
meaning is simulated instead: the module alone on Icarus, its resets held for `RESET_CYCLES`
then released, every other input random on every cycle for `RANDOM_CYCLES`. Once each cycle's
inputs settle, before its clock edge, the flag must be what the claim gives from the register's
value and the input's level; the flag must be seen both high and low, or the claim stays
unverified.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.status_flag import StatusFlag
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import (BEFORE_EDGE, Evidence, edge_series, reset_then_random, simulate_phases,
                                            watched_registers)
from hdlrl.summarize.state_changes import state_names

RESET_CYCLES, RANDOM_CYCLES = 2, 1024


def claimed_flag(claim: Claim, facts: ModuleFacts) -> StatusFlag | None:
    """The flag a "flag" claim states ("when 9 high": `count` is 9 and the input high), a state's
    name read as its encoding; None when the value names no number or state."""
    output, register, *inputs = claim.names
    when, value, *level = claim.value.split()
    encodings = {name: encoding for encoding, name in state_names(facts, register).items()}
    number = int(value) if value.isdigit() else encodings.get(value)
    if number is None:
        return None
    return StatusFlag(output, register, number, when == "when", inputs[0] if inputs else None, level != ["low"])


class FlagEvidence:
    """Simulates one module once per set of watched names; `__call__` gives a flag claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.series: dict[tuple[str, ...], dict[str, list[str]] | str] = {}

    def __call__(self, claim: Claim) -> Evidence:
        flag = claimed_flag(claim, self.facts)
        if flag is None or flag.register not in watched_registers(self.facts):
            return Evidence("unverified", f"{claim.names[1]} is not a register the bench can watch")
        watched = tuple(dict.fromkeys(name for each in (*self.behaviour.flags.values(), flag)
                                      for name in (each.output, each.register, each.input) if name))
        if watched not in self.series:
            phases = reset_then_random(self.behaviour, RESET_CYCLES, RANDOM_CYCLES)
            samples = simulate_phases(self.module, self.facts, phases, list(watched), self.sandbox, before_edge=True)
            self.series[watched] = samples if isinstance(samples, str) else edge_series(
                samples, tuple(label for label, _, _ in phases), list(watched))
        series = self.series[watched]
        if isinstance(series, str):
            return Evidence("unverified", series)
        columns = [series.get(name + BEFORE_EDGE, []) for name in (flag.output, flag.register, flag.input) if name]
        levels = set()
        for cycle, row in enumerate(zip(*columns)):
            if any(set(bits) - {"0", "1"} for bits in row):
                continue
            output, register, *level = (int(bits, 2) for bits in row)
            expected = int(flag.holds(register, *level))
            if output != expected:
                return Evidence("refuted", f"in cycle {cycle + 1} with {flag.register}={register}, "
                                           f"{flag.output} was {output}, not {expected}")
            levels.add(output)
        if levels != {0, 1}:
            return Evidence("unverified", f"{flag.output} was not seen both high and low")
        return Evidence("verified", f"{flag.output} followed {flag.register} in every cycle of {RANDOM_CYCLES}")
