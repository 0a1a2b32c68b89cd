"""Multiplier architectures (`multiplier_architecture`): every generated multiplier computes
the product (exhaustively, at equal, unequal and truncated widths), a rewritten design behaves
like the original under simulation, and the rule leaves alone products it cannot rebuild.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hdlrl.hdl.rewrites import applicable_rewrites, apply_everywhere
from hdlrl.hdl.rewrites.multipliers import ARCHITECTURES, module_name, multiplier
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from test_rewrites import assert_same_behaviour, parsed

RULE = "multiplier_architecture"

# (width of a, width of b, product width): full products, unequal operands, a truncated product
SHAPES = [(4, 4, 8), (8, 8, 16), (7, 5, 12), (6, 8, 9)]

COMBINATIONAL = """
module products(input [7:0] a, input [7:0] b, input [4:0] c, output [15:0] p, output [11:0] low,
                output [15:0] again, output [15:0] wide);
  assign p = a * b;
  assign low = c * a;  // unequal operands, truncated result
  assign again = b * a;  // the same 8x8 module, instantiated again
  assign wide = {a[3:0], c} * c;  // zero-extended: a 9x5 product in 16 bits
endmodule
"""

CLOCKED = """
module mac(input clk, input rst, input [5:0] a, input [9:0] b, output reg [15:0] p, output reg [19:0] acc);
  always @(posedge clk)
    if (rst) begin p <= 0; acc <= 0; end
    else begin p <= a * b; acc <= acc + p; end
endmodule
"""

NOT_SITES = {
    "constant": "assign p = a * 8'd3;",
    "parameter": "assign p = a * K;",
    "signed signal": "assign p = s * b;",
    "$signed": "assign p = $signed(a) * b;",
    "context-sized operand": "assign p = a * (b + 8'd1);",  # evaluated at 16 bits, not 8
    "narrow operand": "assign p = a * n;",
    "wide operand": "assign p = a * w;",
    "unused result": "always @(posedge clk) unread <= a * b;",
    "operand of another operator": "assign p = a * b + 16'd1;",
}


def site_free(statement: str, module: str = "keep_out") -> str:
    return f"""
module {module}(input clk, input [7:0] a, input [7:0] b, input signed [7:0] s, input [2:0] n, input [39:0] w,
                output [15:0] p);
  parameter K = 8'd5;
  reg [15:0] unread;
  {statement}
endmodule
"""


def simulate(text: str, folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim.v").write_text(text)
    build = subprocess.run(["iverilog", "-g2012", "-o", str(folder / "sim.vvp"), str(folder / "sim.v")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return subprocess.run(["vvp", "-n", str(folder / "sim.vvp")], capture_output=True, text=True, timeout=60).stdout


def exhaustive_testbench(name: str, width_a: int, width_b: int, width: int) -> str:
    """Every operand pair, each result compared with the low `width` bits of `a * b`."""
    return f"""
module tb;
  reg [{width_a - 1}:0] a;
  reg [{width_b - 1}:0] b;
  wire [{width - 1}:0] p;
  reg [{width_a + width_b - 1}:0] expected;
  integer pair, errors;
  {name} dut(.a(a), .b(b), .p(p));
  initial begin
    errors = 0;
    for (pair = 0; pair < {1 << (width_a + width_b)}; pair = pair + 1) begin
      {{a, b}} = pair;
      expected = a * b;
      #1 if (p !== expected[{width - 1}:0]) begin
        if (errors < 4) $display("wrong: %0d * %0d gave %0d", a, b, p);
        errors = errors + 1;
      end
    end
    $display("errors %0d", errors);
    $finish;
  end
endmodule
"""


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("width_a, width_b, width", SHAPES)
def test_generated_multiplier_computes_the_product(architecture: str, width_a: int, width_b: int, width: int,
                                                   tmp_path: Path) -> None:
    name = module_name(architecture, width_a, width_b, width)
    module = unparse(multiplier(architecture, width_a, width_b, width))
    assert f"module {name}" in module and "(* keep *)" in module
    output = simulate(module + exhaustive_testbench(name, width_a, width_b, width), tmp_path)
    assert "errors 0" in output, output


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("design, top", [(COMBINATIONAL, "products"), (CLOCKED, "mac")])
def test_rewritten_design_behaves_like_the_original(architecture: str, design: str, top: str,
                                                    tmp_path: Path) -> None:
    offered = {site.option for site in applicable_rewrites(parsed(design), [RULE])}
    assert offered == set(ARCHITECTURES)
    rewritten, done = apply_everywhere("snippet.v", parse_verilog(design), RULE, architecture)
    text = unparse(rewritten)
    assert len(done) == design.count(" * ") and " * " not in text, text
    assert_same_behaviour(design, text, top, tmp_path)


def test_the_same_multiplier_is_defined_once() -> None:
    rewritten, _ = apply_everywhere("snippet.v", parse_verilog(COMBINATIONAL), RULE, "dadda")
    text = unparse(rewritten)
    assert text.count("module rewrite_dadda_mul8x8\n") == 1 and text.count("rewrite_dadda_mul8x8\n") == 3, text
    assert "module rewrite_dadda_mul5x8_low12" in text and "{ 2'd0, rewrite_product" in text, text


@pytest.mark.parametrize("reason", sorted(NOT_SITES))
def test_products_the_rule_cannot_rebuild_are_not_sites(reason: str) -> None:
    assert applicable_rewrites(parsed(site_free(NOT_SITES[reason])), [RULE]) == [], reason


def test_the_site_free_template_has_a_site_with_plain_operands() -> None:
    """The cases above fail for their own reason, not for something in the template."""
    assert len(applicable_rewrites(parsed(site_free("assign p = a * b;")), [RULE])) == len(ARCHITECTURES)


def test_generated_modules_are_not_rewritten_again() -> None:
    assert applicable_rewrites(parsed(site_free("assign p = a * b;", "rewrite_mul")), [RULE]) == []
