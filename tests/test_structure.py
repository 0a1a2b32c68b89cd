"""Structural checks on small hand-written snippets (each issue with its kind and line) and on
the clean reference designs (no false positives)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hdlrl.design import design_folders, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.verify.structure import check_structure

from conftest import DESIGNS_DIR

pytestmark = pytest.mark.skipif(not (has_tool("yosys") and has_tool("verilator")),
                                reason="yosys or verilator not installed")

SNIPPETS = {
    "multiple-drivers": ("module m(input a, input b, output y);\n"
                         "  assign y = a;\n  assign y = b;\nendmodule\n", 1),
    "latch": ("module m(input a, input en, output reg y);\n"
              "  always @* if (en) y = a;\nendmodule\n", 2),
    "combinational-loop": ("module m(input a, input b, output y);\n  wire p, q;\n"
                           "  assign p = q ^ a;\n  assign q = p & b;\n  assign y = q;\nendmodule\n", (3, 4)),
    "initial-block": ("module m(input a, output reg y);\n  always @* y = a;\n"
                      "  initial begin\n    $display(\"hello\");\n  end\nendmodule\n", 3),
    "delay": ("module m #(parameter W = 1) (input [W-1:0] a, output [W-1:0] y);\n"
              "  assign #2 y = a;\nendmodule\n", 2),
    "undriven-output": ("module m(input a, output y, output z);\n  assign y = a;\nendmodule\n", 1),
}


def _check_text(tmp_path: Path, text: str):
    (tmp_path / "m.v").write_text(text)
    return check_structure(ToolRunner(tmp_path), [Path("m.v")], "m")


@pytest.mark.parametrize("kind", sorted(SNIPPETS))
def test_issue_found_with_kind_and_line(tmp_path: Path, kind: str) -> None:
    text, line = SNIPPETS[kind]
    result = _check_text(tmp_path, text)
    assert not result.ok
    matching = [issue for issue in result.issues if issue.kind == kind]
    assert matching, result.issues
    assert matching[0].file == "m.v"
    assert matching[0].line in (line if isinstance(line, tuple) else (line,))  # a loop: any of its lines
    assert kind in result.reason


def test_parameters_and_initial_values_are_not_issues(tmp_path: Path) -> None:
    text = ("module m #(parameter W = 4) (input clk, input [W-1:0] d, output [W-1:0] q);\n"
            "  reg [W-1:0] r;\n  initial r = 0;  // #5 in a comment\n"
            "  always @(posedge clk) r <= d;\n  sub #(.W(W)) u0 (.a(r), .y(q));\nendmodule\n"
            "module sub #(parameter W = 1) (input [W-1:0] a, output [W-1:0] y);\n"
            "  assign y = a;\nendmodule\n")
    result = _check_text(tmp_path, text)
    assert result.ok, result.reason


@pytest.mark.parametrize("folder", design_folders([DESIGNS_DIR, DESIGNS_DIR / "hard_coverage"]),
                         ids=lambda folder: folder.name)
def test_reference_designs_are_clean(tmp_path: Path, folder: Path) -> None:
    design = load_design(folder)
    sources = []
    for path in design.rtl:
        shutil.copy(path, tmp_path / path.name)
        sources.append(Path(path.name))
    result = check_structure(ToolRunner(tmp_path), sources, design.top, list(design.include_dirs))
    assert result.ok, result.reason
