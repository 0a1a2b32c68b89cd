"""The standalone replay testbench on real designs (alu8: combinational, sync_fifo: clocked with an
asynchronous reset): it passes on the reference from any folder, stops at the first mismatch of
a mutant the harness saw die and names it, treats X bits and reset cycles as don't-care, and
its Verilator build gives the coverage the harness runs gave."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from hdlrl.cover.coverage import merge_counts, read_coverage_file, summarise
from hdlrl.cover.harness import HarnessRun, HarnessSpec, build_harness
from hdlrl.cover.testbench import ReplayFiles, write_replay
from hdlrl.design import Design, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sim.verilator import compiler_cache
from hdlrl.eda.toolchain import has_tool
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import Mutant, make_mutants
from hdlrl.verify.diffsim import DiffSimOptions, Stimulus, generate_stimulus
from hdlrl.verify.interface import Interface, Port, read_interface

from conftest import DESIGNS_DIR

needs_tools = pytest.mark.skipif(
    not (all(has_tool(tool) for tool in ("verilator", "iverilog", "vvp", "yosys"))
         and all(shutil.which(tool) for tool in ("bash", "verilator_coverage"))),
    reason="needs verilator, verilator_coverage, iverilog, yosys and bash")


def short_stimulus(cycles: int, seed: int) -> DiffSimOptions:
    """`cycles` rows and no more: no reset-free stretch, no exhaustive inputs (the gate's defaults)."""
    return DiffSimOptions(cycles=cycles, seed=seed, reset_free_cycles=0, exhaustive_input_bits=0)


@dataclass
class Replayed:
    design: Design
    interface: Interface
    stimuli: list[Stimulus]
    runs: list[HarnessRun]
    mutants: list[Mutant]
    files: ReplayFiles
    folder: Path


@pytest.fixture(scope="module", params=["alu8", "sync_fifo"])
def replayed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """Three short stimuli (short, so that some points stay uncovered) run on the harness, their
    outputs written out as the replay."""
    design = load_design(DESIGNS_DIR / request.param)
    folder = tmp_path_factory.mktemp(request.param)
    interface = read_interface(ToolRunner(folder / "interface"), list(design.rtl), design.top)
    stimuli = [generate_stimulus(design, interface, short_stimulus(cycles, seed))
               for cycles, seed in ((40, 1), (25, 2), (30, 3))]
    mutants = make_mutants(design, 4)
    spec = HarnessSpec(design, interface, stimuli[0].ports, mutants=tuple({m.file: m.text} for m in mutants))
    harness = build_harness(spec, folder / "harness")
    runs = [harness.run(stimulus, f"s{number}") for number, stimulus in enumerate(stimuli)]
    assert all(run.ok for run in runs), [run.reason for run in runs]
    files = write_replay(folder / "run", design, interface, stimuli[0].ports, stimuli, [run.outputs for run in runs])
    return Replayed(design, interface, stimuli, runs, mutants, files, folder)


def _script(script: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(script), *arguments], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **compiler_cache().get("env", {})})


@needs_tools
def test_the_replay_passes_on_the_reference_from_any_folder(replayed: Replayed, tmp_path: Path) -> None:
    files, design = replayed.files, replayed.design
    assert files.cycles == sum(len(stimulus.rows) for stimulus in replayed.stimuli)
    assert files.testbench.read_text().startswith("/*verilator coverage_off*/")
    run_dir = replayed.folder / "run"
    before = sorted(run_dir.rglob("*"))
    copied = _script(files.run_script, cwd=tmp_path)
    assert copied.returncode == 0 and f"REPLAY PASSED {files.cycles} cycles" in copied.stdout, copied.stdout
    own = _script(files.run_script, *(str(path.relative_to(DESIGNS_DIR)) for path in design.rtl), cwd=DESIGNS_DIR)
    assert own.returncode == 0 and f"REPLAY PASSED {files.cycles} cycles" in own.stdout, own.stdout + own.stderr
    assert sorted(run_dir.rglob("*")) == before  # the builds went to a temporary folder
    assert not list(tmp_path.iterdir())


@needs_tools
def test_a_killed_mutant_fails_at_the_cycle_the_harness_saw(replayed: Replayed, tmp_path: Path) -> None:
    killed = [(number, stimulus, run.killed[number]) for number in range(len(replayed.mutants))
              for stimulus, run in enumerate(replayed.runs) if number in run.killed]
    assert killed, "no mutant died on the stimuli"
    number, stimulus, cycle = killed[0]  # the first stimulus that kills the first killed mutant
    sources = write_mutant(replayed.design, replayed.mutants[number], tmp_path / "mutant")
    result = _script(replayed.files.run_script, *(str(path) for path in sources), cwd=tmp_path)
    assert result.returncode != 0
    assert f"REPLAY MISMATCH stimulus {stimulus} cycle {cycle} output " in result.stdout, result.stdout
    assert result.stdout.count("REPLAY MISMATCH") == 1 and "REPLAY PASSED" not in result.stdout


