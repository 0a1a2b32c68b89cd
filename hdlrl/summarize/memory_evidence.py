"""Memory claims checked on Icarus: "a write stores `d` in `mem` at `addr` ...", "reads are synchronous ...".

The claims are written from Yosys's memory cells (`hdlrl.hdl.memory_ports`); here the module
runs alone on Icarus instead: every reset the netlist shows held for `RESET_CYCLES`, then every
input random on every cycle for `RANDOM_CYCLES`, the write enables included. A model of the
memory, built from the claimed write ports alone, must then predict every defined word each
read port shows:

- a read claim holds when its port shows the model's word on every cycle where that word is
  known (written in the run, or the source's initial value), at once or one cycle later, the
  old or the new word where a write hits the address read;
- a write claim holds when the memory's read ports show words this run wrote through the
  claimed port on at least `MIN_READS` cycles, and no read contradicts them (a cycle where a
  write hits the address read is left out, so the read port's timing cannot decide it).

A word the model cannot know (no write yet, two ports writing one address) is skipped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.memory_ports import MemoryPorts, ReadPort, WritePort
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.reset_evidence import (BEFORE_EDGE, SIMPLE_NAME, Evidence, edge_series, reset_then_random,
                                           simulate_phases)

RESET_CYCLES, RANDOM_CYCLES, MIN_READS = 2, 96, 8


@dataclass
class _Reads:
    """What one read port showed against the model: words matched (and of those, per write port,
    words it wrote in the run, with no write to that address in the cycle), and the first mismatch."""

    matched: int = 0
    written: Counter[WritePort] = field(default_factory=Counter)
    mismatch: str = ""
    mismatch_without_write: str = ""  # the first on a cycle where no write hit the address read


def _defined(bits: str | None) -> int | None:
    return int(bits, 2) if bits and set(bits) <= {"0", "1"} else None


class MemoryEvidence:
    """Simulates one module once, every port watched; `__call__` replays the model a claim makes."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.series: dict[str, list[str]] | str | None = None  # port -> its value on each cycle

    def __call__(self, claim: Claim) -> Evidence:
        """The claim's own port put in place of the netlist's (a read port by its output, a write port
        by its address and data), the memory's other ports as the netlist has them."""
        memory, port = self._claimed(claim)
        if memory is None or port is None:
            return Evidence("unverified", "no memory of the module has a port this claim can be about")
        if self.series is None:
            self.series = self._simulate()
        if isinstance(self.series, str):
            return Evidence("unverified", self.series)
        if any(name not in self.series for name in _port_names(memory)):
            return Evidence("unverified", "the claim names a signal the bench cannot watch")
        reads = _replay_memory(memory, self.series)
        if isinstance(port, ReadPort):
            return _read_verdict(reads[port.output], port.output)
        return _write_verdict(list(reads.values()), memory.name, port)

    def _claimed(self, claim: Claim) -> tuple[MemoryPorts | None, ReadPort | WritePort | None]:
        if claim.kind == "memory_read":
            output, address = claim.names
            timing, _, collision = claim.value.partition(" ")
            for memory in self.behaviour.memories:
                clocked = next((port for port in memory.reads if port.output == output), None)
                if clocked is not None:
                    port = ReadPort(output, address, None) if timing == "asynchronous" else ReadPort(
                        output, address, clocked.clock or "", clocked.edge, collision == "new")
                    return replace(memory, reads=tuple(port if each is clocked else each for each in memory.reads)), port
        if claim.kind == "memory_write" and len(claim.names) in (4, 5):
            name, address, data, clock, *enable = claim.names
            edge, _, level = claim.value.partition(" ")
            port = WritePort(clock, edge, address, data, enable[0] if enable else None, level != "low")
            for memory in self.behaviour.memories:
                if memory.name == name:
                    others = tuple(each for each in memory.writes if (each.address, each.data) != (address, data))
                    return replace(memory, writes=(port, *others)), port
        return None, None

    def _simulate(self) -> dict[str, list[str]] | str:
        """Every simple-named port on each cycle: a reset held, then every input random."""
        phases = reset_then_random(self.behaviour, RESET_CYCLES, RANDOM_CYCLES)
        watched = [port.name for port in self.facts.ports if SIMPLE_NAME.match(port.name)]
        samples = simulate_phases(self.module, self.facts, phases, watched, self.sandbox, before_edge=True)
        if isinstance(samples, str):
            return samples
        return edge_series(samples, tuple(label for label, _, _ in phases), watched)


