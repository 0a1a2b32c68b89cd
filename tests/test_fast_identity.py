"""Fast identity (issue 24): a candidate that is the reference, token for token or netlist for
netlist, is proven at once; anything else goes through the gate as before (real Yosys,
Verilator, Icarus)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.evaluate.cascade import evaluate
from hdlrl.hdl.lexer import normalise
from hdlrl.importers.rtllm import import_design
from hdlrl.pdk import get_pdk
from hdlrl.verify.equivalence import EquivalenceResult, check_equivalence
from hdlrl.verify.gate import Verdict, gate, reference_ppa_of
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.verify.identity import IDENTICAL_NETLIST, same_netlist, same_tokens
from hdlrl.verify.interface import read_interface

FLOW = load_gate_flow()
IDENTICAL_SOURCE = re.compile(r"proven equivalent: the preprocessed source is token for token the reference's "
                              r"\(\d+ tokens\)")
FAST_S = 10.0


def _rtl(name: str) -> str:
    return (DESIGNS_DIR / name / "rtl" / f"{name}.v").read_text()


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.v"
    path.write_text(text)
    return path


def _relaid(text: str) -> str:
    """`text` with other comments and another layout: the same tokens."""
    edited = "/* the reference, laid out again */\n" + re.sub(r"//[^\n]*", "// another comment", text)
    edited = re.sub(r"[ \t]+", "  ", edited).replace(";", " ;\n")
    assert edited != text
    return edited


def _judge(name: str, text: str, folder: Path, with_ppa: bool = False) -> Verdict:
    return gate(load_design(DESIGNS_DIR / name), (_write(folder, name, text),), get_pdk("generic"), FLOW,
                with_ppa=with_ppa)


def _equivalence(tmp_path: Path, name: str, candidate_text: str) -> EquivalenceResult:
    """designs/`name`'s reference against `candidate_text`, by the equivalence stage alone."""
    design = load_design(DESIGNS_DIR / name)
    reference = [Path("reference") / f"{name}.v"]
    candidate = [Path("candidate") / f"{name}.v"]
    _write(tmp_path / "reference", name, _rtl(name))
    _write(tmp_path / "candidate", name, candidate_text)
    runner = ToolRunner(tmp_path)
    return check_equivalence(runner, design, read_interface(runner, reference, design.top), reference, candidate, [])


# --- the same tokens -------------------------------------------------------------------------

def test_tokens_ignore_comments_layout_and_line_directives_only() -> None:
    reference = '`line 1 "reference/m.v" 0\nmodule m(input a, output y); assign y = a; endmodule\n'
    candidate = '`line 1 "candidate/m.v" 0\nmodule m (input a,\n  output y) ;\n/* c */ assign y = a ;//\nendmodule'
    assert same_tokens(reference, candidate) == 16
    assert same_tokens(reference, candidate.replace("= a", "= ~a")) is None
    assert same_tokens(reference, candidate.replace("assign y", "assign  y").replace("a ;", "a;")) == 16
    assert same_tokens("", "") is None  # nothing to compare is not an identity


def test_a_space_between_two_operator_characters_is_a_difference() -> None:
    """The lexer splits `&&` into two `&` tokens, so `a & &b` (AND with a reduction-AND) has the
    tokens of `a && b`; it once passed as the reference itself. Layout around an operator
    stays layout, and so does a comment inside one's operands."""
    reference = "module m(input [3:0] a, input b, output y); assign y = b && a == 4'd3; endmodule"
    assert same_tokens(reference, reference.replace("b && a", "b & &a")) is None
    assert same_tokens(reference, reference.replace("b && a", "b&&\n /* c */ a")) == 30
    assert normalise(reference) != normalise(reference.replace("b && a", "b & &a"))
    assert normalise(reference) == normalise(reference.replace("b && a", "b&&a"))
    assert normalise("a <= b || c") == "a <= b || c" and normalise("a < = b | | c") == "a < = b | | c"


def test_the_reference_laid_out_again_is_proven_at_once_with_its_ppa(tmp_path: Path) -> None:
    """mult8, whose equivalence proof is the slow part of its gate, re-commented and re-indented."""
    design, pdk = load_design(DESIGNS_DIR / "mult8"), get_pdk("generic")
    reference_ppa = reference_ppa_of(evaluate(design, pdk, FLOW.evaluation), design)
    candidate = _write(tmp_path, "mult8", _relaid(_rtl("mult8")))
    verdict = gate(design, (candidate,), pdk, FLOW, reference_ppa=reference_ppa)
    assert verdict.accepted and verdict.stage == "done" and verdict.level == "proven", verdict.reason
    assert IDENTICAL_SOURCE.fullmatch(verdict.reason), verdict.reason
    assert verdict.level_reason.startswith("identical source: ")
    assert verdict.ppa == reference_ppa and verdict.ppa_ratio == 1.0  # no synthesis ran
    assert verdict.testbench_passed is None and verdict.differential_cycles == 0  # nor any simulation
    assert verdict.wall_s < FAST_S, verdict.wall_s


