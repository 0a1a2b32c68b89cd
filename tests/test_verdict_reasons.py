"""Every gate verdict explains itself (issue 24): an accepted one names the check that decided
its level and that check's evidence (never a time, which would differ with the machine's load),
a rejected one keeps its reason, and a verdict without a reason cannot be made (real Yosys,
Verilator, Icarus)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from hdlrl.design import load_design
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate import Verdict, gate
from hdlrl.verify.gate_flow import GateFlow, load_gate_flow

DESIGNS = Path(__file__).resolve().parents[1] / "designs"
FLOW = load_gate_flow()
NO_TIME_TO_PROVE = replace(FLOW, equivalence=replace(FLOW.equivalence, time_s=0.01))


def judge(design_name: str, sources: tuple[Path, ...], flow: GateFlow = FLOW) -> Verdict:
    return gate(load_design(DESIGNS / design_name), sources, get_pdk("generic"), flow, with_ppa=False)


def _rewritten_counter(tmp_path: Path) -> tuple[Path, ...]:
    """tick_div10 with the operands of its output's `&&` swapped: equivalent, but neither the same
    text nor the same netlist, so the gate runs every stage and a proof."""
    source = tmp_path / "tick_div10.v"
    source.write_text((DESIGNS / "tick_div10" / "rtl" / "tick_div10.v").read_text().replace(
        "assign tick = en && (count == 32'd9);", "assign tick = (count == 32'd9) && en;"))
    return (source,)


def test_a_proven_verdict_names_the_proof_and_what_it_showed(tmp_path: Path) -> None:
    verdict = judge("tick_div10", _rewritten_counter(tmp_path))
    assert verdict.accepted and verdict.level == "proven"
    assert re.fullmatch(r"proven equivalent by (equiv-induct|sat-tempinduct\S*): .+", verdict.reason), verdict.reason


def test_a_simulated_verdict_names_the_cycles_and_the_spent_budget(tmp_path: Path) -> None:
    verdict = judge("tick_div10", _rewritten_counter(tmp_path), NO_TIME_TO_PROVE)
    assert verdict.accepted and verdict.level == "simulated"
    assert verdict.reason == (f"simulated {verdict.differential_cycles:,} cycles equal to the reference; "
                              "equivalence proof exceeded 0.01 s")


def test_a_rejected_verdict_keeps_the_reason_of_the_check_that_failed(tmp_path: Path) -> None:
    source = tmp_path / "tick_div10.v"
    source.write_text((DESIGNS / "tick_div10" / "rtl" / "tick_div10.v").read_text().replace("32'd9", "32'd8"))
    verdict = judge("tick_div10", (source,))
    assert not verdict.accepted and verdict.stage == "testbench"
    assert verdict.reason.strip() and "\n" not in verdict.reason


def test_a_verdict_without_a_reason_cannot_be_made() -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        Verdict("alu8", True, "done", "proven", "")
    verdict = Verdict("alu8", True, "done", "proven", "proven equivalent by miter-sat: outputs equal for every input")
    with pytest.raises(ValueError, match="needs a reason"):
        verdict.reason = " "
    with pytest.raises(ValueError, match="needs a reason"):
        replace(verdict, reason="")
    assert Verdict.from_dict(verdict.to_dict()).reason == verdict.reason
