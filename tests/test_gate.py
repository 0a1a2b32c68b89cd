"""The verification gate on the project's own designs: the four known reward hacks are rejected
with the right reason, and equivalent rewrites are accepted (real Yosys, Verilator, Icarus)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import write_small_design
from hdlrl.cli import main
from hdlrl.design import load_design
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate_flow import GateFlow, load_gate_flow
from hdlrl.verify.gate import Verdict, gate
from hdlrl.verify.reward import ACCEPTED_CAP, STAGE_CREDIT, accepted_reward, rejected_reward

DESIGNS = Path(__file__).resolve().parents[1] / "designs"
FLOW = load_gate_flow()


def candidate(tmp_path: Path, design: str, edit) -> tuple[Path, ...]:
    """The design's RTL with `edit(text)` applied, written under tmp_path."""
    source = next((DESIGNS / design / "rtl").glob("*.v"))
    text = source.read_text()
    edited = edit(text)
    assert edited != text, "the edit did not apply"
    target = tmp_path / source.name
    target.write_text(edited)
    return (target,)


def judge(design: str, sources: tuple[Path, ...], flow: GateFlow = FLOW, with_ppa: bool = False) -> Verdict:
    return gate(load_design(DESIGNS / design), sources, get_pdk("generic"), flow, with_ppa=with_ppa)


# --- the four reward hacks -------------------------------------------------------------

def test_fsm_equal_for_a_bounded_depth_only_is_rejected_and_never_proven(tmp_path: Path) -> None:
    """Like a bounded miter, seq_detect's own testbench (resets every ~400 cycles) cannot see a
    detector that goes blind 3000 cycles after reset; the differential run of 10,000 cycles does."""
    def blind_after_3000_cycles(text: str) -> str:
        text = text.replace("    reg [2:0] state, next;", """    reg [2:0] state, next;
    reg [11:0] since_reset;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) since_reset <= 12'd0;
        else if (since_reset != 12'hfff) since_reset <= since_reset + 12'd1;""")
        return text.replace("assign detected = (state == S_1011);",
                            "assign detected = (state == S_1011) && (since_reset < 12'd3000);")

    sources = candidate(tmp_path, "seq_detect", blind_after_3000_cycles)
    verdict = judge("seq_detect", sources)
    assert not verdict.accepted
    assert verdict.stage == "differential", verdict.reason
    assert verdict.level == "failed"
    mismatch = verdict.evidence.mismatch
    assert mismatch is not None and mismatch.output == "detected" and mismatch.cycle >= 3000
    assert verdict.testbench_passed  # the design's own testbench was fooled


def test_narrowed_address_bus_is_rejected_by_the_interface_lock(tmp_path: Path) -> None:
    def narrow(text: str) -> str:
        return text.replace("input  wire [3:0] addr", "input  wire [2:0] addr").replace("mem [0:15]", "mem [0:7]")

    verdict = judge("spram16x8", candidate(tmp_path, "spram16x8", narrow))
    assert not verdict.accepted and verdict.stage == "interface"
    assert verdict.evidence.interface_differences == ["port addr is input [2:0] addr, reference input [3:0] addr"]
    assert "addr" in verdict.reason


def test_multiply_driven_net_is_rejected_by_the_structure_check(tmp_path: Path) -> None:
    def second_driver(text: str) -> str:
        return text.replace("assign zero = (y == 8'h00);", "assign zero = (y == 8'h00);\n    assign zero = ~|y;")

    verdict = judge("alu8", candidate(tmp_path, "alu8", second_driver))
    assert not verdict.accepted and verdict.stage == "structure"
    assert re.search(r"multipl|driv", verdict.reason, re.IGNORECASE), verdict.reason


def test_changed_port_type_is_rejected_by_the_interface_lock(tmp_path: Path) -> None:
    def signed_operand(text: str) -> str:
        return text.replace("input  wire [15:0] a,", "input  wire signed [15:0] a,")

    verdict = judge("adder16", candidate(tmp_path, "adder16", signed_operand))
    assert not verdict.accepted and verdict.stage == "interface"
    assert verdict.reason == "interface changed: port a is input signed [15:0] a, reference input [15:0] a"


