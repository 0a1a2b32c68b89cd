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
"""

from __future__ import annotations

import json
import os
import shutil
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


_REPLAY_TESTS = '''\
"""One stimulus of `hdlrl cover`'s final set (`+stimulus=S`) replayed through cocotb from power-up.

Written by `hdlrl cover`; test_replay.py runs it once per stimulus. The cycle is the Verilog replay's
(../testbench/hdlrl_replay_tb.v): the inputs change a tenth of a period after the falling edge of the first
clock, and eight tenths later every output is compared with the reference's (where the mask says so) and
the covergroups are sampled (coverage_model.py); without a clock: apply the inputs, wait 1 ns, compare and
sample. What the covergroups hit goes to +coverage_dir as hdlrl's bin ids (JSON) and cocotb-coverage's XML.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, Timer
from cocotb_coverage.coverage import coverage_db

import coverage_model

HERE = Path(__file__).resolve().parent
LAYOUT = json.loads((HERE / "replay.json").read_text())


def words(name: str) -> list[int]:
    """A $readmemh file of the Verilog replay, one word a line."""
    return [int(line, 16) for line in (HERE / LAYOUT[name]).read_text().split()]


def fields(ports: list[dict]) -> list[tuple[dict, int]]:
    """Each port with its lowest bit in a word, the first port in the high bits."""
    low = sum(port["width"] for port in ports)
    placed = []
    for port in ports:
        low -= port["width"]
        placed.append((port, low))
    return placed


def field(word: int, width: int, low: int) -> int:
    return (word >> low) & ((1 << width) - 1)


def field_bits(word: int, width: int, low: int) -> str:
    return format(field(word, width, low), f"0{width}b")


def known(value: str) -> int | None:
    """A signal's value as an integer; None when a bit is X or Z."""
    return int(value, 2) if value and set(value) <= {"0", "1"} else None


@cocotb.test()
async def replay(dut: Any) -> None:
    number = int(cocotb.plusargs["stimulus"])
    lengths = LAYOUT["cycles"]
    first_row = sum(lengths[:number])
    stimulus, expected, masks = words("stimulus"), words("expected"), words("mask")
    for clock in LAYOUT["clocks"]:
        Clock(getattr(dut, clock["name"]), clock["period_ps"], unit="ps").start(start_high=False)
    for cycle in range(lengths[number]):
        row = first_row + cycle
        if LAYOUT["apply_ps"]:
            await Timer(LAYOUT["apply_ps"], unit="ps")
        for port, low in fields(LAYOUT["driven"]):
            getattr(dut, port["name"]).value = field(stimulus[row], port["width"], low)
        await Timer(LAYOUT["settle_ps"], unit="ps")
        for port, low in fields(LAYOUT["outputs"]):
            got = str(getattr(dut, port["wire"]).value)
            want, care = field_bits(expected[row], port["width"], low), field_bits(masks[row], port["width"], low)
            if any(compared == "1" and bit != wanted for bit, wanted, compared in zip(got, want, care)):
                shown = "".join(bit if compared == "1" else "x" for bit, compared in zip(want, care))
                inputs = " ".join(f"{driven['name']}={field(stimulus[row], driven['width'], at):x}"
                                  for driven, at in fields(LAYOUT["driven"]))
                raise AssertionError(f"REPLAY MISMATCH stimulus {number} cycle {cycle} output {port['name']} "
                                     f"expected {shown} got {got} (inputs: {inputs})")
        coverage_model.sample({wire: known(str(getattr(dut, wire).value)) for wire in LAYOUT["sampled"]})
        if LAYOUT["cycle_clock"]:
            await FallingEdge(getattr(dut, LAYOUT["cycle_clock"]))
    folder = Path(cocotb.plusargs["coverage_dir"])
    (folder / f"stimulus{number}.json").write_text(json.dumps(coverage_model.hits(), indent=1))
    if coverage_db:  # cocotb-coverage cannot export an empty database
        coverage_db.export_to_xml(str(folder / f"stimulus{number}.xml"))
