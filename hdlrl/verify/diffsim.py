"""Differential simulation: the candidate beside the reference, cycle by cycle, on one stimulus.

A design's own testbench checks the cases its author thought of; a candidate tuned for PPA
can pass it and still differ on an input nobody wrote down. Here both run together in one
generated testbench, on stimulus generated in Python (corner values, held values, long holds
of control inputs, uniform random), and every output is compared every cycle after the
initial reset. The stimulus goes to the simulator as a `$readmemh` file, so it is the same on
Icarus and Verilator, reproducible from the seed, and the inputs of a mismatch can be named.

The run has two parts. The opening (`cycles` cycles) starts with the initial reset and has a
second, mid-run reset of two cycles somewhere in its middle half. Then come
`reset_free_cycles` cycles (2^17) with the reset inactive, so one
reset-free stretch runs from the mid-run reset to the end. A candidate that deviates only N
cycles after reset (a hidden counter) shows it for any N shorter than that stretch, far
beyond the 20 cycles a bounded proof looks at. The mid-run reset comes before the long
stretch rather than after it, so that state a second reset leaves behind also has the whole
stretch to show at the outputs. The stimulus mix is the same over both parts.

A design without clocks and with at most `exhaustive_input_bits` input bits (20: a million
rows at most) also gets every combination of its input values after the
random part, so a wrong output on one input value, which a proof out of time would not find
and random stimulus might miss, is found.

Comparison is X-aware: bits where the reference is X or Z are don't-care (flops without reset,
reads of unwritten memory), and a candidate X where the reference is 0 or 1 is a mismatch.
"""

from __future__ import annotations

import itertools
import random
import re
import secrets
import time
from dataclasses import dataclass, replace
from pathlib import Path

from hdlrl.config import Count, Positive, Simulator
from hdlrl.design import Design, Testbench
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sim import SimResult, simulator
from hdlrl.hdl.rename import REFERENCE_PREFIX, prefix_modules
from hdlrl.hdl.testbench import Bench, hex_word, pack, readmemh
from hdlrl.verify.interface import Interface, Port

TESTBENCH_TOP = "hdlrl_diffsim_tb"
TESTBENCH_FILE = "hdlrl_diffsim_tb.v"
STIMULUS_FILE = "hdlrl_diffsim_stimulus.hex"
_REPORTED_MISMATCHES = 10  # mismatch lines the testbench prints; it counts all of them
_MIDRUN_RESET_CYCLES = 2
_CONTROL_WIDTH = 2  # inputs this narrow are controls (start, enable, mode), not data
_LONG_HOLD_CHANCE = 0.005  # per cycle not already held: about half the run in long holds


@dataclass(frozen=True)
class DiffSimOptions:
    cycles: Count(1 << 27) = 10000  # the opening: the initial reset, then stimulus with the mid-run reset in its middle half
    # After the opening, the reset inactive: a hidden counter that makes a candidate deviate N
    # cycles after reset is caught for N up to here; a bounded proof is not.
    reset_free_cycles: Count(1 << 30, minimum=0) = 1 << 17
    seed: Count(1 << 62, minimum=0) = 1
    simulator: Simulator = "verilator"
    fallback_simulator: Simulator = "icarus"  # used where the primary simulator cannot build the testbench
    reset_cycles: Count(1000) = 3
    midrun_reset: bool = True
    time_s: Positive = 120
    exhaustive_input_bits: Count(24, minimum=0) = 20  # a design without clocks and at most this many input bits gets every input too


@dataclass
class Mismatch:
    cycle: int
    output: str
    reference: str  # Verilog literal: 8'h1f, or 8'b0001xxxx where bits are unknown
    candidate: str
    inputs: dict[str, str]  # every driven input (reset included) at that cycle


@dataclass
class DiffSimResult:
    ran: bool  # the testbench compiled and finished
    agreed: bool
    cycles: int  # compared cycles (the cycles after the initial reset)
    mismatched_cycles: int
    agreement: float  # fraction of compared cycles on which every output matched
    seed: int
    simulator: str
    first_mismatch: Mismatch | None
    reason: str  # one line
    wall_s: float
    exhaustive: bool = False  # every input value was applied (a design without clocks)