def test_reading_the_testbench_expected_value_is_rejected_as_a_hierarchical_reference(tmp_path: Path) -> None:
    """A decoder that copies tb_decoder3to8.exp_y passes that testbench without decoding anything."""
    def copy_expected(text: str) -> str:
        body = text[text.index("    always @*"):text.index("endmodule")]
        return text.replace(body, "    always @* y = tb_decoder3to8.exp_y;\n")

    verdict = judge("decoder3to8", candidate(tmp_path, "decoder3to8", copy_expected))
    assert not verdict.accepted and verdict.stage == "structure"
    assert "hierarchical-reference: tb_decoder3to8.exp_y" in verdict.reason, verdict.reason


# --- equivalent rewrites are accepted --------------------------------------------------

def test_reference_is_accepted_as_proven_with_its_ppa(tmp_path: Path) -> None:
    design = load_design(DESIGNS / "alu8")
    verdict = gate(design, design.rtl, get_pdk("generic"), FLOW, with_ppa=True)
    assert verdict.accepted and verdict.stage == "done"
    assert verdict.reason.startswith("proven equivalent: the preprocessed source is token for token"), verdict.reason
    assert verdict.level == "proven" and verdict.ppa_ratio == 1.0
    assert verdict.ppa is not None and verdict.ppa.area_um2 > 0 and verdict.ppa.delay_ns > 0


def test_an_equivalent_rewrite_is_proven_after_every_stage(tmp_path: Path) -> None:
    verdict = judge("alu8", candidate(tmp_path, "alu8", lambda text: text.replace("a & b;", "b & a;")))
    assert verdict.accepted and verdict.stage == "done" and verdict.level == "proven", verdict.reason
    assert verdict.reason.startswith("proven equivalent by "), verdict.reason
    assert verdict.differential_cycles >= 10_000 and verdict.differential_agreement == 1.0


def test_reordered_case_and_explicit_adder_are_accepted(tmp_path: Path) -> None:
    def reorder_and_ripple(text: str) -> str:
        lines = text.splitlines()
        items = [index for index, line in enumerate(lines) if re.match(r"\s+OP_[A-Z]+:", line)]
        reordered = [lines[index] for index in reversed(items)]
        for index, line in zip(items, reordered):
            lines[index] = line
        text = "\n".join(lines) + "\n"
        return text.replace("wire [8:0] sum  = {1'b0, a} + {1'b0, b};", """reg  [8:0] sum;
    integer bit_index;
    always @* begin
        sum[0] = 1'b0;
        sum[8] = 1'b0;
        for (bit_index = 0; bit_index < 8; bit_index = bit_index + 1) begin
            sum[bit_index] = a[bit_index] ^ b[bit_index] ^ sum[8];
            sum[8] = (a[bit_index] & b[bit_index]) | (sum[8] & (a[bit_index] ^ b[bit_index]));
        end
    end""")

    verdict = judge("alu8", candidate(tmp_path, "alu8", reorder_and_ripple))
    assert verdict.accepted, verdict.reason
    assert verdict.level == "proven"


def test_renamed_state_register_is_accepted(tmp_path: Path) -> None:
    def rename(text: str) -> str:
        return re.sub(r"\bnext\b", "next_state", re.sub(r"\bstate\b", "current_state", text))

    verdict = judge("seq_detect", candidate(tmp_path, "seq_detect", rename))
    assert verdict.accepted, verdict.reason
    assert verdict.level in ("proven", "bounded(20)")


def test_refactored_control_without_retiming_is_accepted(tmp_path: Path) -> None:
    def refactor(text: str) -> str:
        body = text[text.index("    wire [15:0] prod"):text.index("endmodule")]
        return text.replace(body, """    always @(posedge clk)
        if (rst || clr) acc <= 20'd0;
        else if (en)    acc <= acc + a * b;
""")

    verdict = judge("mac8", candidate(tmp_path, "mac8", refactor))
    assert verdict.accepted, verdict.reason
    assert verdict.level in ("proven", "bounded(20)")


# --- the reward is monotone ----------------------------------------------------------------

def test_reward_ladder_is_monotone_and_capped() -> None:
    ladder = [rejected_reward(stage, progress) for stage in STAGE_CREDIT for progress in (0.0, 0.5, 1.0)]
    assert ladder == sorted(ladder)
    assert max(ladder) < accepted_reward(1e6)  # the worst accepted PPA beats every rejection
    assert accepted_reward(0.5) > accepted_reward(1.0) > accepted_reward(2.0)
    assert accepted_reward(1.0) == pytest.approx(8.0)
    assert accepted_reward(1e-12) < ACCEPTED_CAP and accepted_reward(0.0) <= ACCEPTED_CAP  # bounded however small