'''

_TEST_REPLAY = '''\
"""Replays `hdlrl cover`'s final stimulus set on Icarus through cocotb, and checks its functional coverage.

Run `python -m pytest` in this folder (needs cocotb 2.x, cocotb-coverage, pytest and Icarus Verilog; no hdlrl).
Each stimulus replays in a simulation of its own from power-up, as ../replay/run.sh does, every output
compared with the reference's; then the bins the covergroups of coverage_model.py hit must be those hdlrl
recorded (expected_coverage.json). `HDLRL_DUT="a.v b.v" python -m pytest` replays on other DUT sources (a
changed design, a mutant), which are judged by their outputs only, as run.sh judges them.
SIM_CMD_PREFIX="timeout 60" bounds each simulation, as run.sh's timeout does (a hanging mutant).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cocotb_coverage.coverage import merge_coverage
from cocotb_tools.runner import Runner, get_runner

HERE = Path(__file__).resolve().parent
LAYOUT = json.loads((HERE / "replay.json").read_text())
BUILD = HERE / "sim_build"
COVERAGE = BUILD / "coverage"
DUT_VARIABLE = "HDLRL_DUT"


def dut_sources() -> list[Path]:
    """$HDLRL_DUT's sources (relative to where pytest started), else the reference copy."""
    given = shlex.split(os.environ.get(DUT_VARIABLE, ""))
    return [Path(source).resolve() for source in given] or [HERE / source for source in LAYOUT["rtl"]]


@pytest.fixture(scope="module")
def icarus() -> Runner:
    """The toplevel and the DUT built once; an empty folder for the stimuli's coverage."""
    runner = get_runner("icarus")
    runner.build(sources=[HERE / LAYOUT["toplevel_file"], *dut_sources()],
                 includes=[HERE / folder for folder in LAYOUT["includes"]], hdl_toplevel=LAYOUT["toplevel"],
                 build_dir=BUILD, always=True, timescale=("1ns", "1ps"))
    shutil.rmtree(COVERAGE, ignore_errors=True)
    COVERAGE.mkdir(parents=True)
    return runner


def first_failure(results: Path) -> str:
    """The first failure cocotb recorded in a results file (its message names stimulus, cycle and output)."""
    if results.is_file():
        for case in ElementTree.parse(results).getroot().iter("testcase"):
            for problem in case:
                if problem.tag in ("failure", "error"):
                    return problem.get("message") or problem.text or problem.tag
    return "the simulation ended without results"


@pytest.mark.parametrize("stimulus", range(len(LAYOUT["cycles"])))
def test_stimulus(icarus: Runner, stimulus: int) -> None:
    results = BUILD / f"stimulus{stimulus}.xml"
    with contextlib.suppress(SystemExit):  # how cocotb's runner reports a failed test under pytest
        # In the Verilog replay's folder: the data files the design reads are there.
        icarus.test(test_module="replay_tests", hdl_toplevel=LAYOUT["toplevel"], test_dir=HERE / LAYOUT["bench"],
                    results_xml=str(results), plusargs=[f"+stimulus={stimulus}", f"+coverage_dir={COVERAGE}"])
        return
    pytest.fail(first_failure(results), pytrace=False)


def test_functional_coverage(icarus: Runner) -> None:
    """Sums the stimuli's bin hits into functional_coverage.json and coverage.xml; on the reference,
    the bins hit must be those hdlrl recorded."""
    files = [COVERAGE / f"stimulus{number}.json" for number in range(len(LAYOUT["cycles"]))]
    missing = [number for number, file in enumerate(files) if not file.is_file()]
    assert not missing, f"no coverage from stimuli {missing}: their replay failed or did not run"
    hits: dict[str, int] = {}
    for file in files:
        for bin_id, count in json.loads(file.read_text()).items():
            hits[bin_id] = hits.get(bin_id, 0) + count
    (HERE / "functional_coverage.json").write_text(json.dumps(dict(sorted(hits.items())), indent=1))
    exports = sorted(COVERAGE.glob("*.xml"))
    if exports:
        merge_coverage(lambda message: None, str(HERE / "coverage.xml"), *map(str, exports))
    if os.environ.get(DUT_VARIABLE):
        pytest.skip(f"{DUT_VARIABLE} is set: the coverage is compared on the reference only")
    expected = json.loads((HERE / "expected_coverage.json").read_text())
    assert sorted(hits) == sorted(expected), "the covergroups do not declare hdlrl's bins"
    hit, wanted = {bin_id for bin_id, count in hits.items() if count}, {b for b, count in expected.items() if count}
    assert hit == wanted, f"bins hit here only: {sorted(hit - wanted)}; in hdlrl's run only: {sorted(wanted - hit)}"
'''


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
    (folder / "replay_tests.py").write_text(_REPLAY_TESTS)
    (folder / "test_replay.py").write_text(_TEST_REPLAY)
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / EXPECTED_COVERAGE_FILE).write_text(json.dumps(dict(sorted(expected_hits.items())), indent=1))
    return folder
