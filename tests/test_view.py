"""The one view every tool reads: translate_off regions, the macro set, the screen of the
expanded text and the record of every decision (real Verilator -E)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.staging import ViewRefusal, build_view
from hdlrl.hdl.view import LineMap, remove_translate_off, strip_comments_and_attributes


def view_of(tmp_path: Path, text: str, extra: dict[str, str] | None = None,
            includes: tuple[str, ...] = ()) -> tuple[str, object]:
    """The view of `text` as rtl/top.v (with `extra` files in the scratch folder), and its record."""
    scratch = tmp_path / "scratch"
    (scratch / "rtl").mkdir(parents=True)
    (scratch / "rtl" / "top.v").write_text(text)
    for name, content in (extra or {}).items():
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        (scratch / name).write_text(content)
    view, record = build_view(ToolRunner(scratch), [Path("rtl/top.v")], [Path(folder) for folder in includes],
                              "candidate")
    return (scratch / view).read_text(), record


def code_of(view: str) -> str:
    """The view without `line directives and blank space, for comparing what a tool reads."""
    return " ".join(" ".join(line.split()) for line in view.splitlines()
                    if line.strip() and not line.lstrip().startswith("`line"))


def test_translate_off_regions_are_blanked_keeping_lines() -> None:
    text = "a;\n// synopsys translate_off\nb;\n// synopsys translate_on\nc;\n/* synthesis translate_off */ d; /* synthesis translate_on */\n// pragma translate_off\ne;\n// pragma translate_on\n"
    kept, regions = remove_translate_off(text, "f.v")
    assert kept.count("\n") == text.count("\n")
    assert [word for word in kept.split() if word] == ["a;", "c;"]
    assert [(region.first, region.last) for region in regions] == [(2, 4), (6, 6), (7, 9)]


@pytest.mark.parametrize("text, message, line", [
    ("a;\n// synthesis translate_off\nb;\n", "translate_off without a translate_on", 2),
    ("a;\n// synthesis translate_on\n", "translate_on without a translate_off", 2),
    ("// translate_off\n// synopsys translate_off\n// translate_on\n", "inside the translate_off region", 2),
])
def test_unbalanced_translate_off_is_refused_with_its_line(text: str, message: str, line: int) -> None:
    with pytest.raises(HdlrlError) as caught:
        remove_translate_off(text, "f.v")
    assert message in caught.value.message and caught.value.line == line and str(caught.value).startswith(f"f.v:{line}:")


def test_attributes_are_removed_but_event_controls_stay() -> None:
    text = ("(* full_case, parallel_case *) case (s)\nalways @(*) x = y;\nalways @( * ) x = y; // c\n"
            "(* blackbox *) module m; endmodule\n(* keep *) wire w;\n(* keep, keep_hierarchy *) m u();\n")
    stripped, attributes = strip_comments_and_attributes(text, LineMap.of(text, "f.v"))
    assert "full_case" not in stripped and "blackbox" not in stripped and "// c" not in stripped
    assert "@(*)" in stripped and "@( * )" in stripped and "(* keep *) wire w;" in stripped
    assert attributes == ["f.v:1: (* full_case, parallel_case *)", "f.v:4: (* blackbox *)",
                          "f.v:6: (* keep, keep_hierarchy *)"]
    assert stripped.count("\n") == text.count("\n")


def test_every_tool_macro_is_undefined_and_synthesis_defined(tmp_path: Path) -> None:
    text = """module top(output [7:0] y);
`ifdef SYNTHESIS
  localparam S = 1;
`else
  localparam S = 0;
`endif
`ifdef VERILATOR
  localparam V = 1;
`elsif __ICARUS__
  localparam V = 2;
`elsif YOSYS
  localparam V = 3;
`else
  localparam V = 0;
`endif
  assign y = {S[3:0], V[3:0]};
endmodule
"""
    view, record = view_of(tmp_path, text)
    code = code_of(view)
    assert "localparam S = 1;" in code and "localparam S = 0;" not in code
    assert "localparam V = 0;" in code and "V = 1" not in code and "V = 2" not in code and "V = 3" not in code
    assert record.defines == {"SYNTHESIS": "1"} and "VERILATOR" in record.undefined
    assert "rtl/top.v:2: `ifdef SYNTHESIS" in record.conditionals
    dropped = {(region.first, region.last) for region in record.removed if region.why == "conditional compilation"}
    assert (5, 5) in dropped and (8, 8) in dropped