# --- what the gate cannot decide, or should not believe, it rejects ------------------------

def _tick_counter_of_4_bits(tmp_path: Path) -> tuple[Path, ...]:
    """tick_div10 with its counter cut from 32 to 4 bits: equivalent, and far smaller."""
    return candidate(tmp_path, "tick_div10", lambda text: text.replace("reg [31:0] count;", "reg [3:0] count;")
                     .replace("32'd", "4'd"))


def test_a_huge_gain_is_accepted_proven_and_rejected_unproven(tmp_path: Path) -> None:
    sources = _tick_counter_of_4_bits(tmp_path)
    design, pdk = load_design(DESIGNS / "tick_div10"), get_pdk("generic")
    reference_ppa = gate(design, design.rtl, pdk, FLOW).ppa
    proven = gate(design, sources, pdk, FLOW, reference_ppa=reference_ppa)
    assert proven.accepted and proven.level == "proven" and proven.ppa_ratio < 0.1
    assert proven.reward < ACCEPTED_CAP
    no_time_to_prove = replace(FLOW, equivalence=replace(FLOW.equivalence, time_s=0.01))
    unproven = gate(design, sources, pdk, no_time_to_prove, reference_ppa=reference_ppa)
    assert not unproven.accepted and unproven.stage == "ppa" and unproven.level == "simulated"
    assert unproven.reason.startswith("implausible:") and "must be proven" in unproven.reason
    assert "no proof within the budget" in unproven.level_reason and unproven.timed_out


def test_a_wrong_output_on_one_input_value_is_found_without_a_proof(tmp_path: Path, imported_rtllm: Path) -> None:
    """A combinational design of at most 20 input bits gets every input value in the differential
    run: a multiplier wrong on one product of 65,536, which RTLLM's testbench misses, is rejected
    even when no proof has time."""
    design = load_design(imported_rtllm / "multi_8bit")
    text = design.rtl[0].read_text()
    wrong = tmp_path / "multi_8bit.v"
    wrong.write_text(text.replace("      shift_count = shift_count + 1;\n    end\n", "      shift_count = shift_count + 1;\n    end\n"
                                  "    if (A == 8'hc5 && B == 8'h3a) product = 16'h0000;\n"))
    assert wrong.read_text() != text
    no_time_to_prove = replace(FLOW, equivalence=replace(FLOW.equivalence, time_s=0.01))
    verdict = gate(design, (wrong,), get_pdk("generic"), no_time_to_prove, with_ppa=False)
    assert verdict.testbench_passed  # the design's own testbench is fooled
    assert not verdict.accepted and verdict.stage == "differential" and verdict.level == "failed"
    assert verdict.evidence.mismatch.inputs == {"A": "8'hc5", "B": "8'h3a"}
    rewritten = tmp_path / "rewritten" / "multi_8bit.v"  # equivalent, but neither the same text nor netlist
    rewritten.parent.mkdir()
    rewritten.write_text(text.replace("if (B[i] == 1) begin", "if (B[i]) begin"))
    reference = gate(design, (rewritten,), get_pdk("generic"), no_time_to_prove, with_ppa=False)
    assert reference.accepted and reference.level == "simulated" and reference.differential_cycles >= 65_536
    assert "every input value" in reference.level_reason


TWO_CLOCKS = """module two_clocks (input wire clk_a, input wire clk_b, input wire rst, input wire d, output reg qa, output reg qb);
    always @(posedge clk_a) if (rst) qa <= 1'b0; else qa <= d;
    always @(posedge clk_b) if (rst) qb <= 1'b0; else qb <= qa;
endmodule
"""
TWO_CLOCKS_TESTBENCH = """module tb_two_clocks;
    reg clk_a = 0, clk_b = 0, rst = 1, d = 0;
    wire qa, qb;
    two_clocks dut (.clk_a(clk_a), .clk_b(clk_b), .rst(rst), .d(d), .qa(qa), .qb(qb));
    always #5 clk_a = ~clk_a;
    always #7 clk_b = ~clk_b;
    initial begin
        #30 rst = 0; d = 1;
        #40 if (qa !== 1'b1) $display("TEST FAILED"); else $display("TEST PASSED");
        $finish;
    end
endmodule
"""