@dataclass(frozen=True)
class Stimulus:
    """Values of the driven inputs, one row per cycle; the reset (when there is one) is one of them."""

    ports: tuple[Port, ...]
    rows: tuple[tuple[int, ...], ...]
    first_compared: int  # outputs are compared from this cycle on
    exhaustive: bool = False  # the rows include every value of the inputs

    def inputs_at(self, cycle: int) -> dict[str, str]:
        return {port.name: verilog_literal(port.width, format(value, f"0{port.width}b"))
                for port, value in zip(self.ports, self.rows[cycle])}


def verilog_literal(width: int, bits: str) -> str:
    """Hex where every bit is known (8'h1f), binary otherwise so X/Z bits stay visible."""
    if set(bits) <= {"0", "1"}:
        return f"{width}'h{int(bits, 2):0{(width + 3) // 4}x}"
    return f"{width}'b{bits}"


def corner_values(width: int, rng: random.Random) -> tuple[int, ...]:
    """0, all ones, only the sign bit, the largest positive value, one hot bit."""
    all_ones = (1 << width) - 1
    return 0, all_ones, 1 << (width - 1), all_ones >> 1, 1 << rng.randrange(width)


def _input_sequence(rng: random.Random, width: int, cycles: int) -> list[int]:
    """A mix per cycle: a corner value (a quarter of the time), the previous value held for a
    few cycles (enables, selects and operands that stay put), or uniform random. A control
    input (at most `_CONTROL_WIDTH` bits) is also held now and then for 16 to 1024 cycles
    (log-uniform): a `start` or `enable` held for as long as a counter takes to wrap is how
    a changed count limit shows at the outputs."""
    values = []
    value = 0
    held = 0
    for _ in range(cycles):
        if held:
            held -= 1
        else:
            draw = rng.random()
            if width <= _CONTROL_WIDTH and draw < _LONG_HOLD_CHANCE:
                value = rng.getrandbits(width)
                held = int(2 ** rng.uniform(4, 10))
            elif draw < 0.25:
                value = rng.choice(corner_values(width, rng))
            elif draw < 0.4:
                held = rng.randint(1, 8)
            else:
                value = rng.getrandbits(width)
        values.append(value)
    return values


def _driven_port(interface: Interface, name: str | None) -> Port | None:
    """The input port `name` of the design description, or None where the interface lacks it."""
    port = interface.port(name) if name else None
    return port if port is not None and port.direction == "input" else None


