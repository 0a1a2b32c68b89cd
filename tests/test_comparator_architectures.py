"""Comparator architectures (`comparator_architecture`): every generated comparator is proven
equal to the plain operator by Yosys SAT for each of `<`, `<=`, `>`, `>=`, rewritten designs
(operands of unequal widths, comparisons in assignments and conditions) are proven equal to
the originals, the generated modules are lint-clean, and comparisons the rule cannot rebuild
are not offered.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hdlrl.hdl.rewrites import RULES, applicable_rewrites, apply_everywhere
from hdlrl.hdl.rewrites.comparators import ARCHITECTURES, OPERATORS, comparator_module, module_name
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from conftest import proven_equal
from test_rewrites import parsed

RULE = "comparator_architecture"
SYMBOLS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}

COMBINATIONAL = """
module compares(input [3:0] a, input [5:0] b, input [3:0] c, output lt, output le, output again,
                output reg gt, output reg ge, output reg [3:0] smaller);
  assign lt = a < b;  // a is zero-extended to six bits
  assign le = a <= c;
  assign again = c < a;
  always @* begin
    gt = b > a;
    ge = c >= a;
    if (a < c) smaller = a;  // the same comparator as for again, instantiated again
    else smaller = c;
  end
endmodule
"""

NOT_SITES = {
    "constant operand": "assign y = a < 8'd3;",
    "parameter operand": "assign y = K >= a;",
    "signed operand": "assign y = v < a;",
    "$signed operand": "assign y = $signed(a) > b;",
    "equality": "assign y = a == b;",
    "narrow operand": "assign y = a <= n;",
    "wide operand": "assign y = a > x;",
    "context-sized operand": "assign y = a < b + 8'd1;",
    "unused result": "always @(posedge clk) unread <= a < b;",
    "loop": "always @* begin r = 1'b0; for (i = 0; i < 2; i = i + 1) r = a < b; end",
    "blocking variable": "always @* begin tmp = a ^ b; r = tmp < b; end",
    "explicit sensitivity list": "always @(a or b) if (a < b) r = 1'b1; else r = 1'b0;",
    "initial block": "initial r = a < b;",
    "function": "function less; input [7:0] p, q; less = p < q; endfunction\n  assign y = less(a, b);",
}


def site_free(statement: str, module: str = "keep_out") -> str:
    return f"""
module {module}(input clk, input [7:0] a, input [7:0] b, input signed [7:0] v, input [2:0] n, input [64:0] x,
                output y, output z);
  parameter K = 8'd5;
  reg unread, r;
  reg [7:0] tmp;
  integer i;
  {statement}
  assign z = r;
endmodule
"""


def reference(operator: str, width: int) -> str:
    return (f"module reference(input [{width - 1}:0] a, input [{width - 1}:0] b, output result);\n"
            f"  assign result = a {SYMBOLS[operator]} b;\nendmodule\n")


def comparator_proven(architecture: str, operator: str, width: int, folder: Path, claimed: str = "") -> bool:
    """The generated module for `operator` (or `claimed` instead of it) equals the reference."""
    module = unparse(comparator_module(architecture, claimed or operator, width))
    return proven_equal(reference(operator, width), "reference", module,
                        module_name(architecture, claimed or operator, width), folder)


@pytest.mark.parametrize("operator", sorted(SYMBOLS))
@pytest.mark.parametrize("width", [8, 13])
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_generated_comparator_computes_the_comparison(architecture: str, width: int, operator: str,
                                                      tmp_path: Path) -> None:
    assert comparator_proven(architecture, operator, width, tmp_path)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_the_proof_catches_a_comparator_wrong_on_equal_operands(architecture: str, tmp_path: Path) -> None:
    """The `<=` module differs from `<` only where a == b: the proof must see it, or the
    proofs above prove nothing."""
    assert not comparator_proven(architecture, "lt", 13, tmp_path, claimed="le")


def test_the_tree_has_log_depth_and_builds_no_unread_equal() -> None:
    text = unparse(comparator_module("tree", "lt", 13))
    assert module_name("tree", "lt", 8) == "rewrite_cmp_tree_lt8"
    assert "wire lt_4_0;" in text and "lt_5_" not in text, "13 bits take ceil(log2 13) = 4 levels"
    assert "eq_1_0" not in text and "eq_bit[0]" not in text, "the lowest group's equal is never read"


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_generated_comparators_are_lint_clean(architecture: str, tmp_path: Path) -> None:
    for operator in SYMBOLS:
        name = module_name(architecture, operator, 13)
        source = tmp_path / f"{name}.v"
        source.write_text(unparse(comparator_module(architecture, operator, 13)))
        lint = subprocess.run(["verilator", "--lint-only", "-Wall", str(source)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_rewritten_design_is_proven_equal_to_the_original(architecture: str, tmp_path: Path) -> None:
    assert {site.option for site in applicable_rewrites(parsed(COMBINATIONAL), [RULE])} == set(ARCHITECTURES)
    rewritten, done = apply_everywhere("snippet.v", parse_verilog(COMBINATIONAL), RULE, architecture)
    text = unparse(rewritten)
    assert len(done) == 6 and not any(f" {symbol} " in text for symbol in SYMBOLS.values()), text
    assert text.count(f"module {module_name(architecture, 'lt', 4)}\n") == 1, "the same comparator is defined once"
    assert f"module {module_name(architecture, 'lt', 6)}\n" in text and "{ 2'd0, a }" in text, text
    assert proven_equal(COMBINATIONAL, "compares", text, "compares", tmp_path)


@pytest.mark.parametrize("reason", sorted(NOT_SITES))
def test_comparisons_the_rule_cannot_rebuild_are_not_sites(reason: str) -> None:
    assert applicable_rewrites(parsed(site_free(NOT_SITES[reason])), [RULE]) == [], reason


def test_the_site_free_template_has_a_site_with_plain_operands() -> None:
    """The cases above fail for their own reason, not for something in the template."""
    for operator in OPERATORS.values():
        sites = applicable_rewrites(parsed(site_free(f"assign y = a {SYMBOLS[operator]} b;")), [RULE])
        assert [site.option for site in sites] == list(ARCHITECTURES) == list(RULES[RULE].options), operator


def test_generated_modules_are_not_rewritten_again() -> None:
    assert applicable_rewrites(parsed(site_free("assign y = a < b;", "rewrite_cmp")), [RULE]) == []
