"""`hdlrl cover --grade`: a stimulus passes only when every coverage target holds (CVDP, LLM4Cov)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.grade import read_programs
from hdlrl.eda.toolchain import has_tool
from hdlrl.errors import HdlrlError

pytestmark = pytest.mark.skipif(not (has_tool("verilator") and has_tool("yosys")), reason="needs verilator and yosys")

REACHING = {"programs": [{"segments": [{"generator": "random", "cycles": 300}]},
                         {"segments": [{"generator": "burst", "cycles": 400}]}]}


def _grade(design: Path, stimulus: object, tmp_path: Path, capsys: pytest.CaptureFixture, name: str) -> tuple[int, dict]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(stimulus))
    code = main(["cover", str(design), "--grade", str(path), "--out", str(tmp_path / name), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_a_reaching_stimulus_passes_and_an_empty_one_fails(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, grade = _grade(DESIGNS_DIR / "traffic_light", REACHING, tmp_path, capsys, "reaching")
    assert code == 0 and grade["passed"] and grade["programs"] == 2 and grade["simulator"] == "verilator"
    assert {metric["metric"] for metric in grade["metrics"]} == {"line", "branch", "functional"}
    assert all(metric["met"] and metric["measured"] >= metric["target"] for metric in grade["metrics"])
    assert json.loads((tmp_path / "reaching" / "grade.json").read_text()) == grade
    code, grade = _grade(DESIGNS_DIR / "traffic_light", [], tmp_path, capsys, "empty")
    assert code == 1 and not grade["passed"] and grade["programs"] == 0
    assert all(metric["measured"] is None and not metric["met"] for metric in grade["metrics"])  # not measured


def test_the_design_s_coverage_yaml_sets_the_targets(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A design without covergroups has no functional target; its coverage.yaml may hold targets alone."""
    design = shutil.copytree(DESIGNS_DIR / "tick_div10", tmp_path / "tick_div10")
    short = {"segments": [{"generator": "reset", "cycles": 2}, {"generator": "hold", "cycles": 3, "values": {}}]}
    code, grade = _grade(design, short, tmp_path, capsys, "flow_targets")
    assert {metric["metric"] for metric in grade["metrics"]} == {"line", "branch"}
    (design / "coverage.yaml").write_text("targets: {toggle: 0.5, line: 0.1, branch: 0.1}\n")
    code, grade = _grade(design, short, tmp_path, capsys, "own_targets")
    verdicts = {metric["metric"]: (metric["target"], metric["met"]) for metric in grade["metrics"]}
    assert verdicts["line"] == (0.1, True) and verdicts["toggle"] == (0.5, False)  # five cycles toggle few bits
    assert code == 1 and not grade["passed"]


@pytest.mark.parametrize("text, message, line", [
    ('{"programs": [', "not JSON", 1),
    ('"random"', "expected a stimulus program", None),
    ('[{"segments": []}, 3]', "expected a stimulus program", None),
])
def test_a_bad_stimulus_file_is_named(tmp_path: Path, text: str, message: str, line: int | None) -> None:
    path = tmp_path / "stimulus.json"
    path.write_text(text)
    with pytest.raises(HdlrlError, match=message) as raised:
        read_programs(path)
    assert raised.value.path == path and raised.value.line == line
