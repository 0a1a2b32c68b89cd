"""Reset claims checked by simulation: evidence from another source than the text that wrote them.

The summary's facts come from reading the source (`hdlrl.hdl.facts`), which takes the first
`if (x)` of a clocked block for a reset; so `if (load) q <= d;` reads as a reset `load`, and a
checker that reads the same facts can only agree. Here the claim is simulated instead: the
module alone on Icarus, every other input random on every cycle, the claimed reset held at its
claimed level for `HELD_CYCLES`, then released for `FREE_CYCLES`. A reset holds some register
at one defined value while held, and that register moves once released (so it was the reset
that held it); a register that moves while it is held leaves the claim unverified, as a reset
holds the whole state. An asynchronous reset sets it before any clock edge; a synchronous one
only on an edge. A module that does not simulate alone (a child in another file) leaves the claim
unverified, which counts as not verified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from hdlrl.eda.runner import Limits
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.sources import file_text
from hdlrl.summarize.behaviour import Behaviour, ResetValue
from hdlrl.summarize.claim import Claim, reset_claim
from hdlrl.summarize.evidence_benches import run_bench

BENCH_TOP = "hdlrl_reset_evidence"
HELD_CYCLES, FREE_CYCLES = 8, 16
_LIMITS = Limits(time_s=10.0, memory_mb=1024)
SIMPLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
BEFORE_EDGE = " before the edge"  # `edge_series` key suffix (no identifier has a space)
_SAMPLE = re.compile(r"^HDLRL (?P<phase>\w+) (?P<name>\S+) (?P<bits>[01xzXZ]+)$")


@dataclass(frozen=True)
class Evidence:
    status: str  # verified, refuted or unverified
    reason: str  # what the simulation showed, one sentence
    held: dict[str, str] = field(default_factory=dict)  # register -> the one defined value it kept while held


def _random_value(width: int) -> str:
    """A fresh random value of `width` bits from Icarus's `$random`, 32 bits at a time."""
    return "{" + ", ".join(["$random(seed)"] * ((width + 31) // 32)) + "}"


def phased_testbench(module: Module, facts: ModuleFacts, phases: list[tuple[str, int, dict[str, bool]]],
                     registers: list[str], before_edge: bool = False) -> str:
    """A bench that runs `phases` (label, clock cycles, {1-bit input: level held}) one after the
    other, every other input random on every cycle, and prints each register after every cycle as
    "HDLRL label name bits". Before the first edge each held input steps from the other level to its
    first level, and the registers are printed as label "A" (an asynchronous input acts there).
    `before_edge` also prints them as label+"B" once each cycle's new inputs settle, before its
    clock edge (what combinational logic shows at once)."""
    held = dict.fromkeys(name for _, _, levels in phases for name in levels)
    clocks = list(dict.fromkeys(name for name, _ in facts.clocks if name not in held))  # a clock of both edges once
    inputs = [port for port in facts.ports if port.direction == "input" and port.name not in clocks]
    randomise = " ".join(f"{port.name} = {_random_value(port.width or 64)};"
                         for port in inputs if port.name not in held)
    edge = " ".join(f"{clock} = 1'b1;" for clock in clocks), " ".join(f"{clock} = 1'b0;" for clock in clocks)

    def levels(values: dict[str, bool], flip: bool = False) -> str:
        return " ".join(f"{name} = 1'b{int(level != flip)};" for name, level in values.items())

    def sample(label: str, indent: str) -> list[str]:
        return [f'{indent}$display("HDLRL {label} {name} %b", dut.{name});' for name in registers]

    body = []
    for label, cycles, values in phases:
        settle = ["      #1;", *sample(label + "B", "      "), f"      #4 {edge[0]}"] if before_edge else [
            f"      #5 {edge[0]}"]
        body += [f"    {levels(values)}", f"    repeat ({cycles}) begin", f"      {randomise}",
                 *settle, f"      #5 {edge[1]}", *sample(label, "      "), "    end"]
    return "\n".join([
        "`timescale 1ns/1ps", f"module {BENCH_TOP};", "  integer seed = 1;",
        *(f"  reg {clock} = 1'b0;" for clock in clocks),
        *(f"  reg [{(port.width or 64) - 1}:0] {port.name};" for port in inputs),
        f"  {module.name} dut(" + ", ".join(f".{name}({name})" for name in [*clocks, *(p.name for p in inputs)]) + ");",
        "  initial begin", f"    {levels(phases[0][2], flip=True)} {randomise}",
        f"    #1 {levels(phases[0][2])}", "    #1;",
        *sample("A", "    "), *body, "    $finish;", "  end", "endmodule", ""])


def simulate_phases(module: Module, facts: ModuleFacts, phases: list[tuple[str, int, dict[str, bool]]],
                    registers: list[str], sandbox: bool | None, before_edge: bool = False,
                    ) -> dict[tuple[str, str], list[str]] | str:
    """{(label, register): values in order} from `phased_testbench` on Icarus, or why it did not run."""
    run = run_bench(file_text(module), phased_testbench(module, facts, phases, registers, before_edge), BENCH_TOP,
                    _LIMITS, sandbox)
    if not run.ok:
        first = next(iter(run.output.strip().splitlines()), run.fault or "no output")
        return f"the module does not simulate alone: {first}"
    samples: dict[tuple[str, str], list[str]] = {}
    for match in map(_SAMPLE.match, run.output.splitlines()):
        if match:
            samples.setdefault((match.group("phase"), match.group("name")), []).append(match.group("bits").lower())
    return samples


def reset_then_random(behaviour: Behaviour, reset_cycles: int, random_cycles: int,
                      ) -> list[tuple[str, int, dict[str, bool]]]:
    """`simulate_phases`' phases: every reset of the netlist that is a module input held active for
    `reset_cycles` (phase "R", left out when there is none), then released for `random_cycles`
    (phase "S"), every other input random throughout."""
    netlist = behaviour.netlist
    resets = {reset.signal: reset.active_high for reset in netlist.resets if reset.module_input} if netlist else {}
    released = ("S", random_cycles, {name: not level for name, level in resets.items()})
    return [("R", reset_cycles, resets), released] if resets else [released]


def edge_series(samples: dict[tuple[str, str], list[str]], labels: tuple[str, ...], names: list[str],
                ) -> dict[str, list[str]]:
    """From `simulate_phases(..., before_edge=True)`: name -> its values after each clock edge, and
    name + BEFORE_EDGE -> its values once that cycle's inputs settle, the phases `labels` in order."""
    series = {name: [bits for label in labels for bits in samples.get((label, name), [])] for name in names}
    return series | {name + BEFORE_EDGE: [bits for label in labels for bits in samples.get((label + "B", name), [])]
                     for name in names}


def watched_registers(facts: ModuleFacts) -> list[str]:
    """The registers a bench can print by name: simple names, memories left out."""
    memories = {memory.name for memory in facts.memories}
    return [name for name in facts.registers if name not in memories and SIMPLE_NAME.match(name)]


class ResetEvidence:
    """Simulates each distinct reset claim of one module once; `__call__` gives its evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, sandbox: bool | None = None):
        self.module, self.facts, self.sandbox = module, facts, sandbox
        self.cache: dict[tuple[str, str], Evidence] = {}

    def __call__(self, claim: Claim) -> Evidence:
        key = (claim.names[0], claim.value)
        if key not in self.cache:
            self.cache[key] = self._simulate(claim)
        return self.cache[key]

    def _simulate(self, claim: Claim) -> Evidence:
        signal = claim.names[0]
        polarity, _, timing = claim.value.partition(" ")
        registers = watched_registers(self.facts)
        if not registers or not any(port.name == signal and port.direction == "input" for port in self.facts.ports):
            return Evidence("unverified", f"{signal} is not an input of a module with registers to watch")
        active_high = polarity != "active-low"
        samples = simulate_phases(self.module, self.facts, [("H", HELD_CYCLES, {signal: active_high}),
                                                            ("F", FREE_CYCLES, {signal: not active_high})],
                                  registers, self.sandbox)
        if isinstance(samples, str):
            return Evidence("unverified", samples)
        return replace(_judge(signal, polarity, timing, samples), held=_kept(samples))

    def value_evidence(self, value: ResetValue) -> Evidence:
        """Whether holding the reset keeps the register at the value the netlist gives."""
        found = self(reset_claim(value.signal, not value.active_high, value.asynchronous))
        bits = found.held.get(value.register)
        if found.status == "refuted" or bits is None:
            return Evidence("unverified", f"{value.register} did not keep one defined value with {value.signal} held")
        if int(bits, 2) != value.value:
            return Evidence("refuted", f"with {value.signal} held, {value.register} kept {int(bits, 2)}, "
                                       f"not {value.value}")
        return Evidence("verified", f"with {value.signal} held, {value.register} kept {value.value}")


def _kept(samples: dict[tuple[str, str], list[str]]) -> dict[str, str]:
    """Register -> the one defined value it kept while the reset was held (phase H)."""
    return {name: values[0] for (phase, name), values in samples.items()
            if phase == "H" and len(set(values)) == 1 and not set(values[0]) & set("xz")}


def _judge(signal: str, polarity: str, timing: str, samples: dict[tuple[str, str], list[str]]) -> Evidence:
    """The claim's evidence from the samples: A before any edge, H while held, F once released."""
    held = f"{signal} held {polarity.removeprefix('active-')}"
    reset = [name for name in _kept(samples) if len(set(samples.get(("F", name), []))) > 1]
    if not reset:
        still = [name for (phase, name), values in samples.items() if phase == "H" and len(set(values)) == 1]
        if still and not any(len(set(samples.get(("F", name), []))) > 1 for name in still):
            return Evidence("unverified", f"{held}: the registers it kept did not move once released either")
        return Evidence("refuted", f"{held} for {HELD_CYCLES} random-input cycles: no register kept one defined value")
    moving = [name for (phase, name), values in samples.items() if phase == "H" and len(set(values)) > 1]
    if moving:  # a reset holds the state; rob4_squash's `alloc` kept all but two registers at 0
        return Evidence("unverified", f"{held}: {reset[0]} kept one value, but {moving[0]} moved while it was held")
    before_edge = [name for name in reset if samples.get(("A", name)) == samples[("H", name)][:1]]
    if timing == "asynchronous" and not before_edge:
        return Evidence("refuted", f"{held}: {reset[0]} took its reset value only on a clock edge (synchronous)")
    if timing == "synchronous" and before_edge:
        return Evidence("refuted", f"{held}: {before_edge[0]} took its reset value before any clock edge "
                                   "(asynchronous)")
    return Evidence("verified", f"{held} for {HELD_CYCLES} random-input cycles: {', '.join(reset[:3])} kept its "
                                f"reset value and moved once released")
