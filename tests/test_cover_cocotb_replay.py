"""The cocotb replay `hdlrl cover` writes (RUN/cocotb), run as a user would: `python -m pytest` in the folder,
with a clean environment. It passes on the reference from another place, its cocotb-coverage covergroups count
every bin as hdlrl counted it, its coverage check fails when the bins differ, and on mutants it fails exactly
where the Verilog replay (run.sh) fails, at the same stimulus, cycle and output."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.cocotb_replay import MODEL_FILE, coverage_model_source, run_cocotb_replay
from hdlrl.cover.coverage_yaml import COVERAGE_FILE, load_covergroups
from hdlrl.cover.functional import FunctionalCoverage, sampled_expressions
from hdlrl.design import load_design
from hdlrl.eda.toolchain import has_tool
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import make_mutants

FLOWS = Path(__file__).resolve().parents[1] / "flows"
MISMATCH = re.compile(r"REPLAY MISMATCH stimulus \d+ cycle \d+ output \S+ expected \S+ got \S+")
pytestmark = pytest.mark.skipif(
    not (all(has_tool(tool) for tool in ("verilator", "iverilog", "yosys"))
         and all(importlib.util.find_spec(package) for package in ("cocotb_tools", "cocotb_coverage"))),
    reason="needs verilator, iverilog, yosys, cocotb and cocotb-coverage")

# Every kind of bin, overlapping bins, a condition, a cross of a coverpoint that has transitions, an
# unclocked group, and a group on a clock hdlrl never samples (traffic_light has one clock).
GROUPS_YAML = """
covergroups:
  - name: ops
    clock: clk
    condition: "en"
    coverpoints:
      - name: op
        signal: op
        width: 3
        bins:
          - {name: zero, value: 0}
          - {name: odd, values: [1, 3, 5, 7]}
          - {name: low, range: [0, 3]}
          - {name: wrap, transition: [7, 0]}
          - {name: climb, transition: [[1, 2], 3, [4, 5, 6]]}
      - {name: flag, signal: flag, width: 1, bins: auto}
    crosses:
      - {name: op_by_flag, coverpoints: [op, flag]}
  - name: free
    coverpoints:
      - {name: op, signal: op, width: 2, bins: auto}
  - name: slow
    clock: clk2
    coverpoints:
      - {name: flag, signal: flag, width: 1, bins: auto}
"""
# Feeds samples (JSON: per cycle, wire -> value or null) to a generated coverage_model.py, prints its hits.
FEED_MODEL = """
import json, sys
sys.path.insert(0, sys.argv[1])
import coverage_model
for values in json.loads(open(sys.argv[2]).read()):
    coverage_model.sample(values)
print(json.dumps(coverage_model.hits()))
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """traffic_light covered by short random programs (24 cycles), so that the final set holds several
    stimuli and misses some bins; three mutants, which the replay check runs both replays on."""
    text = (FLOWS / "cover.yaml").read_text()
    for old, new in (("group_size: 8 ", "group_size: 4 "), ("mutants: 30 ", "mutants: 3 "),
                     ("stop_at_targets: true", "stop_at_targets: false"),
                     ("check_cocotb_replay: false", "check_cocotb_replay: true")):
        assert old in text
        text = text.replace(old, new)
    folder = tmp_path_factory.mktemp("cocotb-replay")
    (folder / "cover.yaml").write_text(text)
    out = folder / "run"
    assert main(["cover", str(DESIGNS_DIR / "traffic_light"), "--out", str(out), "--flow", str(folder / "cover.yaml"),
                 "--seed", "2", "--budget", "8", "--policy", "random", "--policy-option", "cycles=24"]) == 0
    return out


