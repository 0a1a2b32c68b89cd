"""Architecture rewrites: each rule finds its site, the result compiles and behaves like the
original (random-stimulus simulation of both), rules stay away from what they must not touch,
the project designs still pass their testbenches, and the winners win on RTLLM.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.hdl.design_files import parse_rtl, write_mutant, write_sources
from hdlrl.hdl.rewrites import RULES, applicable_rewrites, apply_everywhere, apply_rewrite
from hdlrl.hdl.rewrites.scope import Scope, modules
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from hdlrl.pdk import get_pdk

FAMILIES = {"arithmetic", "sharing", "widths", "muxes", "fsm", "retiming"}

FULL_ADDER_CHAIN = """
module fa(input x, input y, input ci, output s, output co);
  assign s = x ^ y ^ ci;
  assign co = (x & y) | (ci & (x ^ y));
endmodule
module add4(input [3:0] a, input [3:0] b, input cin, output [3:0] sum, output cout);
  wire c1, c2, c3;
  fa f2(.x(a[2]), .y(b[2]), .ci(c2), .s(sum[2]), .co(c3));
  fa f0(.x(a[0]), .y(b[0]), .ci(cin), .s(sum[0]), .co(c1));
  fa f1(.x(b[1]), .y(a[1]), .ci(c1), .s(sum[1]), .co(c2));
  fa f3(.x(a[3]), .y(b[3]), .ci(c3), .s(sum[3]), .co(cout));
endmodule
"""

# rule -> (snippet, top, text the rewrite must contain)
SNIPPETS = {
    "adder_to_operator": (FULL_ADDER_CHAIN, "add4", "assign { cout, sum } = a + b + cin;"),
    "prefix_adder": ("""
module sub16(input [15:0] a, input [15:0] b, output [17:0] d, output [16:0] s);
  assign d = a - b;
  assign s = a + b;
endmodule
""", "sub16", "(* keep *)"),
    "multiplier_architecture": ("""
module mul8(input clk, input [7:0] a, input [7:0] b, output [15:0] p, output reg [11:0] q);
  assign p = a * b;
  always @(posedge clk) q <= a * b;
endmodule
""", "mul8", "module rewrite_array_mul8x8"),
    "shifter_architecture": ("""
module barrel(input clk, input [7:0] a, input [2:0] s, output [7:0] left, output reg [7:0] right);
  assign left = a << s;
  always @(posedge clk) right <= a >> s;
endmodule
""", "barrel", "module rewrite_shift_log_l8s3"),
    "comparator_architecture": ("""
module compare(input clk, input [3:0] a, input [4:0] b, output lt, output reg ge);
  assign lt = a < b;
  always @(posedge clk)
    if (a >= b) ge <= 1'b1;
    else ge <= 1'b0;
endmodule
""", "compare", "module rewrite_cmp_subtract_lt5"),
    "borrow_to_comparison": ("""
module cmp4(input [3:0] a, input [3:0] b, output gt, output lt, output eq);
  wire [3:0] diff;
  wire borrow;
  assign {borrow, diff} = a - b;
  assign gt = ~borrow && diff != 4'b0000;
  assign lt = borrow;
  assign eq = diff == 0;
endmodule
""", "cmp4", "a < b"),
    "gated_accumulate": ("""
module mul4(input [3:0] a, input [3:0] b, output reg [7:0] p);
  integer i;
  always @* begin
    p = 8'd0;
    for (i = 0; i < 4; i = i + 1)
      if (b[i]) p = p + (a << i);
  end
endmodule
""", "mul4", "? a << i : 4'd0"),
    "shared_operator": ("""
module addsub(input clk, input rst, input up, input s, input [7:0] a, input [7:0] b, input [7:0] c,
              output [7:0] y, output reg [7:0] q);
  assign y = s ? a + b : c + b;
  always @(posedge clk)
    if (rst) q <= 8'd0;
    else if (up) q <= q + 8'd3;
    else q <= q - 8'd5;
endmodule
""", "addsub", "((s)? a : c) + b"),
    "compare_offset": ("""
