"""The cocotb replay `hdlrl cover` leaves beside the Verilog one: the same stimulus, the covergroups in Python.

Many verification teams run cocotb rather than plain Verilog testbenches and keep functional
coverage as cocotb-coverage covergroups. So the final stimulus set is also written as a cocotb 2.x
test folder, `RUN/cocotb/`, that needs only cocotb, cocotb-coverage, pytest and Icarus (no hdlrl):

- `test_replay.py`: the pytest entry (`python -m pytest` in the folder). It builds the DUT (the
  reference copy in `testbench/rtl/`, or the sources in `HDLRL_DUT="a.v b.v"`, as `run.sh DUT.v`)
  inside `hdlrl_cocotb_top.v` with cocotb's Icarus runner, replays each stimulus in a simulation
  of its own from power-up (`+stimulus=S`, as `run.sh` does), then checks that the covergroups
  hit the bins hdlrl recorded (`expected_coverage.json`). That check is for the reference only:
  another DUT is judged by its outputs alone, so a mutant fails here exactly where `run.sh` fails;
- `replay_tests.py`: the cocotb module. It drives the clocks and, from `testbench/stimulus.hex`,
  the inputs at the Verilog replay's cycle timing (`hdlrl.hdl.testbench`), fails at the first
  output that differs from `expected.hex` where `expected_mask.hex` compares it, and samples the
  covergroups where the harness samples them (eight tenths of a period after the inputs change);
- `coverage_model.py`: the design's `coverage.yaml` as `CoverPoint`/`CoverCross` decorators that
  count as `hdlrl.cover.functional` does (transitions over a coverpoint's last samples, a group's
  condition skipping the sample, X values hitting nothing, crosses of value bins only);
- `hdlrl_cocotb_top.v`: the toplevel, with the DUT as `hdlrl_dut` and per sampled expression a
  wire `hdlrl_sample_N` that computes it in the DUT's scope, so that Python reads plain signals;
- `replay.json` (the data layout and timing), `expected_coverage.json`, and a `pytest.ini` that
  keeps an enclosing project's pytest settings out.

A run leaves `functional_coverage.json` (hdlrl's bin ids -> hits, summed over the stimuli) and
`coverage.xml` (cocotb-coverage's database, merged over the stimuli) in the folder.
`run_cocotb_replay` runs the folder as a user would, in a process of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hdlrl.cover.functional import Bin, Covergroup, Coverpoint, sampled_expressions, scoped
from hdlrl.cover.testbench import DUT_INSTANCE, EXPECTED_FILE, MASK_FILE, STIMULUS_FILE
from hdlrl.design import Design
from hdlrl.hdl.testbench import INDENT, Bench, declaration, delay_literal
from hdlrl.verify.interface import Interface, Port

COCOTB_FOLDER = "cocotb"
TOPLEVEL = "hdlrl_cocotb_top"
LAYOUT_FILE = "replay.json"
EXPECTED_COVERAGE_FILE = "expected_coverage.json"
MODEL_FILE = "coverage_model.py"
STATIC_FILES = Path(__file__).with_name("cocotb_files")  # replay_tests.py and test_replay.py, as written out


def _picoseconds(nanoseconds: float) -> int:
    """A delay as the Verilog replay writes it (`delay_literal`, 1 ps precision), in ps."""
    return round(float(delay_literal(nanoseconds)) * 1000)


def _sample_wire(index: int) -> str:
    return f"hdlrl_sample_{index}"


def toplevel_verilog(design: Design, interface: Interface, driven: tuple[Port, ...], expressions: list[str],
                     widths: list[int]) -> str:
    """The cocotb toplevel: registers for the clocks and inputs cocotb drives (the driven ones X
    until their first cycle, as in the Verilog replay), the DUT, and the sampled expressions as wires.

    Each expression is wrapped in a concatenation, so that it keeps the width it has where the
    harness prints it (`widths`: self-determined) instead of being evaluated at the wire's."""
    bench = Bench(TOPLEVEL, interface.inputs, interface.outputs, driven, design.clocks)
    body = [f"{INDENT}reg {clock.name} = 1'b0;  // toggled by cocotb's Clock" for clock in bench.clocks]
    body += [declaration("reg", port.width, port.name) for port in driven]
    body += [declaration("reg", port.width, f"{port.name} = 0") for port in bench.undriven]
    body += bench.instance(interface.top, DUT_INSTANCE)
    for index, (expression, width) in enumerate(zip(expressions, widths)):
        wire = declaration("wire", width, f"{_sample_wire(index)} = {{{scoped(expression, DUT_INSTANCE)}}}")
        body.append(f"{wire}  // {' '.join(expression.split())}")
    comments = [f"// The cocotb toplevel of the replay of `hdlrl cover` on {interface.top}:",
                "// replay_tests.py drives the registers, reads the outputs and the hdlrl_sample_* wires."]
    return bench.module(body, comments)