def test_the_covergroups_count_as_hdlrl_counts(tmp_path: Path) -> None:
    """The generated cocotb-coverage model against hdlrl's own, on random samples with X values and
    conditions that are 0 or unknown: the same count for every bin."""
    (tmp_path / COVERAGE_FILE).write_text(GROUPS_YAML)
    groups = load_covergroups(tmp_path)
    expressions = sampled_expressions(groups)
    assert expressions == ["op", "flag", "en"]
    wires = {expression: f"hdlrl_sample_{index}" for index, expression in enumerate(expressions)}
    (tmp_path / MODEL_FILE).write_text(coverage_model_source(load_design(DESIGNS_DIR / "traffic_light"), groups, wires))

    generator = random.Random(5)
    cycles = [{"op": generator.choice([*range(8), None]), "flag": generator.choice([0, 1, 1, None]),
               "en": generator.choice([1, 1, 1, 1, 0, None])} for _ in range(1500)]
    hdlrl = FunctionalCoverage(groups)
    for cycle in cycles:
        values = ["x" * width if cycle[name] is None else format(cycle[name], f"0{width}b")
                  for name, width in (("op", 3), ("flag", 1), ("en", 1))]
        hdlrl.record("clk", values)  # as CoverRun.functional_hits feeds a run's samples
        hdlrl.record(None, values)
    (tmp_path / "samples.json").write_text(json.dumps([{wires[name]: value for name, value in cycle.items()}
                                                       for cycle in cycles]))
    fed = subprocess.run([sys.executable, "-c", FEED_MODEL, str(tmp_path), str(tmp_path / "samples.json")],
                         capture_output=True, text=True, check=True, timeout=120)
    counted = json.loads(fed.stdout)
    assert counted == hdlrl.hits()
    assert all(counted[bin_id] for bin_id in ("ops.op.wrap", "ops.op.climb", "ops.op_by_flag.odd*1", "free.op.3"))
    assert counted["slow.flag.0"] == counted["slow.flag.1"] == 0


def test_replays_on_the_reference_with_the_bins_hdlrl_counted(run_dir: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"  # the run's testbench and cocotb folders alone, somewhere else
    for name in ("testbench", "cocotb"):
        shutil.copytree(run_dir / name, moved / name)
    folder = moved / "cocotb"
    for module in folder.glob("*.py"):
        assert not re.search(r"^\s*(from|import) hdlrl", module.read_text(), re.MULTILINE), module.name
    stimuli = len(json.loads((folder / "replay.json").read_text())["cycles"])
    assert stimuli >= 2  # each replayed from power-up in a simulation of its own

    result = run_cocotb_replay(folder)
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{stimuli + 1} passed" in result.stdout  # a test per stimulus, then the coverage check
    recorded = json.loads((run_dir / "coverage.json").read_text())["functional_bins"]
    assert 0 < sum(1 for count in recorded.values() if count) < len(recorded)
    assert json.loads((folder / "functional_coverage.json").read_text()) == recorded  # every bin, every count
    merged = ElementTree.parse(folder / "coverage.xml").getroot()  # cocotb-coverage's own database
    assert int(merged.get("size")) == len(recorded)
    assert int(merged.get("coverage")) == sum(1 for count in recorded.values() if count)

    expected = json.loads((folder / "expected_coverage.json").read_text())
    missed = next(bin_id for bin_id, count in sorted(expected.items()) if not count)
    (folder / "expected_coverage.json").write_text(json.dumps({**expected, missed: 1}))
    result = run_cocotb_replay(folder)
    assert result.returncode != 0 and f"in hdlrl's run only: ['{missed}']" in result.stdout


def test_the_replay_check_runs_the_cocotb_replay_beside_the_verilog_one(run_dir: Path) -> None:
    check = json.loads((run_dir / "summary.json").read_text())["replay_check"]
    assert check["passes_on_reference"] and check["live_mutants"] >= 1
    assert check["cocotb"]["passes_on_reference"], check["cocotb"]["reference_output"]
    assert check["cocotb"]["mutants_failed"] == check["mutants_failed"] and check["cocotb"]["disagreements"] == []


def test_fails_on_a_mutant_exactly_where_the_verilog_replay_fails(run_dir: Path, tmp_path: Path) -> None:
    design = load_design(DESIGNS_DIR / "traffic_light")
    verdicts = []
    for mutant in make_mutants(design, 3, seed=0):
        sources = write_mutant(design, mutant, tmp_path / f"mutant{mutant.index}")
        verilog = subprocess.run([str(run_dir / "replay" / "run.sh"), *map(str, sources)], capture_output=True,
                                 text=True, timeout=300)
        cocotb = run_cocotb_replay(run_dir / "cocotb", sources)
        verdicts.append((verilog.returncode != 0, cocotb.returncode != 0))
        assert verdicts[-1][0] == verdicts[-1][1], (mutant.description, verilog.stdout[-1000:], cocotb.stdout[-2000:])
        if verilog.returncode:
            first = [MISMATCH.search(output)[0].lower() for output in (verilog.stdout, cocotb.stdout)]
            assert first[0] == first[1], mutant.description
        else:  # a live mutant replays; only the reference's coverage is checked
            assert "1 skipped" in cocotb.stdout
    assert (True, True) in verdicts