def generate_stimulus(design: Design, interface: Interface, options: DiffSimOptions) -> Stimulus:
    """Every input except the clocks for `cycles + reset_free_cycles` cycles, deterministic per
    seed; the reset (at its polarity) asserted for the first `reset_cycles` cycles and, with
    `midrun_reset`, for two cycles in the middle half of the first `cycles`, never after them."""
    rng = random.Random(options.seed)
    total = options.cycles + options.reset_free_cycles
    clocks = {clock.name for clock in design.clocks}
    reset = _driven_port(interface, design.reset.name if design.reset else None)
    data_ports = tuple(port for port in interface.inputs if port.name not in clocks and port is not reset)
    columns = [_input_sequence(rng, port.width, total) for port in data_ports]
    if reset is None:
        rows = tuple(zip(*columns)) if columns else ((),) * total
        if design.clocks or sum(port.width for port in data_ports) > options.exhaustive_input_bits:
            return Stimulus(data_ports, rows, 0)
        return Stimulus(data_ports, rows + every_input(data_ports), 0, exhaustive=True)
    active = (1 << reset.width) - 1 if design.reset.polarity == "high" else 0
    inactive = ((1 << reset.width) - 1) ^ active
    reset_column = [active if cycle < options.reset_cycles else inactive for cycle in range(total)]
    if options.midrun_reset and options.cycles >= 4 * (options.reset_cycles + _MIDRUN_RESET_CYCLES):
        start = rng.randrange(options.cycles // 4, 3 * options.cycles // 4)
        reset_column[start:start + _MIDRUN_RESET_CYCLES] = [active] * _MIDRUN_RESET_CYCLES
    first_compared = min(options.reset_cycles, total)
    return Stimulus((reset, *data_ports), tuple(zip(reset_column, *columns)), first_compared)


def every_input(ports: tuple[Port, ...]) -> tuple[tuple[int, ...], ...]:
    """Every combination of the ports' values, one row each: on a design without state, agreeing
    on all of them is agreeing everywhere, whether or not a proof finishes in time."""
    return tuple(itertools.product(*(range(1 << port.width) for port in ports)))


def write_stimulus(path: Path, stimulus: Stimulus) -> None:
    """One hex word per cycle: the ports concatenated in order, the first in the high bits."""
    width = sum(port.width for port in stimulus.ports)
    path.write_text("\n".join(hex_word(pack(stimulus.ports, row), width) for row in stimulus.rows) + "\n")


def _testbench(design: Design, interface: Interface, stimulus: Stimulus, nonce: str) -> str:
    """Verilog that instantiates the reference and the candidate, drives both from the stimulus
    file and prints a line per mismatch (the first few) and a summary; `nonce` marks the lines
    so that a candidate's own `$display` cannot forge them."""
    bench = Bench(TESTBENCH_TOP, interface.inputs, interface.outputs, stimulus.ports, design.clocks)
    body = [*bench.declarations(), *bench.instance(REFERENCE_PREFIX + interface.top, "hdlrl_reference"),
            *bench.instance(interface.top, "hdlrl_candidate"), *bench.known_declarations()]
    cycles = len(stimulus.rows)
    body += [bench.stimulus_memory(cycles), "    integer hdlrl_cycle;", "    integer hdlrl_mismatched = 0;",
             "    integer hdlrl_reported = 0;", "    reg hdlrl_differs;", ""]
    checks = ["hdlrl_differs = 0;", *bench.known("hdlrl_reference")]  # known: 0 where the reference is X or Z
    for port in interface.outputs:
        checks += [
            f"if {bench.differs(port, 'hdlrl_reference', 'hdlrl_candidate')} begin",
            "    hdlrl_differs = 1;",
            f"    if (hdlrl_reported < {_REPORTED_MISMATCHES})",
            f'        $display("HDLRL_MISMATCH {nonce} %0d {port.name} %b %b", hdlrl_cycle, '
            f'hdlrl_reference_{port.name}, hdlrl_candidate_{port.name});',
            "    hdlrl_reported = hdlrl_reported + 1;",
            "end",
        ]
    body += bench.compare_task([*checks, "if (hdlrl_differs) hdlrl_mismatched = hdlrl_mismatched + 1;"])
    compared = cycles - stimulus.first_compared
    body += bench.initial([
        *([readmemh(STIMULUS_FILE)] if stimulus.ports else []),
        *bench.cycle_loop(str(cycles), f"if (hdlrl_cycle >= {stimulus.first_compared}) hdlrl_compare;"),
        f'$display("HDLRL_DIFFSIM {nonce} cycles=%0d mismatched=%0d", {compared}, hdlrl_mismatched);',
    ])
    return bench.module(body)


def _write_prefixed_reference(scratch: Path, sources: list[Path]) -> list[Path]:
    """Copies of the reference with every module renamed `hdlrl_ref_<name>`, each beside its
    original so that relative `include`s resolve the same way."""
    texts = prefix_modules([(scratch / source).read_text(errors="replace") for source in sources])
    copies = [source.parent / f"{REFERENCE_PREFIX}{source.name}" for source in sources]
    for copy, text in zip(copies, texts):
        (scratch / copy).write_text(text)
    return copies


def _simulate(runner: ToolRunner, sources: list[Path], testbench: Testbench, include_dirs: list[Path],
              options: DiffSimOptions) -> SimResult:
    """The primary simulator, and the fallback where the primary cannot build the testbench."""
    limits = replace(runner.limits, time_s=options.time_s)
    result = simulator(options.simulator).simulate(runner, sources, testbench, include_dirs, limits)
    if not result.compiled and options.fallback_simulator and options.fallback_simulator != options.simulator:
        result = simulator(options.fallback_simulator).simulate(runner, sources, testbench, include_dirs, limits)
    return result


def _first_mismatch(lines: list[str], nonce: str, interface: Interface, stimulus: Stimulus) -> Mismatch | None:
    """The first mismatch line the testbench printed (a candidate's `$write` may precede it on its line)."""
    for line in lines:
        found = re.search(rf"HDLRL_MISMATCH {nonce} (\d+) (\S+) ([01xzXZ]+) ([01xzXZ]+)", line)
        if found and interface.port(found[2]) is not None:
            cycle, output = int(found[1]), found[2]
            width = interface.port(output).width
            return Mismatch(cycle, output, verilog_literal(width, found[3]), verilog_literal(width, found[4]),
                            stimulus.inputs_at(cycle))
    return None


def _failed(options: DiffSimOptions, simulator_name: str, reason: str, started: float) -> DiffSimResult:
    return DiffSimResult(False, False, 0, 0, 0.0, options.seed, simulator_name, None, reason,
                         time.perf_counter() - started)


def differential_simulation(runner: ToolRunner, design: Design, interface: Interface,
                            reference_sources: list[Path], candidate_sources: list[Path],
                            include_dirs: list[Path], options: DiffSimOptions) -> DiffSimResult:
    """Simulate the candidate beside the reference on generated stimulus and compare every
    output every cycle. Sources are staged in `runner.scratch` (paths relative to it). Never
    raises for a candidate that does not compile or hangs: `ran` is False, `reason` says why."""
    started = time.perf_counter()
    scratch = runner.scratch
    nonce = secrets.token_hex(4)
    stimulus = generate_stimulus(design, interface, options)
    write_stimulus(scratch / STIMULUS_FILE, stimulus)
    (scratch / TESTBENCH_FILE).write_text(_testbench(design, interface, stimulus, nonce))
    # The testbench comes first: its `timescale then also covers sources that declare none.
    sources = [Path(TESTBENCH_FILE), *_write_prefixed_reference(scratch, reference_sources), *candidate_sources]
    testbench = Testbench("verilog", (Path(TESTBENCH_FILE),), TESTBENCH_TOP, None,
                          pass_pattern=f"HDLRL_DIFFSIM {nonce} ", fail_pattern=f"HDLRL_MISMATCH {nonce} ")
    result = _simulate(runner, sources, testbench, include_dirs, options)
    if not result.compiled:
        return _failed(options, result.simulator, f"{result.simulator} could not build the testbench: {result.reason}",
                       started)
    summary = re.search(rf"HDLRL_DIFFSIM {nonce} cycles=(\d+) mismatched=(\d+)", result.output_tail)
    if summary is None:
        # A limit or a crash has its own reason; otherwise something called $finish early.
        last_line = (result.output_tail.strip().splitlines() or ["no output"])[-1].strip()
        reason = result.reason if result.stopped else f"the simulation ended before its last cycle: {last_line}"
        return _failed(options, result.simulator, reason, started)
    cycles, mismatched = int(summary[1]), int(summary[2])
    first = _first_mismatch(result.fail_lines, nonce, interface, stimulus)
    if not mismatched:
        every = ", every input value among them" if stimulus.exhaustive else ""
        reason = f"reference and candidate agree on all {cycles} cycles{every} (seed {options.seed}, {result.simulator})"
    elif first is None:
        reason = f"{mismatched} of {cycles} cycles differ"
    else:
        given = " ".join(f"{name}={value}" for name, value in first.inputs.items())
        reason = (f"output {first.output} differs at cycle {first.cycle}: reference {first.reference}, "
                  f"candidate {first.candidate} ({given}); {mismatched} of {cycles} cycles differ")
    return DiffSimResult(True, mismatched == 0, cycles, mismatched, (cycles - mismatched) / cycles if cycles else 1.0,
                         options.seed, result.simulator, first, reason, time.perf_counter() - started,
                         stimulus.exhaustive)
