"""Enable claims checked by simulation: "`count` changes only while `en` is high" must hold on Icarus.

The claim is written from Yosys's netlist (the flip-flop's enable), so here the module runs
alone on Icarus instead: every reset the netlist shows is pulsed and then held inactive, the
enable is held active for `LOAD_CYCLES`, inactive for `HOLD_CYCLES`, then active again for
`FREE_CYCLES`, every other input random on every cycle. The claim holds when the register keeps
one defined value while the enable is inactive and moves while it is active; a move while
inactive refutes it.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import Evidence, simulate_phases, watched_registers

RESET_CYCLES, LOAD_CYCLES, HOLD_CYCLES, FREE_CYCLES = 2, 8, 8, 16


class EnableEvidence:
    """Simulates each enable signal of one module once; `__call__` gives a claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.cache: dict[tuple[str, str], dict[tuple[str, str], list[str]] | str] = {}

    def __call__(self, claim: Claim) -> Evidence:
        register, signal = claim.names
        active = claim.value == "high"
        if register not in watched_registers(self.facts) or not any(
                port.name == signal and port.direction == "input" and port.width == 1 for port in self.facts.ports):
            return Evidence("unverified", f"{register} cannot be watched with {signal} as a 1-bit input")
        key = (signal, claim.value)
        if key not in self.cache:
            self.cache[key] = simulate_phases(self.module, self.facts, self._phases(signal, active),
                                              watched_registers(self.facts), self.sandbox)
        samples = self.cache[key]
        if isinstance(samples, str):
            return Evidence("unverified", samples)
        held = samples.get(("H", register), [])
        moving = samples.get(("L", register), []) + samples.get(("F", register), [])
        level = "high" if active else "low"
        if len(set(held)) > 1:
            return Evidence("refuted", f"{register} moved while {signal} was held {'low' if active else 'high'}")
        if not held or set(held[0]) & set("xz") or len(set(moving)) < 2:
            return Evidence("unverified", f"{register} did not hold a defined value and move while {signal} "
                                          f"was {level}")
        return Evidence("verified", f"{register} held {HOLD_CYCLES} cycles with {signal} inactive and moved "
                                    f"while it was {level}")

    def _phases(self, signal: str, active: bool) -> list[tuple[str, int, dict[str, bool]]]:
        resets = {reset.signal: reset.active_high for reset in self.behaviour.netlist.resets
                  if reset.module_input and reset.signal != signal} if self.behaviour.netlist else {}
        released = {name: not level for name, level in resets.items()}
        phases = [("R", RESET_CYCLES, {**resets, signal: active})] if resets else []
        return phases + [("L", LOAD_CYCLES, {**released, signal: active}),
                         ("H", HOLD_CYCLES, {**released, signal: not active}),
                         ("F", FREE_CYCLES, {**released, signal: active})]