def _layout(design: Design, interface: Interface, driven: tuple[Port, ...], lengths: list[int], folder: Path,
            bench_folder: Path, sampled: int) -> dict:
    """What replay_tests.py and test_replay.py read: the files, the words' layout and the cycle timing."""
    bench = Bench(TOPLEVEL, interface.inputs, interface.outputs, driven, design.clocks)
    bench_path = Path(os.path.relpath(bench_folder, folder))
    # The reference copy is laid out under testbench/rtl as in the design (hdlrl.cover.testbench).
    rtl = [str(bench_path / "rtl" / path.relative_to(design.root)) for path in design.rtl]
    includes = [str(bench_path / "rtl" / directory.relative_to(design.root)) for directory in design.include_dirs]
    period = bench.clocks[0].period_ns if bench.clocks else None
    return {
        "design": design.name, "toplevel": TOPLEVEL, "toplevel_file": f"{TOPLEVEL}.v",
        "bench": str(bench_path), "rtl": rtl, "includes": includes,
        "stimulus": str(bench_path / STIMULUS_FILE), "expected": str(bench_path / EXPECTED_FILE),
        "mask": str(bench_path / MASK_FILE),
        "cycles": lengths,
        "driven": [{"name": port.name, "width": port.width} for port in driven],
        "outputs": [{"name": port.name, "width": port.width, "wire": f"{DUT_INSTANCE}_{port.name}"}
                    for port in interface.outputs],
        "clocks": [{"name": clock.name, "period_ps": 2 * _picoseconds(clock.period_ns / 2)} for clock in bench.clocks],
        "cycle_clock": bench.clocks[0].name if bench.clocks else None,
        "apply_ps": _picoseconds(period / 10) if period else 0,
        "settle_ps": _picoseconds(period * 8 / 10) if period else 1000,
        "sampled": [_sample_wire(index) for index in range(sampled)],
    }


def _tuple(items: list[str]) -> str:
    return f"({', '.join(items)}{',' if len(items) == 1 else ''})"


def _bin_literal(item: Bin) -> str:
    if item.transition:
        steps = [f"frozenset({{{', '.join(map(str, sorted(step)))}}})" for step in item.transition]
        return f"Transition({item.name!r}, {_tuple(steps)})"
    return f"Values({item.name!r}, {_tuple([f'({low}, {high})' for low, high in item.ranges])})"


def _depth(point: Coverpoint) -> int:
    """How many samples of a coverpoint its bins look at: its longest transition, else the latest one."""
    return max((len(item.transition) for item in point.transition_bins), default=1)


