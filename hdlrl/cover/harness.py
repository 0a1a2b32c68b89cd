"""The compile-once coverage harness: one Verilator build per design, stimulus read as data.

A Verilator build costs seconds and a stimulus run milliseconds, so the harness is built once
per design (with line and toggle coverage on the design's files) and reads each run's input
vectors from a `$readmemh` file named on the command line (`+stimulus=FILE +cycles=N`). Every
run writes its own coverage file (`+coverage=FILE`): Verilator's `--binary` main loses coverage
when `$finish` ends the run, so the harness brings a small C++ main that writes it itself.
The Verilog frame (clocks, instances, cycle loop) and that main come from `hdlrl.hdl.testbench`.

Besides the design (instance `hdlrl_dut`), the harness holds the gate's mutants, each with its
modules renamed, driven by the same inputs. An output of a mutant that differs from the
design's (X-aware: bits where the design is X are don't-care) kills it; the harness prints
the first cycle each mutant died, so one run gives the whole kill vector.

Each cycle, the harness prints the design's outputs and the expressions the functional
covergroups sample, in binary, with the timing of the differential simulation: inputs are
applied a tenth of a period after the falling edge of the first clock and sampled eight
tenths later, so a sample holds the cycle's inputs and the state after the rising edge that
took them (for a combinational design: after the inputs settle). Icarus can build the same harness (no code
coverage there: Icarus has none); the run then reports functional coverage and kills only.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.eda.sim.verilator import VERILATOR_QUIET, compiler_cache
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.rename import prefix_modules
from hdlrl.hdl.testbench import COVERAGE_OFF, Bench, coverage_main
from hdlrl.verify.diffsim import Stimulus, write_stimulus
from hdlrl.verify.interface import Interface, Port

HARNESS_TOP = "hdlrl_cover_tb"
HARNESS_FILE = "hdlrl_cover_tb.v"
MAIN_FILE = "hdlrl_cover_main.cpp"
BINARY = "hdlrl_cover"
DUT = "hdlrl_dut"  # the design's instance
_SAMPLE_LINE = re.compile(r"^HDLRL_S (\d+)((?: [01xzXZ]+)*)\s*$")
_KILL_LINE = re.compile(r"^HDLRL_K (\d+) (\d+)\s*$")

@dataclass(frozen=True)
class HarnessSpec:
    """What one harness build needs; equal specs give the same build."""

    design: Design
    interface: Interface
    driven: tuple[Port, ...]  # the inputs a stimulus row drives, in row order (the reset among them)
    sampled: tuple[str, ...] = ()  # Verilog expressions over DUT signals (functional coverage)
    mutants: tuple[dict[str, str], ...] = ()  # each: design-relative RTL file -> mutated text
    max_cycles: int = 4096


@dataclass
class HarnessRun:
    """One stimulus run: what it covered, what the design did, which mutants it killed."""

    ok: bool
    reason: str  # one line; empty when ok
    coverage: dict[str, int] = field(default_factory=dict)  # Verilator point key -> hit count
    outputs: list[list[str]] = field(default_factory=list)  # per cycle, the design's outputs in binary
    samples: list[list[str]] = field(default_factory=list)  # per cycle, the sampled expressions in binary
    killed: dict[int, int] = field(default_factory=dict)  # mutant index -> first cycle it differed
    wall_s: float = 0.0


def mutant_prefix(index: int) -> str:
    return f"hdlrl_m{index}_"


def harness_verilog(spec: HarnessSpec) -> str:
    """The harness top: clocks, the design, the mutants, the stimulus memory and the cycle loop."""
    interface, mutants = spec.interface, len(spec.mutants)
    bench = Bench(HARNESS_TOP, interface.inputs, interface.outputs, spec.driven, spec.design.clocks)
    body = [*bench.declarations(), *bench.instance(interface.top, DUT)]
    for index in range(mutants):
        body += bench.instance(mutant_prefix(index) + interface.top, f"hdlrl_mutant{index}")
    body += [*bench.known_declarations(), bench.stimulus_memory(spec.max_cycles), "    reg [8*512-1:0] hdlrl_file;",
             "    integer hdlrl_cycles, hdlrl_first, hdlrl_cycle, hdlrl_index;",
             f"    integer hdlrl_killed_at [0:{max(mutants, 1) - 1}];", ""]

    checks = bench.known(DUT)
    for index in range(mutants):
        differs = " || ".join(bench.differs(port, DUT, f"hdlrl_mutant{index}") for port in interface.outputs) or "0"
        checks.append(f"if (hdlrl_killed_at[{index}] < 0 && ({differs})) hdlrl_killed_at[{index}] = hdlrl_cycle;")
    body += bench.compare_task(checks)

    printed = [f"{DUT}_{port.name}" for port in interface.outputs] + list(spec.sampled)
    display = (f'$display("HDLRL_S %0d{" %b" * len(printed)}", hdlrl_cycle'
               + "".join(f", {expression}" for expression in printed) + ");")
    body += bench.initial([
        'if (!$value$plusargs("stimulus=%s", hdlrl_file)) hdlrl_file = "stimulus.hex";',
        'if (!$value$plusargs("cycles=%d", hdlrl_cycles)) hdlrl_cycles = 0;',
        'if (!$value$plusargs("first=%d", hdlrl_first)) hdlrl_first = 0;',
        f"if (hdlrl_cycles > {spec.max_cycles}) hdlrl_cycles = {spec.max_cycles};",
        "if (hdlrl_cycles > 0) $readmemh(hdlrl_file, hdlrl_stimulus, 0, hdlrl_cycles - 1);",
        f"for (hdlrl_index = 0; hdlrl_index < {max(mutants, 1)}; hdlrl_index = hdlrl_index + 1)",
        "    hdlrl_killed_at[hdlrl_index] = -1;",
        *bench.cycle_loop("hdlrl_cycles", display, ["if (hdlrl_cycle >= hdlrl_first) hdlrl_compare;"]),
        f"for (hdlrl_index = 0; hdlrl_index < {mutants}; hdlrl_index = hdlrl_index + 1)",
        '    if (hdlrl_killed_at[hdlrl_index] >= 0) $display("HDLRL_K %0d %0d", hdlrl_index, '
        "hdlrl_killed_at[hdlrl_index]);",
    ])
    return bench.module(body, coverage_off=True)


def _relative(design: Design, path: Path) -> str:
    return str(path.relative_to(design.root))


class Harness:
    """A built harness in `folder`; `run` costs one process start, never a rebuild."""

    def __init__(self, spec: HarnessSpec, folder: Path, simulator: str, sandbox: bool | None = None):
        self.spec = spec
        self.folder = folder
        self.simulator = simulator  # "verilator" (code and functional coverage) or "icarus" (functional only)
        self.sandbox = sandbox
        self.rtl = [folder / "rtl" / _relative(spec.design, path) for path in spec.design.rtl]

    @property
    def code_coverage(self) -> bool:
        return self.simulator == "verilator"

    def run(self, stimulus: Stimulus, name: str, time_s: float = 60) -> HarnessRun:
        """Simulate `stimulus` (its rows in `spec.driven` order); files go to `folder/runs/name.*`."""
        started = time.perf_counter()
        runs = self.folder / "runs"
        runs.mkdir(exist_ok=True)
        stimulus_file, coverage_file = runs / f"{name}.hex", runs / f"{name}.dat"
        coverage_file.unlink(missing_ok=True)
        cycles = min(len(stimulus.rows), self.spec.max_cycles)
        write_stimulus(stimulus_file, Stimulus(stimulus.ports, stimulus.rows[:cycles], stimulus.first_compared))
        arguments = [f"+stimulus={stimulus_file}", f"+cycles={cycles}", f"+first={stimulus.first_compared}"]
        if self.code_coverage:
            argv = [str(self.folder / "build" / BINARY), *arguments, f"+coverage={coverage_file}"]
        else:
            argv = [require_tool("vvp").path, "-n", str(self.folder / "build" / BINARY), *arguments]
        runner = ToolRunner(self.folder, Limits(time_s=time_s, memory_mb=2048), self.sandbox)
        result = runner.run(argv)
        stimulus_file.unlink(missing_ok=True)
        if not result.ok:
            last_line = (result.output.strip().splitlines() or ["no output"])[-1][:200]
            return HarnessRun(False, f"the harness run {result.fault}" if result.fault else
                              f"the harness run failed (exit {result.returncode}): {last_line}",
                              wall_s=time.perf_counter() - started)
        run = HarnessRun(True, "", wall_s=0.0)
        outputs = len(self.spec.interface.outputs)
        for line in result.stdout.splitlines():
            if found := _SAMPLE_LINE.match(line):
                values = found[2].split()
                run.outputs.append(values[:outputs])
                run.samples.append(values[outputs:])
            elif found := _KILL_LINE.match(line):
                run.killed[int(found[1])] = int(found[2])
        if len(run.outputs) != cycles:
            return HarnessRun(False, f"the harness printed {len(run.outputs)} of {cycles} cycles",
                              wall_s=time.perf_counter() - started)
        if self.code_coverage:
            from hdlrl.cover.coverage import read_coverage_file

            run.coverage = read_coverage_file(coverage_file, self.folder / "rtl")
            coverage_file.unlink(missing_ok=True)
        run.wall_s = time.perf_counter() - started
        return run


def _stage_sources(spec: HarnessSpec, folder: Path) -> list[Path]:
    """The design's RTL under `folder/rtl` (same relative layout), the mutants under
    `folder/mutants/N` with their modules renamed, the data files beside the build."""
    design = spec.design
    names = [_relative(design, path) for path in design.rtl]
    texts = [path.read_text(errors="replace") for path in design.rtl]
    staged = []
    for name, text in zip(names, texts):
        target = folder / "rtl" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        staged.append(target)
    for index, replaced in enumerate(spec.mutants):
        mutant_texts = prefix_modules([replaced.get(name, text) for name, text in zip(names, texts)],
                                      mutant_prefix(index))
        for name, text in zip(names, mutant_texts):
            target = folder / "mutants" / str(index) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"{COVERAGE_OFF}\n{text}")
            staged.append(target)
    for data_file in design.data_files:
        shutil.copyfile(data_file, folder / data_file.name)
    return staged


def spec_digest(spec: HarnessSpec, simulator: str) -> str:
    """Hash of everything the build depends on, so an unchanged design is never rebuilt."""
    material = [harness_verilog(spec), simulator, coverage_main(HARNESS_TOP)]
    material += [path.read_text(errors="replace") for path in spec.design.rtl]
    material += [f"{name}\0{text}" for mutant in spec.mutants for name, text in sorted(mutant.items())]
    material += [str(directory) for directory in spec.design.include_dirs]
    return hashlib.sha256("\0".join(material).encode()).hexdigest()


class HarnessBuildError(Exception):
    """The harness could not be built; the message is one line."""


def mutant_named_in(error: str) -> int | None:
    """The index of the mutant a build error is about: named by its file, or (once Verilator has
    inlined it into the harness) by its instance's wires; None when the error names no mutant."""
    culprit = re.search(r"mutants/(\d+)/|hdlrl_mutant(\d+)_", error)
    return int(culprit[1] or culprit[2]) if culprit else None