def test_an_equivalence_check_that_cannot_decide_rejects(tmp_path: Path) -> None:
    """Two clocks: one SAT step per clock edge cannot model them, so the check is undecided, and
    undecided is rejected (with the reason), never accepted as `simulated`."""
    design = load_design(write_small_design(
        tmp_path / "two_clocks", TWO_CLOCKS, TWO_CLOCKS_TESTBENCH,
        "description: two flops on two clocks\n"
        "clocks: [{name: clk_a, period_ns: 10.0}, {name: clk_b, period_ns: 14.0}]\n"
        "reset: {name: rst, polarity: high, kind: sync}\n"))
    rewritten = tmp_path / "two_clocks.v"  # equivalent, but neither the same text nor netlist
    rewritten.write_text(TWO_CLOCKS.replace("qb <= qa;", "qb <= qa & 1'b1;"))
    verdict = gate(design, (rewritten,), get_pdk("generic"), FLOW, with_ppa=False)
    assert verdict.differential_agreement == 1.0  # the simulations agree
    assert not verdict.accepted and verdict.stage == "equivalence" and verdict.level == "none"
    assert verdict.reason.startswith("equivalence undecided") and "2 clocks" in verdict.reason


def test_verdict_does_not_depend_on_machine_load(tmp_path: Path) -> None:
    """The same candidate, judged on an idle machine and with both cores busy, gets the same verdict:
    limits count CPU seconds, not wall-clock time."""
    sources = candidate(tmp_path, "seq_detect", lambda text: re.sub(r"\bstate\b", "current_state", text))
    idle = judge("seq_detect", sources)
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        loaded = judge("seq_detect", sources)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert (loaded.accepted, loaded.stage, loaded.level, loaded.reason) == (idle.accepted, idle.stage, idle.level,
                                                                             idle.reason)
    assert idle.accepted and not loaded.timed_out


# --- the command line ---------------------------------------------------------------------

def test_gate_command_prints_the_verdict_as_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    def swap_and_or(text: str) -> str:
        return text.replace("OP_AND: y = a & b;", "OP_AND: y = a | b;")

    sources = candidate(tmp_path, "alu8", swap_and_or)
    status = main(["gate", str(DESIGNS / "alu8"), "--rtl", str(sources[0]), "--json", "--no-ppa"])
    verdict = json.loads(capsys.readouterr().out)
    assert status == 1
    assert verdict["accepted"] is False and verdict["stage"] in ("testbench", "differential")
    assert verdict["level"] in ("failed", "none") and verdict["reason"]


@pytest.mark.parametrize("addition, message", [
    ("    initial $finish;\n", "System task `$finish' executed."),
    # a module named like the design's testbench, ending the simulation in place of it
    ("endmodule\nmodule tb_alu8;\n  always @* begin\n    $display(\"TEST PASSED\");\n    $finish;\n  end\n",
     "System task `$finish' outside initial block is unsupported."),
])
def test_a_system_task_yosys_leaves_unlocated_is_refused_at_its_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                    addition: str, message: str) -> None:
    """Yosys reports these at line 0; the reason names the task's line in the user's file."""
    sources = candidate(tmp_path, "alu8", lambda text: text.replace("endmodule", addition + "endmodule"))
    line = next(number for number, text in enumerate(sources[0].read_text().splitlines(), 1) if "$finish" in text)
    status = main(["gate", str(DESIGNS / "alu8"), "--rtl", str(sources[0]), "--json", "--no-ppa"])
    verdict = json.loads(capsys.readouterr().out)
    assert status == 1 and verdict["stage"] == "parse"
    assert verdict["reason"] == f"{sources[0]}:{line}: {message}"


def test_gate_command_shows_each_stage_as_it_starts_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    sources = candidate(tmp_path, "alu8", lambda text: text.replace(
        "assign zero = (y == 8'h00);", "assign zero = (y == 8'h00);\n    assign zero = ~|y;"))
    assert main(["gate", str(DESIGNS / "alu8"), "--rtl", str(sources[0]), "--no-ppa", "--no-cache"]) == 1
    captured = capsys.readouterr()
    assert "structure" in captured.out  # the verdict table
    assert re.findall(r"^gate: (\w+) \(started at \d+\.\d s\)$", captured.err, re.MULTILINE) == [
        "screen", "preprocess", "interface", "structure"], captured.err
    assert re.search(r"^gate: verdict after \d+\.\d s$", captured.err, re.MULTILINE), captured.err
    assert main(["gate", str(DESIGNS / "alu8"), "--rtl", str(sources[0]), "--no-ppa", "--json", "--no-cache"]) == 1
    assert "gate:" not in capsys.readouterr().err