def _group_source(group: Covergroup, wires: dict[str, str], sampled: bool) -> list[str]:
    """The group's sampling function under its coverpoints and crosses, and (when hdlrl samples
    it) its entry in GROUPS."""
    lines = ["", ""]
    if not sampled:
        lines.append(f"# Clocked by {group.clock}, not by the design's first clock: hdlrl never samples "
                     f"{group.name}, nor does the replay.")
    for point in group.coverpoints:
        name = f"{group.name}.{point.name}"
        lines += [f"@CoverPoint({name!r}, xf=lambda samples: samples[{point.name!r}], bins=BINS[{name!r}],",
                  f"            bins_labels=labels({name!r}), rel=holds, inj=False)"]
    for cross in group.crosses:
        items = ", ".join(repr(f"{group.name}.{point}") for point in cross.coverpoints)
        lines += [f"@CoverCross({group.name + '.' + cross.name!r}, items=[{items}],",
                  f"            ign_bins=value_bins_only({items}))"]
    lines += [f"def sample_{group.name}(samples: dict[str, tuple[int | None, ...]]) -> None:",
              f'    """One sample of covergroup {group.name}: each coverpoint\'s values so far, oldest first."""']
    if not sampled:
        return lines
    condition = repr(wires[group.condition]) if group.condition is not None else "None"
    points = [f"    {point.name!r}: ({wires[point.signal]!r}, {_depth(point)})," for point in group.coverpoints]
    return lines + ["", "", f"GROUPS.append(Group(sample_{group.name}, condition={condition}, points={{", *points,
                    "}))"]


_MODEL_HEAD = '''\
"""Functional coverage of {design} as cocotb-coverage covergroups: its coverage.yaml, written by `hdlrl cover`.

The bins count as hdlrl counts them (hdlrl/cover/functional.py): a value bin counts each sample whose value
it holds (bins may overlap), a transition bin each time consecutive samples of its coverpoint match its
steps, a cross each combination of its coverpoints' value bins that one sample hits. A value with an X or
Z bit hits no bin but breaks the transitions through it; a group's condition that is 0 or unknown skips
the whole sample, history included. The groups clocked by the design's first clock and the unclocked ones
are sampled once a cycle (`sample`), on the toplevel's hdlrl_sample_* wires.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, NamedTuple

from cocotb_coverage.coverage import CoverCross, CoverPoint, coverage_db


class Values(NamedTuple):
    """A value bin: the latest sample lies in one of the inclusive ranges."""

    name: str
    ranges: tuple[tuple[int, int], ...]


class Transition(NamedTuple):
    """A transition bin: the latest samples, oldest first, each in its step's values."""

    name: str
    steps: tuple[frozenset[int], ...]


def holds(history: tuple[int | None, ...], item: Values | Transition) -> bool:
    """cocotb-coverage's `rel`: whether a coverpoint's samples so far (None: X or Z) hit the bin."""
    if isinstance(item, Transition):
        recent = history[-len(item.steps):]
        return len(recent) == len(item.steps) and all(
            value is not None and value in step for value, step in zip(recent, item.steps))
    return history[-1] is not None and any(low <= history[-1] <= high for low, high in item.ranges)


def labels(point: str) -> list[str]:
    return [item.name for item in BINS[point]]


def value_bins_only(*points: str) -> list[tuple[str | None, ...]]:
    """`ign_bins` that leave a cross the product of its coverpoints' value bins, as hdlrl crosses them."""
    return [tuple(item.name if at == place else None for at in range(len(points)))
            for place, point in enumerate(points) for item in BINS[point] if isinstance(item, Transition)]


class Group:
    """A covergroup's sampling: its condition, and per coverpoint its wire and the samples its bins look at."""

    def __init__(self, sample_bins: Callable[[dict[str, tuple[int | None, ...]]], None], condition: str | None,
                 points: dict[str, tuple[str, int]]):
        self.sample_bins, self.condition = sample_bins, condition
        self.wires = {{point: wire for point, (wire, _) in points.items()}}
        self.history = {{point: deque(maxlen=depth) for point, (_, depth) in points.items()}}

    def sample(self, values: dict[str, int | None]) -> None:
        if self.condition is not None and not values[self.condition]:
            return  # 0 or unknown: no sample, as a SystemVerilog `iff`
        for point, wire in self.wires.items():
            self.history[point].append(values[wire])
        self.sample_bins({{point: tuple(history) for point, history in self.history.items()}})


GROUPS: list[Group] = []  # the groups hdlrl samples, in coverage.yaml's order


def sample(values: dict[str, int | None]) -> None:
    """One sampling point: `values` holds each hdlrl_sample_* wire, None where it has an X or Z bit."""
    for group in GROUPS:
        group.sample(values)


def hits() -> dict[str, int]:
    """hdlrl's bin ids (`group.point.bin`, `group.cross.bin*bin`) -> hits, every bin included."""
    counts = {{}}
    for name, item in coverage_db.items():
        if isinstance(item, CoverCross):
            counts.update({{f"{{name}}.{{'*'.join(names)}}": count for names, count in item.detailed_coverage.items()}})
        elif isinstance(item, CoverPoint):
            counts.update({{f"{{name}}.{{label}}": count for label, count in item.detailed_coverage.items()}})
    return counts
'''


