"""The importer reads clocks and the reset from the RTL, and the RTL wins over a description that
disagrees (issue 24, point 1); the simulated reset check catches a misread polarity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.hdl.netlist_facts import netlist_facts
from hdlrl.importers.clocking import described_polarity
from hdlrl.importers.reset_check import check_reset
from hdlrl.importers.rtllm import REPORT_FILE, UNUSABLE_FOLDER, run_import

# Worded as RTLLM's radix2_div words it: "0 for reset" reads as active-low to a pattern.
DESCRIPTION = """Please act as a professional Verilog designer.
Implement a 4-bit counter with an enable.
Module name:
    count4
Input ports:
    clk: Clock signal.
    rst: Reset signal. Defined as 1 for reset and 0 for reset signal inactive.
    en: Count enable.
Output ports:
    q[3:0]: The count.
"""

RTL = {
    "async": """module verified_count4(input clk, input rst, input en, output reg [3:0] q);
  always @(posedge clk or posedge rst)
    if (rst) q <= 4'd0;
    else if (en) q <= q + 4'd1;
endmodule
""",
    "sync": """module verified_count4(input clk, input rst, input en, output reg [3:0] q);
  always @(posedge clk)
    if (rst) q <= 4'd5;
    else if (en) q <= q + 4'd1;
endmodule
""",
}

TESTBENCH = """`timescale 1ns/1ps
module tb;
  reg clk = 0, rst = 1, en = 0;
  wire [3:0] q;
  count4 uut(.clk(clk), .rst(rst), .en(en), .q(q));
  always #5 clk = ~clk;
  initial begin
    #22 rst = 0; en = 1;
    #40;
    if (q === 4'bxxxx) $display("Failed: q is x");
    else $display("===========Your Design Passed===========");
    $finish;
  end
endmodule
"""


def _rtllm_folder(root: Path, kind: str) -> Path:
    folder = root / "source" / f"count4_{kind}"
    folder.mkdir(parents=True)
    (folder / "design_description.txt").write_text(DESCRIPTION)
    (folder / "verified_count4.v").write_text(RTL[kind])
    (folder / "testbench.v").write_text(TESTBENCH)
    return folder


def test_the_prose_reads_active_low() -> None:
    assert described_polarity("rst", DESCRIPTION) == "low"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_the_rtl_wins_over_a_description_that_contradicts_its_reset_polarity(tmp_path: Path, kind: str) -> None:
    _rtllm_folder(tmp_path, kind)
    assert run_import(tmp_path / "source", tmp_path / "imported", workers=1) == 0
    design = load_design(tmp_path / "imported" / f"count4_{kind}")
    assert [clock.name for clock in design.clocks] == ["clk"]
    assert (design.reset.name, design.reset.polarity, design.reset.kind) == ("rst", "high", kind)
    [row] = json.loads((tmp_path / "imported" / REPORT_FILE).read_text())
    assert row["usable"] and row["derived_from"] == "RTL"
    assert any("active-low" in note and "the RTL wins" in note for note in row["notes"])
    assert "rst held high for 4 cycles: all 1 registers took their reset values" in row["reset_check"]


def test_the_reset_check_fails_when_the_reset_is_held_at_the_wrong_level(tmp_path: Path) -> None:
    rtl = tmp_path / "count4.v"
    rtl.write_text(RTL["sync"].replace("verified_count4", "count4"))
    runner = ToolRunner(tmp_path / "scratch", load_flow().limits, readable=(tmp_path,))
    facts = netlist_facts([rtl], "count4", runner)
    right = {"name": "rst", "polarity": "high", "kind": "sync"}
    assert check_reset(runner, rtl, "count4", ["clk"], right, facts).ok
    wrong = check_reset(runner, rtl, "count4", ["clk"], {**right, "polarity": "low"}, facts)
    assert not wrong.ok and "did not take their reset values: q=" in wrong.reason, wrong.reason


def test_a_reference_that_fails_synthesis_is_imported_as_not_usable_with_the_first_error(tmp_path: Path) -> None:
    folder = _rtllm_folder(tmp_path, "async")
    # An edge and a level in one event list: Icarus simulates it, Yosys cannot synthesise it.
    (folder / "verified_count4.v").write_text(RTL["async"].replace("posedge rst", "rst"))
    assert run_import(tmp_path / "source", tmp_path / "imported", workers=1) == 0
    assert not (tmp_path / "imported" / "count4_async").exists()
    assert (tmp_path / "imported" / UNUSABLE_FOLDER / "count4_async" / "design.yaml").is_file()
    [row] = json.loads((tmp_path / "imported" / REPORT_FILE).read_text())
    assert not row["usable"] and row["reason"].startswith("synthesize:") and row["derived_from"] != "RTL"