module timer(input clk, input rst, input [7:0] period, output reg tick);
  reg [7:0] count;
  always @(posedge clk)
    if (rst) begin count <= 0; tick <= 0; end
    else if (count == period - 1) begin count <= 0; tick <= ~tick; end
    else count <= count + 1;
endmodule
""", "timer", "count + 1 == period"),
    "counter_width": ("""
module divide_by_ten(input clk, input rst_n, output tick);
  reg [7:0] cnt;
  always @(posedge clk or negedge rst_n)
    if (!rst_n) cnt <= 8'd0;
    else if (cnt == 8'd9) cnt <= 8'd0;
    else cnt <= cnt + 1'b1;
  assign tick = (cnt == 8'd9) ^ cnt[7] ^ &cnt;
endmodule
""", "divide_by_ten", "reg [3:0] cnt;"),
    "index_arithmetic_width": ("""
module pick(input clk, input rst, input [15:0] v, output reg y);
  reg [4:0] i;
  always @(posedge clk)
    if (rst) begin i <= 0; y <= 0; end
    else begin
      i <= i + 1;
      if (i > 5'd0 && i < 5'd17) y <= v[i - 1];
    end
endmodule
""", "pick", "v[i[3:0] - 4'd1]"),
    "redundant_wrap": ("""
module wrap(input clk, input rst, input up, output reg [3:0] q);
  always @(posedge clk)
    if (rst) q <= 4'd0;
    else if (up) begin
      if (q == 4'hF) q <= 4'd0; else q <= q + 1;
    end else begin
      if (q == 4'h0) q <= 4'hF; else q <= q - 1;
    end
endmodule
""", "wrap", "q <= q + 1;"),
    "priority_chain_to_case": ("""
module select(input [1:0] s, input [3:0] a, input [3:0] b, input [3:0] c, output reg [3:0] y);
  always @* begin
    if (s == 2'd2) y = a;
    else if (s == 2'd0) y = b;
    else if (2'd1 == s) y = c;
    else y = 4'd0;
  end
endmodule
""", "select", "case(s)"),
    "hoisted_assignment": ("""
module magnitude(input [7:0] a, input [7:0] b, output reg [7:0] d, output reg zero);
  always @* begin
    if (a > b) begin
      d = a - b;
      zero = 1'b0;
    end else begin
      d = b - a;
      zero = d == 8'd0;
    end
  end
endmodule
""", "magnitude", "d = (a > b)? a - b : b - a;"),
    "state_encoding": ("""
module detect(input clk, input rst, input x, output found);
  parameter IDLE = 2'b00, ONE = 2'b11, TWO = 2'b10;
  reg [1:0] state, next;
  always @(posedge clk) if (rst) state <= IDLE; else state <= next;
  always @* case (state)
    IDLE: next = x ? ONE : IDLE;
    ONE: next = x ? TWO : IDLE;
    TWO: next = x ? TWO : IDLE;
    default: next = IDLE;
  endcase
  assign found = state == TWO && !x;
endmodule
""", "detect", "localparam"),
    "register_sum": ("""
module delayed_add(input clk, input rst, input [7:0] a, input [7:0] b, output reg [8:0] s);
  reg [7:0] a_d, b_d;
  always @(posedge clk)
    if (rst) begin a_d <= 0; b_d <= 0; s <= 0; end
    else begin a_d <= a; b_d <= b; s <= a_d + b_d; end
endmodule
""", "delayed_add", "reg [8:0] a_d_plus_b_d;"),
}

# Code each rule must leave alone: the reason is the comment.
NOT_SITES = {
    "adder_to_operator": FULL_ADDER_CHAIN.replace("assign s = x ^ y ^ ci;", "assign s = x & y & ci;"),  # no sum
    "prefix_adder": """
module dead(input clk, input [15:0] a, output [15:0] y);
  reg [15:0] acc;  // never read: a kept tree would survive as dead logic
  always @(posedge clk) acc <= acc + a;
  assign y = a + 16'd1;  // constant operand
endmodule
""",
    "counter_width": """
module free(input clk, input rst, input [7:0] d, input load, output [7:0] q, output t);
  reg [7:0] cnt, loaded;
  always @(posedge clk)
    if (rst) begin cnt <= 0; loaded <= 0; end
    else begin
      cnt <= cnt + 1;  // free-running: uses every bit
      if (load) loaded <= d; else if (loaded != 8'd20) loaded <= loaded + 1;  // loaded from an input
    end
  assign q = cnt;
  assign t = loaded[0];
endmodule
""",
    "redundant_wrap": """
module nowrap(input clk, output reg [3:0] q);
  always @(posedge clk) if (q == 4'hE) q <= 4'd0; else q <= q + 1;  // 14 + 1 is not 0
endmodule
""",
    "register_sum": """
module alone(input clk, input [7:0] a, input [7:0] b, output [8:0] s, output [7:0] x);
  reg [7:0] a_d, b_d;
  always @(posedge clk) begin a_d <= a; b_d <= b; end
  assign s = a_d + b_d;
  assign x = a_d;  // read on its own too
endmodule
""",
    "shared_operator": """
module same(input s, input [7:0] a, input [7:0] b, output [7:0] y);
  assign y = s ? a + b : a + b;
endmodule
""",
    "state_encoding": """
module exposed(input clk, input rst, output [1:0] code);
  parameter A = 2'd0, B = 2'd1, C = 2'd2;
  reg [1:0] state;
  always @(posedge clk) if (rst) state <= A; else case (state) A: state <= B; B: state <= C; default: state <= A; endcase
  assign code = state;  // the code itself is an output
endmodule
""",
}


def parsed(text: str) -> dict:
    return {"snippet.v": parse_verilog(text)}


def compile_ok(text: str, tmp_path: Path) -> None:
    source = tmp_path / "candidate.v"
    source.write_text(text)
    run = subprocess.run(["iverilog", "-g2012", "-o", str(tmp_path / "candidate.vvp"), str(source)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def trace(text: str, top: str, folder: Path, cycles: int = 300) -> list[str]:
    """Outputs of `top` cycle by cycle under seeded random inputs (reset held for two cycles)."""
    module = next(module for module in modules(parse_verilog(text).tree) if module.name == top)
    scope = Scope(module)
    ports = {name: signal for name, signal in scope.signals.items() if signal.port}
    inputs = [name for name, signal in ports.items() if signal.port == "input" and name != "clk"]
    outputs = [name for name, signal in ports.items() if signal.port == "output"]
    declarations = [f"reg [{ports[name].width - 1}:0] {name};" for name in inputs]
    declarations += [f"wire [{ports[name].width - 1}:0] {name};" for name in outputs]
    drive = [f"{name} = {'cycle >= 2' if name == 'rst_n' else 'cycle < 2' if name == 'rst' else '$random(seed)'};"
             for name in inputs]
    connections = ", ".join(f".{name}({name})" for name in ["clk"] * ("clk" in ports) + inputs + outputs)
    testbench = "\n".join([
        "module tb;", "reg clk = 0;", "integer cycle, seed;", *declarations, f"{top} dut({connections});",
        "initial begin", "seed = 7;", f"for (cycle = 0; cycle < {cycles}; cycle = cycle + 1) begin", *drive,
        "#1 $display(\"%0d " + " ".join("%b" for _ in outputs) + "\", cycle, " + ", ".join(outputs) + ");",
        "clk = 1; #1 clk = 0;", "end", "$finish;", "end", "endmodule", ""])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "design.v").write_text(text)
    (folder / "tb.v").write_text(testbench)
    build = subprocess.run(["iverilog", "-g2012", "-o", str(folder / "sim.vvp"), str(folder / "design.v"),
                            str(folder / "tb.v")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["vvp", "-n", str(folder / "sim.vvp")], capture_output=True, text=True, timeout=60)
    return [line for line in run.stdout.splitlines() if re.match(r"^\d+ ", line)]


def assert_same_behaviour(original: str, rewritten: str, top: str, folder: Path) -> None:
    before, after = trace(original, top, folder / "before"), trace(rewritten, top, folder / "after")
    assert len(before) == len(after) > 0
    mismatch = next(((old, new) for old, new in zip(before, after) if old != new), None)
    assert mismatch is None, f"outputs differ: {mismatch[0]!r} vs {mismatch[1]!r}"


def test_registry_names_families_and_docstrings() -> None:
    assert set(SNIPPETS) == set(RULES)
    for name, rule in RULES.items():
        assert rule.name == name and rule.family in FAMILIES and rule.options
        assert rule.__doc__ and len(rule.__doc__.split()) > 20, f"{name}: say what hardware changes and when"


@pytest.mark.parametrize("rule", sorted(SNIPPETS))
def test_rule_finds_its_site_and_the_rewrite_compiles_and_behaves_alike(rule: str, tmp_path: Path) -> None:
    text, top, expected = SNIPPETS[rule]
    sources = parsed(text)
    sites = applicable_rewrites(sources, [rule])
    assert sites, f"{rule} found no site in its snippet"
    for number, site in enumerate(sites):
        assert site.option in RULES[site.rule].options
        rewrite = apply_rewrite(site)
        assert rewrite.file == "snippet.v" and rewrite.name.startswith(rule)
        compile_ok(rewrite.text, tmp_path)
        assert_same_behaviour(unparse(sources["snippet.v"]), rewrite.text, top, tmp_path / f"site{number}")
    everywhere, done = apply_everywhere("snippet.v", sources["snippet.v"], rule, sites[0].option)
    assert done and expected in unparse(everywhere), unparse(everywhere)
    assert unparse(sources["snippet.v"]) == unparse(parse_verilog(text)), "the rule edited its input"


def test_the_behaviour_check_catches_a_wrong_trim(tmp_path: Path) -> None:
    """A counter trimmed one bit too far must be caught, or the check above proves nothing."""
    text, top, _ = SNIPPETS["counter_width"]
    wrong = unparse(parse_verilog(text)).replace("reg [7:0] cnt;", "reg [2:0] cnt;")
    with pytest.raises(AssertionError, match="outputs differ"):
        assert_same_behaviour(text, wrong, top, tmp_path)


@pytest.mark.parametrize("rule", sorted(NOT_SITES))
def test_rule_leaves_alone_what_it_must_not_rewrite(rule: str) -> None:
    assert applicable_rewrites(parsed(NOT_SITES[rule]), [rule]) == []


def test_state_encoding_offers_each_encoding_that_changes_the_codes() -> None:
    options = [site.option for site in applicable_rewrites(parsed(SNIPPETS["state_encoding"][0]), ["state_encoding"])]
    assert options == ["binary", "gray", "one_hot"]
    one_hot, _ = apply_everywhere("snippet.v", parse_verilog(SNIPPETS["state_encoding"][0]), "state_encoding", "one_hot")
    printed = unparse(one_hot)
    assert "reg [2:0] state;" in printed and "case(1'b1)" in printed and "state[2]" in printed
    assert "parameter IDLE" in printed, "the original parameters are part of the interface and stay"


def test_counter_width_narrows_loads_and_keeps_reads_at_the_old_width() -> None:
    rewritten, _ = apply_everywhere("snippet.v", parse_verilog(SNIPPETS["counter_width"][0]), "counter_width")
    printed = unparse(rewritten)
    assert "cnt <= 4'd0;" in printed and "cnt <= cnt + 4'd1;" in printed
    assert "&{ 4'd0, cnt }" in printed.replace("& {", "&{"), "a reduction must still see all eight bits"
    assert "cnt[7]" not in printed and "1'b0" in printed, "a read of a trimmed bit is the constant 0"


def test_prefix_adder_keeps_the_borrow_above_the_difference() -> None:
    rewritten, done = apply_everywhere("snippet.v", parse_verilog(SNIPPETS["prefix_adder"][0]), "prefix_adder",
                                       "brent_kung")
    printed = unparse(rewritten)
    assert len(done) == 2
    assert "module rewrite_brent_kung_sub16" in printed and "module rewrite_brent_kung_add16" in printed
    assert re.search(r"\{ 2\{ !rewrite_sum\w*\[16\] \} \}, rewrite_sum\w*\[15:0\] \}", printed), printed


def test_prefix_adder_offers_no_operand_that_would_lose_its_carry() -> None:
    """In `s = x + y + z` (10-bit s, 8-bit operands) `x + y` is 10 bits wide: on an 8-bit port it
    would lose its carry. Only the sum of self-determined operands is a site."""
    three = "module sum3(input [7:0] x, y, z, output [9:0] s);\n  assign s = x + y + z;\nendmodule\n"
    assert not applicable_rewrites(parsed(three), ["prefix_adder"])
    two = "module sum2(input [7:0] x, y, output [9:0] s);\n  assign s = x + {1'b0, y};\nendmodule\n"
    assert applicable_rewrites(parsed(two), ["prefix_adder"])


def test_prefix_adder_stays_out_of_a_block_the_sum_could_not_wake() -> None:
    """`always @(a or b)` runs only when `a` or `b` changes: it would read the instance's output
    before the new sum arrives and not run again when it does. `@*` grows to include the wire."""
    def block(sensitivity: str) -> str:
        return (f"module late(input [7:0] a, b, output reg [8:0] s);\n  always @({sensitivity}) s = a + b;\n"
                "endmodule\n")

    assert not applicable_rewrites(parsed(block("a or b")), ["prefix_adder"])
    assert applicable_rewrites(parsed(block("*")), ["prefix_adder"])


# ---------------------------------------------------------------------------- project designs

PROJECT_SITES = ["updown_counter8", "mac8", "alu8", "traffic_light", "mult8", "pipe_add32", "sync_fifo"]


@pytest.mark.parametrize("name", PROJECT_SITES)
def test_rewritten_project_designs_still_pass_their_testbench(name: str, tmp_path: Path) -> None:
    """Every rule here is exact on reachable states, so the design's own testbench must pass.

    One option per place (rotating through the options from place to place): every architecture
    of an adder is proven on its own in test_adder_architectures."""
    design = load_design(DESIGNS_DIR / name)
    sites = applicable_rewrites(design)
    assert sites, f"{name}: no rewrite site (the rules or the design changed)"
    places: dict[tuple, list] = {}
    for site in sites:
        places.setdefault((site.rule, site.file, site.node_index), []).append(site)
    pdk, flow = get_pdk("generic"), load_flow()
    for number, options in enumerate(places.values()):
        site = options[number % len(options)]
        assert site.option in RULES[site.rule].options
        rewrite = apply_rewrite(site)
        paths = write_mutant(design, rewrite, tmp_path / f"rewrite_{number}")
        result = run_job(EvalJob(design.with_rtl(paths), pdk, flow, None, None, with_ppa=False))
        assert result.verified, f"{name} {rewrite.name} ({site.description}): {result.stage}: {result.reason}"


# ---------------------------------------------------------------------------- RTLLM, judged by the gate

WINNERS = [("freq_divbyeven", "counter_width", ""), ("sub_64bit", "prefix_adder", "brent_kung_core"),
           ("multi_8bit", "gated_accumulate", ""), ("adder_pipe_64bit", "register_sum", "")]


@pytest.mark.slow
@pytest.mark.parametrize("name, rule, option", WINNERS)
def test_winning_rewrites_are_accepted_and_cut_the_ppa_product(name: str, rule: str, option: str,
                                                                imported_rtllm: Path, pdk_dir: Path,
                                                                tmp_path: Path) -> None:
    from hdlrl.verify.gate_flow import DEFAULT_GATE_FLOW, load_gate_flow
    from hdlrl.verify.job import GateJob, run_gate_job

    design = load_design(imported_rtllm / name)
    texts = {file: unparse(apply_everywhere(file, source, rule, option)[0]) for file, source in parse_rtl(design).items()}
    paths = write_sources(design, texts, tmp_path)
    verdict = run_gate_job(GateJob(design, paths, get_pdk("nangate45", pdk_dir), load_gate_flow(DEFAULT_GATE_FLOW)))
    assert verdict.accepted, f"{name} {rule}: {verdict.stage}: {verdict.reason}"
    assert verdict.ppa_ratio is not None and verdict.ppa_ratio < 0.8, verdict.ppa_ratio
