"""The hard-coverage benchmark (designs/hard_coverage): designs whose bins random stimulus does
not reach, each with covergroups and a golden stimulus program that reaches every bin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.coverage_yaml import load_covergroups
from hdlrl.cover.grade import read_programs
from hdlrl.cover.stimulus import StimulusSpace, parse_program
from hdlrl.design import design_folders, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.errors import HdlrlError
from hdlrl.verify.interface import read_interface

HARD = DESIGNS_DIR / "hard_coverage"


def test_a_folder_of_designs_stands_for_them(tmp_path: Path) -> None:
    folders = design_folders([HARD, DESIGNS_DIR / "alu8"])
    assert len(folders) >= 12 and folders[-1] == DESIGNS_DIR / "alu8"
    assert {folder.parent for folder in folders[:-1]} == {HARD}
    for bad in (tmp_path, tmp_path / "missing", DESIGNS_DIR / "alu8" / "design.yaml"):
        with pytest.raises(HdlrlError, match="not a design folder"):
            design_folders([bad])


@pytest.mark.skipif(not has_tool("yosys"), reason="needs yosys")
@pytest.mark.parametrize("folder", design_folders([HARD]), ids=lambda folder: folder.name)
def test_every_hard_design_has_covergroups_and_a_golden_program(folder: Path, tmp_path: Path) -> None:
    design = load_design(folder)
    groups = load_covergroups(folder)
    assert sum(len(group.bin_ids()) for group in groups) >= 15
    interface = read_interface(ToolRunner(tmp_path), list(design.rtl), design.top)
    space = StimulusSpace.of(design, interface)
    programs = [parse_program(text, space) for text in read_programs(folder / "golden.json")]
    assert programs and sum(program.cycles for program in programs) <= space.max_cycles


@pytest.mark.skipif(not (has_tool("verilator") and has_tool("yosys")), reason="needs verilator and yosys")
def test_the_golden_stimulus_passes_the_grade(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    folder = HARD / "counter_cmp"
    assert main(["cover", str(folder), "--grade", str(folder / "golden.json"), "--out", str(tmp_path / "grade"),
                 "--json"]) == 0
    grade = json.loads(capsys.readouterr().out)
    assert grade["passed"] and {metric["metric"]: metric["measured"] for metric in grade["metrics"]}["functional"] == 1.0
