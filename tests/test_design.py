"""The design format: every project design loads; malformed files fail with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import project_designs
from hdlrl.design import load_design
from hdlrl.errors import HdlrlError

VALID = """\
name: tiny
top: tiny
rtl: [rtl/tiny.v]
testbench:
  sources: [tb/tb.v]
  top: tb
  pass_pattern: PASS
clocks:
  - {name: clk, period_ns: 5}
reset: {name: rst_n, polarity: low, kind: async}
"""


def write_design(root: Path, text: str) -> Path:
    (root / "rtl").mkdir(exist_ok=True)
    (root / "tb").mkdir(exist_ok=True)
    (root / "rtl" / "tiny.v").write_text("module tiny(input clk, rst_n, output q); assign q = clk; endmodule\n")
    (root / "tb" / "tb.v").write_text("module tb; initial $display(\"PASS\"); endmodule\n")
    (root / "design.yaml").write_bytes(text.encode() if isinstance(text, str) else text)
    return root


def test_at_least_twelve_project_designs_of_every_kind() -> None:
    designs = [load_design(path) for path in project_designs()]
    assert len(designs) >= 12
    assert sum(design.is_combinational for design in designs) >= 4
    assert sum(not design.is_combinational for design in designs) >= 6
    for design in designs:
        assert design.testbench.sources
        assert design.testbench.top if design.testbench.kind == "verilog" else design.testbench.module
        assert all(path.is_file() for path in design.rtl)


def test_valid_design_loads(tmp_path: Path) -> None:
    design = load_design(write_design(tmp_path, VALID))
    assert design.top == "tiny"
    assert design.clocks[0].period_ns == 5.0
    assert design.reset.polarity == "low" and design.reset.kind == "async"
    assert not design.is_combinational


@pytest.mark.parametrize("text, expected", [
    (VALID.replace("top: tiny\n", ""), r"design.yaml:\d+: top: required field is missing"),
    (VALID.replace("top: tiny", "top: 3tiny"), r"design.yaml:2: top: '3tiny' is not a Verilog identifier"),
    (VALID.replace("period_ns: 5", "period_ns: -5"), r"design.yaml:9: clocks\[0\].period_ns: must be greater than 0, got -5"),
    (VALID.replace("polarity: low", "polarity: sideways"), r"design.yaml:10: reset.polarity: must be 'low' or 'high', got 'sideways'"),
    (VALID.replace("rtl/tiny.v", "rtl/missing.v"), r"design.yaml:3: rtl\[0\]: 'rtl/missing.v' does not exist"),
    (VALID.replace("rtl/tiny.v", "../../etc/passwd"), r"design.yaml:3: rtl\[0\]: .* lies outside the design folder"),
    (VALID + "colour: blue\n", r"design.yaml:11: colour: unknown field"),
    (VALID.replace("pass_pattern: PASS", "pass_pattern: '(unclosed'"), r"testbench.pass_pattern: invalid regular"),
    (VALID.replace("clocks:\n", "clocks: [\n"), r"design.yaml:\d+: invalid YAML"),
    (VALID.replace("testbench:", "testbench: 7\nx:"), r"design.yaml:\d+: "),
    (VALID.replace("period_ns: 5", "period_ns: .inf"), r"design.yaml:9: clocks\[0\].period_ns: must be a finite number"),
    (VALID.replace("period_ns: 5", "period_ns: .nan"), r"design.yaml:9: clocks\[0\].period_ns: must be a finite number"),
    (VALID.replace("period_ns: 5", "period_ns: '5'"), r"design.yaml:9: clocks\[0\].period_ns: must be a number"),
    (VALID.replace("clocks:\n", "clocks: &one\n") + "x: *one\n", r"design.yaml:8: YAML anchors and aliases are refused"),
    (VALID + "description: " + "[" * 40 + "]" * 40 + "\n", r"design.yaml:11: nested deeper than 32 levels"),
    (VALID.replace("testbench:\n", "testbench:\n  module: tests\n"), r"design.yaml:\d+: "),
])
def test_malformed_design_yaml_names_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    write_design(tmp_path, text)
    with pytest.raises(HdlrlError, match=expected) as caught:
        load_design(tmp_path)
    assert "\n" not in str(caught.value)


def test_non_utf8_design_yaml(tmp_path: Path) -> None:
    write_design(tmp_path, VALID.encode() + b"description: caf\xe9\n")
    with pytest.raises(HdlrlError, match=r"design.yaml:11: not valid UTF-8"):
        load_design(tmp_path)


def test_missing_design_folder() -> None:
    with pytest.raises(HdlrlError, match="design folder not found"):
        load_design("/nonexistent/design")