def coverage_model_source(design: Design, groups: list[Covergroup], wires: dict[str, str]) -> str:
    """coverage_model.py: `wires` maps each sampled expression to its toplevel wire."""
    sampling_clock = design.clocks[0].name if design.clocks else None
    lines = ["", "", "BINS = {  # per coverpoint, in coverage.yaml's order"]
    for group in groups:
        for point in group.coverpoints:
            lines += [f"    {group.name + '.' + point.name!r}: [  # {' '.join(point.signal.split())}",
                      *(f"        {_bin_literal(item)}," for item in point.bins), "    ],"]
    lines.append("}")
    for group in groups:
        lines += _group_source(group, wires, group.clock in (None, sampling_clock))
    return _MODEL_HEAD.format(design=design.name) + "\n".join(lines) + "\n"


def write_cocotb_replay(folder: Path, design: Design, interface: Interface, driven: tuple[Port, ...],
                        lengths: list[int], bench_folder: Path, groups: list[Covergroup], sample_widths: list[int],
                        expected_hits: dict[str, int]) -> Path:
    """Write the cocotb replay of the Verilog replay in `bench_folder` (`lengths`: each stimulus's
    cycles) into `folder`; `sample_widths` are the harness's widths of `sampled_expressions(groups)`
    and `expected_hits` the functional hits hdlrl recorded for the final set. Returns `folder`."""
    expressions = sampled_expressions(groups)
    if len(sample_widths) != len(expressions):
        raise ValueError(f"{len(expressions)} sampled expressions but {len(sample_widths)} widths")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / f"{TOPLEVEL}.v").write_text(toplevel_verilog(design, interface, driven, expressions, sample_widths))
    layout = _layout(design, interface, driven, lengths, folder, bench_folder, len(expressions))
    (folder / LAYOUT_FILE).write_text(json.dumps(layout, indent=1))
    wires = dict(zip(expressions, layout["sampled"]))
    (folder / MODEL_FILE).write_text(coverage_model_source(design, groups, wires))
    for name in ("replay_tests.py", "test_replay.py"):  # fixed files, kept as package data
        shutil.copyfile(STATIC_FILES / f"{name}.in", folder / name)
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / EXPECTED_COVERAGE_FILE).write_text(json.dumps(dict(sorted(expected_hits.items())), indent=1))
    return folder


def run_cocotb_replay(folder: Path, dut: tuple[Path, ...] = (),
                      simulation_time_s: int = 60) -> subprocess.CompletedProcess:
    """`python -m pytest` in `folder`, outside any enclosing pytest or cocotb run (their variables
    dropped), on the sources `dut` when given; each simulation bounded to `simulation_time_s`."""
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("COCOTB_") and name not in ("PYTEST_CURRENT_TEST", "PYTHONPATH")}
    environment["SIM_CMD_PREFIX"] = f"timeout {simulation_time_s}"
    if dut:
        environment["HDLRL_DUT"] = " ".join(map(str, dut))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=folder,
                          env=environment, capture_output=True, text=True, timeout=max(300, 20 * simulation_time_s))
