"""Data-path claims checked on Icarus: "`q` takes the value of `d`", "`s` shifts left, taking `si`".

The claim is written from Yosys's netlist (what each flip-flop's D input reads,
`hdlrl.summarize.behaviour.DataPath`); here the module runs alone on Icarus: every reset the
netlist shows held for `RESET_CYCLES` then released, every enable held active, every other
input random on every cycle for `RANDOM_CYCLES`. After each clock edge where they are defined a loaded register must
equal its source, and a shift register its last value moved one place with the source's bit
filling the free end.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import Evidence, simulate_phases, watched_registers

RESET_CYCLES, RANDOM_CYCLES, MIN_CHECKED_CYCLES = 2, 48, 8


def _expected(kind: str, previous: int, source: int, width: int) -> int:
    mask = (1 << width) - 1
    if kind == "load":
        return source & mask
    if kind == "left":
        return ((previous << 1) | (source & 1)) & mask
    return (previous >> 1) | ((source & 1) << (width - 1))


class DataPathEvidence:
    """Simulates one module once, every data path watched; `__call__` gives a claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.samples: dict[tuple[str, str], list[str]] | str | None = None

    def __call__(self, claim: Claim) -> Evidence:
        register, source = claim.names
        if register not in watched_registers(self.facts):
            return Evidence("unverified", f"{register} is not a register the bench can watch")
        if self.samples is None:
            self.samples = simulate_phases(self.module, self.facts, self._phases(), self._watched(), self.sandbox)
        if isinstance(self.samples, str):
            return Evidence("unverified", self.samples)
        values = self.samples.get(("S", register), [])
        sources = self.samples.get(("S", source), [])
        checked = 0
        for cycle in range(1, min(len(values), len(sources))):
            if any(set(bits) - {"0", "1"} for bits in (values[cycle - 1], values[cycle], sources[cycle])):
                continue  # a register with no reset fills before it is defined
            width = len(values[cycle])
            expected = _expected(claim.value, int(values[cycle - 1], 2), int(sources[cycle], 2), width)
            if int(values[cycle], 2) != expected:
                return Evidence("refuted", f"after edge {cycle + 1} with {source}={sources[cycle]}, {register} was "
                                           f"{values[cycle]}, not {expected:0{width}b}")
            checked += 1
        if checked < MIN_CHECKED_CYCLES:
            return Evidence("unverified", f"{register} and {source} were defined on only {checked} cycles")
        return Evidence("verified", f"{register} followed {source} as claimed on {checked} random cycles")

    def _watched(self) -> list[str]:
        paths = [(path.register, path.source) for path in self.behaviour.data_paths]
        return list(dict.fromkeys(name for pair in paths for name in pair))

    def _phases(self) -> list[tuple[str, int, dict[str, bool]]]:
        netlist = self.behaviour.netlist
        assert netlist is not None
        resets = {reset.signal: reset.active_high for reset in netlist.resets if reset.module_input}
        inputs = {port.name for port in self.facts.ports if port.direction == "input" and port.width == 1}
        enables = {enable.signal: enable.active_high for register in netlist.registers for enable in register.enables
                   if enable.signal in inputs and enable.signal not in resets}
        released = {name: not level for name, level in resets.items()}
        return [("R", RESET_CYCLES, {**resets, **enables}), ("S", RANDOM_CYCLES, {**released, **enables})]