def test_an_imported_divider_is_proven_at_once(rtllm_source: Path, tmp_path: Path) -> None:
    """RTLLM's radix2_div (a sequential divider), imported alone, as its own candidate."""
    if not (rtllm_source / "radix2_div").is_dir():
        pytest.skip(f"RTLLM radix2_div not found in {rtllm_source}")
    imported = import_design(rtllm_source / "radix2_div", tmp_path)
    assert imported.usable, imported.reason
    design = load_design(imported.path)
    verdict = gate(design, design.rtl, get_pdk("generic"), FLOW, with_ppa=False)
    assert verdict.accepted and verdict.level == "proven" and IDENTICAL_SOURCE.fullmatch(verdict.reason)
    assert verdict.wall_s < FAST_S, verdict.wall_s


# --- the same netlist ------------------------------------------------------------------------

def test_a_renamed_internal_wire_is_proven_by_the_identical_netlist(tmp_path: Path) -> None:
    renamed = re.sub(r"\bsum\b", "total", _rtl("alu8"))
    verdict = _judge("alu8", renamed, tmp_path)
    assert verdict.accepted and verdict.level == "proven", verdict.reason
    assert verdict.reason.startswith(f"proven equivalent by {IDENTICAL_NETLIST}: both elaborate to the same netlist")
    assert verdict.level_reason.startswith(f"{IDENTICAL_NETLIST}: ")
    assert verdict.differential_cycles > 0  # only the proofs were skipped


def test_renamed_registers_of_a_state_machine_are_the_same_netlist(tmp_path: Path) -> None:
    """Names that sort the other way round (state, next -> current_state, next_state)."""
    renamed = re.sub(r"\bnext\b", "next_state", re.sub(r"\bstate\b", "current_state", _rtl("seq_detect")))
    result = _equivalence(tmp_path, "seq_detect", renamed)
    assert result.level == "proven" and result.method == IDENTICAL_NETLIST, result.reason


@pytest.mark.parametrize("edit", [
    lambda text: text.replace("OP_AND: y = a & b;", "OP_AND: y = a | b;"),  # one operator
    lambda text: text.replace("{1'b0, a} - {1'b0, b}", "{1'b0, b} - {1'b0, a}"),  # ports swapped: names matter
    lambda text: text.replace("{1'b0, a} + {1'b0, b}", "@@").replace("{1'b0, a} - {1'b0, b}", "{1'b0, a} + {1'b0, b}")
    .replace("@@", "{1'b0, a} - {1'b0, b}"),  # two internal wires' definitions swapped, their uses kept
], ids=["operator", "ports-swapped", "definitions-swapped"])
def test_a_different_function_is_never_the_same_netlist(tmp_path: Path, edit) -> None:
    result = _equivalence(tmp_path, "alu8", edit(_rtl("alu8")))
    assert result.level == "failed" and result.method != IDENTICAL_NETLIST, result.reason


def test_a_different_function_is_rejected_as_before(tmp_path: Path) -> None:
    verdict = _judge("alu8", _rtl("alu8").replace("OP_AND: y = a & b;", "OP_AND: y = a | b;"), tmp_path)
    assert not verdict.accepted and verdict.stage in ("testbench", "differential"), verdict.reason
    assert "identical" not in verdict.reason and "token for token" not in verdict.reason


def test_netlists_of_other_modules_or_more_than_one_are_never_the_same() -> None:
    netlist = "autoidx 3\nattribute \\src \"a.v:1\"\nmodule \\m\n  wire input 1 \\a\n  cell $not \\x\n  end\nend\n"
    assert same_netlist(netlist, netlist.replace('"a.v:1"', '"b.v:9"').replace("\\m\n", "\\hdlrl_ref_m\n")) == 1
    assert same_netlist(netlist, netlist.replace("$not", "$neg")) is None
    assert same_netlist(netlist + netlist, netlist + netlist) is None


# --- the interface lock still comes first ----------------------------------------------------

def test_a_changed_header_parameter_default_is_rejected_at_the_interface(tmp_path: Path) -> None:
    """tick_div10 whose reference declares its limit as header parameter LAST; the candidate is the
    reference but for that default."""
    folder = tmp_path / "tick_div10"
    shutil.copytree(DESIGNS_DIR / "tick_div10", folder)
    with_header = _rtl("tick_div10").replace("module tick_div10 (", "module tick_div10 #(parameter LAST = 32'd9) (")
    _write(folder / "rtl", "tick_div10", with_header.replace("count == 32'd9", "count == LAST"))
    reference = (folder / "rtl" / "tick_div10.v").read_text()
    candidate = _write(tmp_path / "candidate", "tick_div10", reference.replace("LAST = 32'd9", "LAST = 32'd10"))
    verdict = gate(load_design(folder), (candidate,), get_pdk("generic"), FLOW, with_ppa=False)
    assert not verdict.accepted and verdict.stage == "interface", verdict.reason
    assert "LAST" in verdict.reason
