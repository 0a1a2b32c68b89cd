"""Yosys equivalence on real designs: self-equivalence is proven, real differences fail with a
trace, a re-encoded FSM is never failed, a late difference is never proven, a time-out is unknown."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from hdlrl.design import Design, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.verify.equivalence import EquivalenceOptions, EquivalenceResult, check_equivalence
from hdlrl.verify.interface import read_interface

from conftest import DESIGNS_DIR

pytestmark = pytest.mark.skipif(not has_tool("yosys"), reason="yosys not installed")


def _check(tmp_path: Path, name: str, candidate_text: str | None = None,
           options: EquivalenceOptions = EquivalenceOptions(), designs_dir: Path = DESIGNS_DIR) -> EquivalenceResult:
    """Reference of designs/`name` against `candidate_text` (the reference itself when None)."""
    design: Design = load_design(designs_dir / name)
    (tmp_path / "reference").mkdir()
    (tmp_path / "candidate").mkdir()
    reference = [Path("reference") / path.name for path in design.rtl]
    for path in design.rtl:
        shutil.copy(path, tmp_path / "reference" / path.name)
    candidate = [Path("candidate") / reference[0].name]
    (tmp_path / candidate[0]).write_text(candidate_text if candidate_text is not None
                                         else design.rtl[0].read_text())
    runner = ToolRunner(tmp_path)
    interface = read_interface(runner, reference, design.top)
    return check_equivalence(runner, design, interface, reference, candidate, [], options)


def _rtl(name: str) -> str:
    return (DESIGNS_DIR / name / "rtl" / f"{name}.v").read_text()


@pytest.mark.parametrize("name", ["adder16", "updown_counter8", "seq_detect"])
def test_reference_against_itself_is_proven(tmp_path: Path, name: str) -> None:
    result = _check(tmp_path, name)
    assert result.level == "proven", result.reason
    assert result.label == "proven" and not result.timed_out


def test_memory_named_like_its_module_is_matched_by_name(tmp_path: Path) -> None:
    """Only module names get the reference prefix, so `equiv_make` still pairs the memories."""
    designs = tmp_path / "designs"
    shutil.copytree(DESIGNS_DIR / "spram16x8", designs / "spram16x8")
    source = designs / "spram16x8" / "rtl" / "spram16x8.v"
    source.write_text(re.sub(r"\bmem\b", "spram16x8", source.read_text()))
    work = tmp_path / "work"
    work.mkdir()
    swapped = source.read_text().replace("if (en && we)", "if (we && en)")  # not the same netlist: a proof runs
    result = _check(work, "spram16x8", swapped, designs_dir=designs)
    assert result.level == "proven" and result.method == "equiv-induct", result.reason


# A 4-bit serialiser (ports of seq_detect): it captures four bits of din, then shifts them out
# through `detected` MSB first while rotating; the bit rotated into position 0 never reaches
# position 3 before the next capture, so what is rotated in does not matter.
SERIALISER = """module seq_detect(input wire clk, input wire rst_n, input wire din, output wire detected);
    reg [3:0] word;
    reg [3:0] shift;
    reg [1:0] count;
    assign detected = shift[3];
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin word <= 4'd0; shift <= 4'd0; count <= 2'd0; end
        else begin
            word <= {word[2:0], din};
            count <= count + 2'd1;
            shift <= (count == 2'd3) ? word : {shift[2:0], FILL};
        end
endmodule
"""


def test_unobservable_change_is_proven_by_induction_from_defined_registers(tmp_path: Path) -> None:
    """Induction from undefined registers stops at bounded(N) here; k-induction from defined ones closes."""
    designs = tmp_path / "designs"
    shutil.copytree(DESIGNS_DIR / "seq_detect", designs / "seq_detect")
    (designs / "seq_detect" / "rtl" / "seq_detect.v").write_text(SERIALISER.replace("FILL", "shift[3]"))
    work = tmp_path / "work"
    work.mkdir()
    result = _check(work, "seq_detect", SERIALISER.replace("FILL", "shift[2]"), designs_dir=designs)
    assert result.level == "proven" and result.method == "sat-tempinduct-defined-init", result.reason


def test_renamed_register_is_still_equivalent(tmp_path: Path) -> None:
    text = re.sub(r"\bstate\b", "current_state", _rtl("seq_detect"))
    result = _check(tmp_path, "seq_detect", text)
    assert result.level in ("proven", "bounded"), result.reason


def test_changed_operator_fails_with_counterexample(tmp_path: Path) -> None:
    text = _rtl("adder16")
    changed = text.replace("g     = a[blk*BW + i] & b", "g     = a[blk*BW + i] | b")
    assert changed != text
    result = _check(tmp_path, "adder16", changed)
    assert result.level == "failed", result.reason
    assert result.counterexample and {"a", "b", "cin"} <= result.counterexample[0].keys()


def test_candidate_x_where_the_reference_is_defined_fails(tmp_path: Path) -> None:
    """`'x` is a don't-care to synthesis, which may then build anything: a candidate that leaves
    undefined what the reference defines is not equivalent (the name-matched proof models X too)."""
    text = _rtl("decoder3to8")
    changed = text.replace("y = 8'b0000_0000;", "y = 8'bxxxx_xxxx;")
    assert changed != text
    result = _check(tmp_path, "decoder3to8", changed)
    assert result.level == "failed", result.reason
    assert "y differs" in result.reason


def test_changed_counter_fails_with_trace_from_reset(tmp_path: Path) -> None:
    text = _rtl("updown_counter8")
    changed = text.replace("q - 8'd1", "q - 8'd2")
    assert changed != text
    result = _check(tmp_path, "updown_counter8", changed)
    assert result.level == "failed" and result.method == "sat-tempinduct", result.reason
    assert result.counterexample[0]["rst_n"] == "0"  # the trace starts in reset
    assert "clk" not in result.counterexample[0]
    last = result.counterexample[-1]
    assert last["reference.q"] != last["candidate.q"] or last["reference.tc"] != last["candidate.tc"]


def test_re_encoded_fsm_is_not_failed(tmp_path: Path) -> None:
    """One-hot-ish codes for the same five states: no name-matched proof, but same behaviour."""
    text = _rtl("seq_detect")
    for old, new in (("3'd0,", "3'd5,"), ("3'd1,", "3'd6,"), ("3'd2,", "3'd7,"), ("3'd4;", "3'd1;")):
        assert old in text
        text = text.replace(old, new, 1)
    result = _check(tmp_path, "seq_detect", text)
    assert result.level in ("proven", "bounded"), result.reason
    assert result.method == "sat-tempinduct"


def test_late_difference_is_caught_and_never_proven(tmp_path: Path) -> None:
    """traffic_light with EW yellow one cycle longer: the first difference is about 14 cycles
    after reset, found within depth 20."""
    text = _rtl("traffic_light")
    changed = text.replace("EW_Y:    begin leave = (timer == Y_LEN - 4'd1);",
                           "EW_Y:    begin leave = (timer == Y_LEN);")
    assert changed != text
    result = _check(tmp_path, "traffic_light", changed)
    assert result.level == "failed", result.reason
    assert len(result.counterexample) > 5


def test_difference_beyond_depth_is_bounded_not_proven(tmp_path: Path) -> None:
    text = _rtl("traffic_light")
    changed = text.replace("EW_Y:    begin leave = (timer == Y_LEN - 4'd1);",
                           "EW_Y:    begin leave = (timer == Y_LEN);")
    result = _check(tmp_path, "traffic_light", changed, EquivalenceOptions(depth=6))
    assert result.level == "bounded" and result.label == "bounded(6)", result.reason


def test_tiny_time_limit_is_unknown(tmp_path: Path) -> None:
    result = _check(tmp_path, "seq_detect", options=EquivalenceOptions(time_s=0.001))
    assert result.level == "unknown" and result.timed_out
    assert result.reason == "equivalence proof exceeded 0.001 s"