@needs_tools
def test_x_bits_and_reset_cycles_are_dont_care(replayed: Replayed, tmp_path: Path) -> None:
    """A flipped expected bit fails where it is compared; as x, or before `first_compared`, it does not."""
    stimuli, interface = replayed.stimuli, replayed.interface
    name = interface.outputs[0].name

    def replay_with(cycle: int, bit: str) -> subprocess.CompletedProcess:
        expected = [[list(row) for row in run.outputs] for run in replayed.runs]
        value = expected[1][cycle][0]  # the low bit of the first output, at `cycle` of stimulus 1
        expected[1][cycle][0] = value[:-1] + (bit if bit == "x" else "10"[int(value[-1])])
        files = write_replay(tmp_path / f"{cycle}_{bit}", replayed.design, interface, stimuli[0].ports,
                             stimuli, expected)
        return _script(files.run_script, cwd=tmp_path)

    compared = stimuli[1].first_compared + 2
    flipped = replay_with(compared, "flip")
    assert flipped.returncode != 0
    assert f"REPLAY MISMATCH stimulus 1 cycle {compared} output {name} " in flipped.stdout, flipped.stdout
    assert replay_with(compared, "x").returncode == 0
    if stimuli[1].first_compared:
        assert replay_with(stimuli[1].first_compared - 1, "flip").returncode == 0


@needs_tools
def test_the_coverage_script_reproduces_the_harness_coverage(replayed: Replayed, tmp_path: Path) -> None:
    result = _script(replayed.files.coverage_script, str(tmp_path / "coverage"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    replay = read_coverage_file(tmp_path / "coverage" / "coverage.dat", replayed.files.testbench.parent / "rtl",
                                hierarchy_root="TOP.hdlrl_replay_tb.hdlrl_dut")
    merged: dict[str, int] = {}
    for run in replayed.runs:
        merged = merge_counts(merged, run.coverage)
    assert replay == merged  # each stimulus from power-up, as on the harness: the same counts
    ours, theirs = summarise(replay), summarise(merged)
    for metric, summary in theirs.items():
        assert summary.total and abs(ours[metric].fraction - summary.fraction) <= 0.01, (metric, ours, theirs)
        assert f"{metric:<7} {ours[metric].hit}/{ours[metric].total} " in result.stdout, result.stdout
    assert (tmp_path / "coverage" / "annotated").is_dir()
    lcov = (tmp_path / "coverage" / "coverage.info").read_text()  # verilator_coverage --write-info
    assert lcov.startswith("TN:") and "\nSF:" in lcov and "\nDA:" in lcov and lcov.rstrip().endswith("end_of_record")
    assert {line.partition(":")[2].rpartition("/")[2] for line in lcov.splitlines() if line.startswith("SF:")} \
        >= {path.name for path in replayed.design.rtl}


@needs_tools
def test_bits_verilator_reads_as_0_and_icarus_as_x_are_not_compared(tmp_path: Path) -> None:
    """spram16x8 reads words nobody wrote: 0 on the (two-state) Verilator harness, X on Icarus."""
    design = load_design(DESIGNS_DIR / "spram16x8")
    interface = read_interface(ToolRunner(tmp_path / "interface"), list(design.rtl), design.top)
    stimuli = [generate_stimulus(design, interface, short_stimulus(30, seed)) for seed in (1, 2)]
    harness = build_harness(HarnessSpec(design, interface, stimuli[0].ports), tmp_path / "harness")
    runs = [harness.run(stimulus, f"s{number}") for number, stimulus in enumerate(stimuli)]
    assert all(run.ok for run in runs) and not any("x" in "".join(row) for run in runs for row in run.outputs)
    files = write_replay(tmp_path / "run", design, interface, stimuli[0].ports, stimuli, [run.outputs for run in runs])
    assert "Not compared: " in (tmp_path / "run" / "replay" / "README.md").read_text()
    result = _script(files.run_script, cwd=tmp_path)
    assert result.returncode == 0 and f"REPLAY PASSED {files.cycles} cycles" in result.stdout, result.stdout


def test_outputs_that_do_not_match_the_stimuli_are_refused(tmp_path: Path) -> None:
    design = load_design(DESIGNS_DIR / "alu8")
    ports = (Port("a", "input", 8), Port("b", "input", 8), Port("op", "input", 3))
    interface = Interface("alu8", (*ports, Port("y", "output", 8), Port("carry", "output", 1),
                                   Port("zero", "output", 1)), ())
    stimulus = Stimulus(ports, ((1, 2, 0), (3, 4, 1)), 0)
    with pytest.raises(ValueError, match="2 cycles but 1 rows"):
        write_replay(tmp_path, design, interface, ports, [stimulus], [[["00000011", "0", "0"]]])
    with pytest.raises(ValueError, match="expected 3 outputs"):
        write_replay(tmp_path, design, interface, ports, [stimulus], [[["00000011", "0"]] * 2])