def crash_site(output: str) -> str:
    """Where Verilator was when an internal fault stopped it, for an error that names no file:
    the last source its output named before the fault. Verilator 5.006 crashes on a mutant's
    reversed part select (`tx[5:0-1]`) after warning about it; naming that mutant lets the
    build go on without it, rather than the whole run losing its code coverage to Icarus."""
    before, fault, _ = output.partition("internal fault")
    named = re.findall(r"([\w./-]+\.s?v):\d+", before) if fault else []
    return f" (the last source named before it: {named[-1]})" if named else ""


def build_harness(spec: HarnessSpec, folder: Path, simulator: str = "verilator", sandbox: bool | None = None,
                  time_s: float = 600) -> Harness:
    """Build (or reuse, when `folder` holds a build of the same spec) the harness in `folder`."""
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    digest = spec_digest(spec, simulator)
    stamp = folder / "build" / "digest"
    harness = Harness(spec, folder, simulator, sandbox)
    if stamp.exists() and stamp.read_text() == digest and (folder / "build" / BINARY).exists():
        return harness
    shutil.rmtree(folder / "build", ignore_errors=True)
    (folder / "build").mkdir()
    sources = _stage_sources(spec, folder)
    (folder / HARNESS_FILE).write_text(harness_verilog(spec))
    includes = [f"-I{directory}" for directory in spec.design.include_dirs]
    runner = ToolRunner(folder, Limits(time_s=time_s, memory_mb=8192), sandbox,
                        readable=tuple(spec.design.include_dirs))
    if simulator == "verilator":
        (folder / MAIN_FILE).write_text(coverage_main(HARNESS_TOP))
        argv = [require_tool("verilator").path, "--cc", "--exe", "--build", "--timing", "--coverage-line",
                "--coverage-toggle", *VERILATOR_QUIET, "--top-module", HARNESS_TOP, "-Mdir", "build", "-j", "2",
                "-o", BINARY, *includes, HARNESS_FILE, *map(str, sources), MAIN_FILE]
        result = runner.run(argv, **compiler_cache())
    else:
        argv = [require_tool("iverilog").path, "-g2012", "-o", f"build/{BINARY}", "-s", HARNESS_TOP, *includes,
                HARNESS_FILE, *map(str, sources)]
        result = runner.run(argv)
    if not result.ok:
        raise HarnessBuildError((f"{simulator} {result.fault} building the harness" if result.fault else
                                 first_error(simulator, result.output, f"{simulator} could not build the harness "
                                             f"(exit {result.returncode})")) + crash_site(result.output))
    stamp.write_text(digest)
    return harness