def test_view_keeps_the_original_file_and_line_for_every_tool(tmp_path: Path) -> None:
    view, _ = view_of(tmp_path, "`define W 8\n\n// synopsys translate_off\nwire x;\n// synopsys translate_on\n"
                                "module top(input [`W-1:0] a, output [`W-1:0] y);\n  assign y = a;\nendmodule\n")
    line_map = LineMap.of(view)
    physical = next(index for index, line in enumerate(view.split("\n"), start=1) if "assign y = a" in line)
    assert line_map.locate(physical) == ("rtl/top.v", 7)
    assert "input [8-1:0] a" in view and "wire x" not in view


@pytest.mark.parametrize("text, message, line", [
    ("`define S $sys``tem\nmodule top;\n  initial `S(\"ls\");\nendmodule\n", "system task $system is refused", 3),
    ("`define OPEN(f) $fopen(f)\nmodule top;\n  integer h;\n  initial h = `OPEN(\"/etc/passwd\");\nendmodule\n",
     "system task $fopen is refused", 4),
    ("`define NAME hdlrl_ref_top\nmodule `NAME; endmodule\nmodule top; endmodule\n", "prefix hdlrl_ is reserved", 2),
    ("module top;\n  wire \\hdlrl_miter ;\nendmodule\n", "prefix hdlrl_ is reserved", 2),
    ("module top;\n  wire \\a.b ;\nendmodule\n", "escaped identifier", 2),
    ("module top;\n  reg [7:0] m [0:15];\n  initial $readmemh(\"../../etc/passwd\", m);\nendmodule\n",
     "points outside the design folder", 3),
    # 30 levels in the file, 330 once each use has put its 10 parentheses around the next
    ("`define W(x) ((((((((((x))))))))))\nmodule top;\n  wire [7:0] a;\n  wire y = " + "`W(" * 30 + "a" + ")" * 30
     + ";\nendmodule\n", "nesting deeper than 256 levels", 4),
])
def test_screen_reads_the_expanded_text_and_names_the_original_line(tmp_path: Path, text: str, message: str,
                                                                    line: int) -> None:
    with pytest.raises(ViewRefusal) as caught:
        view_of(tmp_path, text)
    assert caught.value.stage == "screen" and message in caught.value.message, str(caught.value)
    assert str(caught.value).startswith(f"rtl/top.v:{line}:"), str(caught.value)


@pytest.mark.parametrize("text, reading", [
    ("`define C(x) $``c(x)\nmodule top;\n`ifdef VERILATOR\n  initial `C(\"1\");\n`endif\nendmodule\n", "`VERILATOR"),
    ("`define T(n) $``n\nmodule top;\n  integer f;\n`ifndef SYNTHESIS\n  initial f = `T(fopen)(\"x\");\n`endif\n"
     "endmodule\n", "no macro"),
    ("`define T(n) $``n\nmodule top;\n  integer f;\n// synopsys translate_off\n  initial f = `T(fopen)(\"x\");\n"
     "// synopsys translate_on\nendmodule\n", "no macro"),
])
def test_code_the_view_leaves_out_is_screened_as_other_tools_read_it(tmp_path: Path, text: str, reading: str) -> None:
    """The file may be simulated elsewhere: a macro-built task in another tool's branch, or in a
    translate_off region, is refused although the view never contains it."""
    with pytest.raises(ViewRefusal) as caught:
        view_of(tmp_path, text)
    assert caught.value.stage == "screen" and "is refused" in caught.value.message
    assert f"(as read with {reading}" in caught.value.message


def test_included_file_is_expanded_and_its_translate_off_removed(tmp_path: Path) -> None:
    header = "// synopsys translate_off\nwire sim_only;\n// synopsys translate_on\nwire real_wire;\n"
    view, record = view_of(tmp_path, 'module top;\n`include "defs.vh"\nendmodule\n', {"inc/defs.vh": header},
                           includes=("inc",))
    assert "real_wire" in view and "sim_only" not in view
    assert [(region.file, region.first, region.last) for region in record.removed] == [("inc/defs.vh", 1, 3)]
    assert record.includes == ['rtl/top.v:2: `include "defs.vh"']


def test_preprocessor_error_is_a_parse_refusal(tmp_path: Path) -> None:
    with pytest.raises(ViewRefusal) as caught:
        view_of(tmp_path, "module top;\n`ifdef X\nendmodule\n")
    assert caught.value.stage == "parse" and "preprocessing failed" in caught.value.message
