"""Shifter architectures (`shifter_architecture`): every generated shifter is proven equal to
the plain operator by Yosys SAT (zero once `s` reaches the width, `s` narrower or wider than
the width needs), rewritten designs are proven equal to the originals, the generated modules
are lint-clean, and shifts the rule cannot rebuild are not offered.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hdlrl.hdl.rewrites import RULES, applicable_rewrites, apply_everywhere
from hdlrl.hdl.rewrites import shifters
from hdlrl.hdl.rewrites.shifters import ARCHITECTURES, module_name, shifter_module
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from conftest import proven_equal
from test_rewrites import parsed

RULE = "shifter_architecture"

# (width, bits of s): s exactly as wide as needed; a non-power-of-two width with s reaching
# twice the width (one clearing stage); s too narrow to shift everything out
SHAPES = [(16, 4), (13, 5), (12, 2)]

COMBINATIONAL = """
module shifts(input [7:0] a, input [4:0] s, input [1:0] n, output [11:0] wide, output [4:0] narrow,
              output [7:0] back, output reg [7:0] y, output reg [7:0] z);
  assign wide = a << s;  // built at the target's 12 bits: a's top bits are shifted up, not out
  assign narrow = a >> n;  // truncated to the target
  assign back = a >> s;
  always @* begin
    y = a >> s;  // the same shifter as for back, instantiated again
    z = {a[3:0], n, 2'b01} << n;
  end
endmodule
"""

NOT_SITES = {
    "constant amount": "assign y = a << 3;",
    "parameter amount": "assign y = a >> K;",
    "signed value": "assign y = v << s;",
    "$signed value": "assign y = $signed(a) >> s;",
    "signed amount": "assign y = a << t;",
    "arithmetic shift": "assign y = a >>> s;",
    "narrow value": "assign y = n << s;",
    "wide value": "assign w = x << s;",
    "context-sized value": "assign y = (a + b) << s;",
    "operand of another operator": "assign y = (a << s) | b;",
    "unused result": "always @(posedge clk) unread <= a << s;",
    "loop": "always @* begin r = 8'd0; for (i = 0; i < 2; i = i + 1) r = a << s; end",
    "explicit sensitivity list": "always @(a or s) r = a << s;",
    "initial block": "initial r = a << s;",
}


def site_free(statement: str, module: str = "keep_out") -> str:
    return f"""
module {module}(input clk, input [7:0] a, input [7:0] b, input [2:0] s, input signed [7:0] v,
                input signed [2:0] t, input [2:0] n, input [64:0] x, output [7:0] y, output [64:0] w);
  parameter K = 3'd2;
  reg [7:0] unread, r;
  integer i;
  {statement}
  assign y = r;
endmodule
"""


def reference(direction: str, width: int, amount_width: int) -> str:
    operator = "<<" if direction == "l" else ">>"
    return (f"module reference(input [{width - 1}:0] a, input [{amount_width - 1}:0] s, output [{width - 1}:0] y);\n"
            f"  assign y = a {operator} s;\nendmodule\n")


def shifter_proven(architecture: str, direction: str, width: int, amount_width: int, folder: Path) -> bool:
    module = unparse(shifter_module(architecture, direction, width, amount_width))
    return proven_equal(reference(direction, width, amount_width), "reference", module,
                        module_name(architecture, direction, width, amount_width), folder)


@pytest.mark.parametrize("direction", ["l", "r"])
@pytest.mark.parametrize("width, amount_width", SHAPES)
@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_generated_shifter_computes_the_shift(architecture: str, width: int, amount_width: int, direction: str,
                                              tmp_path: Path) -> None:
    assert shifter_proven(architecture, direction, width, amount_width, tmp_path)


def test_the_proof_catches_a_missing_clearing_stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the stage for the bits of `s` worth the width or more, 13 bits shifted by 16
    to 31 are not zero: the proof must fail, or the proofs above prove nothing."""
    complete = shifters.log_stages
    monkeypatch.setattr(shifters, "log_stages", lambda width, amount_width: complete(width, amount_width)[:-1])
    assert not shifter_proven("log", "l", 13, 5, tmp_path)


def test_stages_are_one_per_useful_bit_then_one_clearing_stage() -> None:
    text = unparse(shifter_module("log_reversed", "l", 13, 5))
    assert module_name("log", "l", 16, 4) == "rewrite_shift_log_l16s4"
    assert text.count("(* keep *)") == 5
    assert text.index("(s[4])? 13'd0") < text.index("(s[3])?") < text.index("(s[0])?"), text
    assert "default: y = 12'd0;" in unparse(shifter_module("mux", "r", 12, 5))
    assert "default" not in unparse(shifter_module("mux", "r", 16, 4)), "every amount is a case already"


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_generated_shifters_are_lint_clean(architecture: str, tmp_path: Path) -> None:
    for direction in "lr":
        name = module_name(architecture, direction, 13, 5)
        source = tmp_path / f"{name}.v"
        source.write_text(unparse(shifter_module(architecture, direction, 13, 5)))
        lint = subprocess.run(["verilator", "--lint-only", "-Wall", str(source)], capture_output=True, text=True)
        assert lint.returncode == 0, lint.stderr


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_rewritten_design_is_proven_equal_to_the_original(architecture: str, tmp_path: Path) -> None:
    assert {site.option for site in applicable_rewrites(parsed(COMBINATIONAL), [RULE])} == set(ARCHITECTURES)
    rewritten, done = apply_everywhere("snippet.v", parse_verilog(COMBINATIONAL), RULE, architecture)
    text = unparse(rewritten)
    assert len(done) == 5 and "<<" not in text and ">>" not in text, text
    assert text.count(f"module {module_name(architecture, 'r', 8, 5)}\n") == 1, "the same shifter is defined once"
    assert f"module {module_name(architecture, 'l', 12, 5)}\n" in text
    assert proven_equal(COMBINATIONAL, "shifts", text, "shifts", tmp_path)


@pytest.mark.parametrize("reason", sorted(NOT_SITES))
def test_shifts_the_rule_cannot_rebuild_are_not_sites(reason: str) -> None:
    assert applicable_rewrites(parsed(site_free(NOT_SITES[reason])), [RULE]) == [], reason


def test_the_site_free_template_has_a_site_with_plain_operands() -> None:
    """The cases above fail for their own reason, not for something in the template."""
    sites = applicable_rewrites(parsed(site_free("always @* r = a << s;")), [RULE])
    assert [site.option for site in sites] == list(ARCHITECTURES) == list(RULES[RULE].options)


def test_generated_modules_are_not_rewritten_again() -> None:
    assert applicable_rewrites(parsed(site_free("always @* r = a << s;", "rewrite_shift")), [RULE]) == []