def _port_names(memory: MemoryPorts) -> list[str]:
    """The signals the model of `memory` reads: each write port's address, data and enable, each
    read port's output and address."""
    return [*(name for port in memory.writes for name in (port.address, port.data, port.enable) if name),
            *(name for port in memory.reads for name in (port.output, port.address))]


def _read_verdict(found: _Reads, output: str) -> Evidence:
    if found.mismatch:
        return Evidence("refuted", found.mismatch)
    if found.matched < MIN_READS:
        return Evidence("unverified", f"{output} showed a known word on only {found.matched} cycles")
    return Evidence("verified", f"{output} showed the word the model predicts on {found.matched} random cycles")


def _write_verdict(reads: list[_Reads], memory: str, port: WritePort) -> Evidence:
    mismatch = next((found.mismatch_without_write for found in reads if found.mismatch_without_write), "")
    written = sum(found.written[port] for found in reads)
    if mismatch:
        return Evidence("refuted", mismatch)
    if written < MIN_READS:
        return Evidence("unverified", f"{memory} gave back a word written in the run on only {written} cycles")
    return Evidence("verified", f"{memory} gave back the words written through the claimed port on "
                                f"{written} random cycles")


def _replay_memory(memory: MemoryPorts, series: dict[str, list[str]]) -> dict[str, _Reads]:
    """Run the model of `memory` over the sampled cycles and hold each read port (by output) against it."""
    cycles = min((len(values) for values in series.values()), default=0)
    image: list[int | None] = list(memory.initial)
    written: dict[int, WritePort] = {}  # address -> the port that last wrote it
    found = {port.output: _Reads() for port in memory.reads}
    for cycle in range(cycles):
        before = list(image)
        hits: dict[int, int] = {}
        for port in memory.writes:
            enable = _defined(series[port.enable][cycle]) if port.enable else 1
            address, data = _defined(series[port.address][cycle]), _defined(series[port.data][cycle])
            if enable is None or (enable == int(port.enable_high) and address is None):
                image, written = [None] * memory.depth, {}  # a write the model cannot place
                continue
            if enable == int(port.enable_high) and address < memory.depth:
                hits[address] = hits.get(address, 0) + 1
                image[address] = data if hits[address] == 1 else None
                written[address] = port
        for port in memory.reads:
            _judge_read(port, found[port.output], series, cycle, before, image, written, hits)
    return found


def _judge_read(port: ReadPort, found: _Reads, series: dict[str, list[str]], cycle: int, before: list,
                after: list, written: dict[int, WritePort], hits: dict[int, int]) -> None:
    """One cycle of one read port: the word it shows against the model's, before the clock edge
    (an asynchronous port shows the word at the new address at once, a synchronous one holds its
    last word) and after it."""
    address, shown = _defined(series[port.address][cycle]), _defined(series[port.output][cycle])
    early = _defined(series[port.output + BEFORE_EDGE][cycle])
    if address is None or address >= len(after):
        return
    if port.clock is None:
        early_expected = before[address]
    else:
        early_expected = _defined(series[port.output][cycle - 1]) if cycle else None
    expected = after[address] if port.clock is None or port.new_on_write else before[address]
    for value, wanted, when in ((early, early_expected, "before"), (shown, expected, "after")):
        if value is None or wanted is None:
            continue
        if value != wanted:
            mismatch = (f"on cycle {cycle + 1}, {when} the clock edge, {port.output} showed {value} for address "
                        f"{address}, not the {wanted} the claimed ports predict")
            found.mismatch = found.mismatch or mismatch
            if address not in hits:
                found.mismatch_without_write = found.mismatch_without_write or mismatch
            return
    if shown is None or expected is None:
        return
    found.matched += 1
    if address in written and address not in hits:
        found.written[written[address]] += 1
