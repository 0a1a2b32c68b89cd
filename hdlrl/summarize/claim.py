"""One checkable statement of a summary, kept apart from how it is read and checked.

A claim names identifiers in `names` and keeps everything else in `value`, so that renaming a
module's identifiers maps its claims one to one (`Claim.renamed`); `hdlrl.summarize.claims`
reads claims from text and checks them, `hdlrl.summarize.netlist_claims` writes and checks the
ones that come from Yosys's netlist.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    kind: str  # identifier, width, direction, clock, reset, register, counter, state_machine, state, transition,
    #            memory, instance, parameter, behaviour, drives, reads, combinational, block_kind, and from the
    #            netlist (`hdlrl.summarize.behaviour`): function, reset_value, no_reset, latch, enable, count_range,
    #            data_path, memory_write, memory_read, transition_when, state_output, register_mode
    names: tuple[str, ...] = ()  # the identifiers it is about, in the order the kind defines
    value: str = ""  # everything else: bits, direction, edge, polarity, count, behaviour

    def renamed(self, renames: dict[str, str]) -> "Claim":
        return Claim(self.kind, tuple(renames.get(name, name) for name in self.names), self.value)


def reset_claim(signal: str, active_low: bool, asynchronous: bool) -> Claim:
    """The claim that states a reset: its signal, polarity and timing ("active-low asynchronous")."""
    polarity = "active-low" if active_low else "active-high"
    return Claim("reset", (signal,), f"{polarity} {'asynchronous' if asynchronous else 'synchronous'}")
