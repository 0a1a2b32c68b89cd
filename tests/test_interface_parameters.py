"""The interface lock counts header parameters only: a `parameter` in a module's body is a
constant of the implementation, checked at its default like the rest of the body (issue 24),
while a changed header default or an added port is still rejected (real Yosys, Verilator)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate import Verdict, gate
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.verify.interface import header_parameters, read_interface

DESIGNS = Path(__file__).resolve().parents[1] / "designs"
FLOW = load_gate_flow()
COUNTER = "tick_div10"  # counts 0..9 with a 32-bit register; its limit is the literal 32'd9


def judge(design_dir: Path, source: Path) -> Verdict:
    return gate(load_design(design_dir), (source,), get_pdk("generic"), FLOW, with_ppa=False)


def counter_source(edit) -> str:
    text = (DESIGNS / COUNTER / "rtl" / f"{COUNTER}.v").read_text()
    edited = edit(text)
    assert edited != text, "the edit did not apply"
    return edited


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{COUNTER}.v"
    path.write_text(text)
    return path


def with_body_parameter(limit: str):
    """The counter's limit as a body `parameter`, as language models often write it."""
    def edit(text: str) -> str:
        return text.replace("    reg [31:0] count;", f"    reg [31:0] count;\n    parameter MAX_COUNT = {limit};") \
                   .replace("count == 32'd9", "count == MAX_COUNT")
    return edit


def with_header_parameter(default: str):
    """The counter's limit as a header parameter `LAST`."""
    def edit(text: str) -> str:
        return text.replace(f"module {COUNTER} (", f"module {COUNTER} #(parameter LAST = {default}) (") \
                   .replace("count == 32'd9", "count == LAST")
    return edit


def header_and_body(text: str) -> str:
    """The limit as header parameter LAST, and a body parameter MAX_COUNT besides, unused."""
    return with_header_parameter("32'd9")(text).replace(
        "    reg [31:0] count;", "    reg [31:0] count;\n    parameter MAX_COUNT = 32'd9;")


@pytest.fixture
def header_design(tmp_path: Path) -> Path:
    """tick_div10 whose reference declares its limit as a header parameter, LAST = 9."""
    folder = tmp_path / "reference"
    shutil.copytree(DESIGNS / COUNTER, folder)
    write(folder / "rtl", counter_source(with_header_parameter("32'd9")))
    return folder


def test_header_parameters_are_read_from_the_parameter_port_list_alone() -> None:
    text = ("module m import p::*; #(parameter [3:0] W = 4'd2, B = (W == 2), localparam L = {2{1'b1}}) "
            "(input clk); parameter BODY = 1; localparam LOCAL = 2; endmodule\n"
            "module other #(parameter OTHER = 1) (); endmodule")
    assert header_parameters(text, "m") == {"W", "B", "L"}
    assert header_parameters("module m (input a); parameter BODY = 1; endmodule", "m") == set()
    assert header_parameters("module m; parameter BODY = 1; endmodule", "m") == set()
    assert header_parameters("module other; endmodule", "m") is None


def test_the_interface_lists_header_parameters_but_not_body_ones(tmp_path: Path) -> None:
    source = write(tmp_path, counter_source(header_and_body))
    interface = read_interface(ToolRunner(tmp_path / "interface", readable=(tmp_path,)), [source], COUNTER)
    assert interface.parameters == (("LAST", 9),)


def test_a_body_parameter_is_no_interface_change_and_is_proven(tmp_path: Path) -> None:
    verdict = judge(DESIGNS / COUNTER, write(tmp_path, counter_source(with_body_parameter("32'd9"))))
    assert verdict.accepted and verdict.level == "proven", verdict.reason
    assert verdict.evidence.interface_differences == []


def test_a_body_parameter_is_checked_at_its_default(tmp_path: Path) -> None:
    verdict = judge(DESIGNS / COUNTER, write(tmp_path, counter_source(with_body_parameter("32'd8"))))
    assert not verdict.accepted and verdict.stage == "testbench", (verdict.stage, verdict.reason)


def test_a_body_parameter_beside_header_parameters_is_proven(tmp_path: Path, header_design: Path) -> None:
    verdict = judge(header_design, write(tmp_path / "candidate", counter_source(header_and_body)))
    assert verdict.accepted and verdict.level == "proven", verdict.reason


def test_a_changed_header_parameter_default_is_rejected(tmp_path: Path, header_design: Path) -> None:
    verdict = judge(header_design, write(tmp_path / "candidate", counter_source(with_header_parameter("32'd10"))))
    assert not verdict.accepted and verdict.stage == "interface"
    assert verdict.reason == "interface changed: parameter LAST defaults to 10, reference 9"


def test_a_header_parameter_moved_into_the_body_is_removed(tmp_path: Path, header_design: Path) -> None:
    verdict = judge(header_design, write(tmp_path / "candidate", counter_source(with_body_parameter("32'd9"))))
    assert not verdict.accepted and verdict.stage == "interface"
    assert verdict.reason == "interface changed: parameter LAST removed (reference default 9)"


def test_an_added_port_is_rejected(tmp_path: Path, header_design: Path) -> None:
    def debug_port(text: str) -> str:
        return with_header_parameter("32'd9")(text).replace("    input  wire en,", "    input  wire en,\n"
                                                             "    input  wire debug,")

    verdict = judge(header_design, write(tmp_path / "candidate", counter_source(debug_port)))
    assert not verdict.accepted and verdict.stage == "interface"
    assert verdict.reason == "interface changed: port debug added (input debug)"
