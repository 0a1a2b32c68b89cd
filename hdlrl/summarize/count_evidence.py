"""Counter-range claims checked on Icarus: the stimulus Yosys's `sim` wrote the range from, run again.

A range is written from the netlist (`hdlrl.summarize.counting`); here the module runs alone on
Icarus with the same stimulus (every reset held, then released; enables active; every other
input 0) and the trace must give the same range, or the same cycle for a register that counts
by other steps (an LFSR).
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.netlist_facts import NetlistFacts
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.counting import RESET_CYCLES, claim_value, count_of, counted_registers, stimulus
from hdlrl.summarize.reset_evidence import Evidence, simulate_phases, watched_registers


class CountEvidence:
    """Runs the same stimulus on Icarus once per module; `__call__` gives a count_range claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, netlist: NetlistFacts, sandbox: bool | None = None):
        self.module, self.facts, self.netlist, self.sandbox = module, facts, netlist, sandbox
        self.samples: dict[tuple[str, str], list[str]] | str | None = None

    def __call__(self, claim: Claim) -> Evidence:
        register = claim.names[0]
        widths = counted_registers(self.facts, self.netlist)
        if register not in widths or register not in watched_registers(self.facts):
            return Evidence("unverified", f"{register} is not a register the bench can watch")
        if self.samples is None:
            resets, held = stimulus(self.facts, self.netlist)
            levels = {name: bool(value) for name, value in held.items()}
            cycles = (1 << max(widths.values())) + 2
            self.samples = simulate_phases(self.module, self.facts, [
                ("R", RESET_CYCLES, {**resets, **levels}),
                ("C", cycles, {**{name: not high for name, high in resets.items()}, **levels})],
                list(widths), self.sandbox)
        if isinstance(self.samples, str):
            return Evidence("unverified", self.samples)
        trace = [int(bits, 2) if set(bits) <= {"0", "1"} else None
                 for phase in "RC" for bits in self.samples.get((phase, register), [])]
        found = count_of(register, trace, widths[register])
        if found is None or claim_value(found) != claim.value:
            shown = found.sentence() if found else f"{register} neither turns nor cycles"
            return Evidence("refuted", f"on Icarus {shown}")
        return Evidence("verified", f"on Icarus too, {found.sentence()}")
