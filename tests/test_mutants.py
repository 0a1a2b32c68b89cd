"""Mutants and equivalent rewrites: deterministic, every operator present, all compile, rewrites pass."""

from __future__ import annotations

import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.eda.toolchain import has_tool, require_tool
from hdlrl.errors import HdlrlError
from hdlrl.hdl.equivalent_rewrites import equivalent_rewrites
from hdlrl.hdl.lexer import normalise
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import MUTATION_OPERATORS, check_round_trip, make_mutants
from hdlrl.hdl.mutation_operators import OPERATOR_FAMILIES
from hdlrl.hdl.verilog_ast import parse_verilog, shared_parser, unparse

# Between them these designs have every construct a mutation operator needs.
COVERING_DESIGNS = ("alu8", "seq_detect", "sync_fifo", "traffic_light", "mult8")
EVERY_OPERATOR = (set(MUTATION_OPERATORS) - {"operator_replacement"}) | set(OPERATOR_FAMILIES)


def design(name: str):
    return load_design(DESIGNS_DIR / name)


def test_parser_is_built_once_and_reused() -> None:
    parse_verilog("module warm(input a, output y); assign y = a; endmodule\n")
    parser = shared_parser()
    started = time.perf_counter()
    parse_verilog("module again(input a, output y); assign y = ~a; endmodule\n")
    assert time.perf_counter() - started < 0.2
    assert shared_parser() is parser


def test_parse_error_names_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(HdlrlError) as error:
        parse_verilog("module m(input a);\n\nassign = a;\nendmodule\n", tmp_path / "m.v")
    assert error.value.path == tmp_path / "m.v" and error.value.line == 3


def test_directives_are_resolved_and_the_header_kept() -> None:
    text = ("`timescale 1ns/1ps\n`define WIDTH 8\n`ifdef NEVER\nsyntax error here\n`else\n"
            "module m(input [`WIDTH-1:0] a, output [`WIDTH-1:0] y); assign y = a[3 +: 4]; endmodule\n`endif\n")
    printed = unparse(parse_verilog(text))
    assert printed.startswith("`timescale 1ns/1ps\n")
    assert "input [8-1:0] a" in printed and "a[3 +: 4]" in printed
    with pytest.raises(HdlrlError, match="include"):
        parse_verilog('`include "other.v"\n')


def test_a_backticked_word_in_a_comment_is_not_a_macro() -> None:
    """arbiter_rr's comment "the one after `last`" made every cover run of it go without mutants."""
    text = ("// `undefined in a line comment\nmodule m(input a, output y);\n  /* a block comment naming `last\n"
            "   over two lines */ assign y = ~a; // `more\nendmodule\n")
    printed = unparse(parse_verilog(text))
    assert "assign y = ~a;" in printed
    with pytest.raises(HdlrlError, match="undefined macro `last") as error:
        parse_verilog(text.replace("assign y = ~a;", "assign y = `last;"))
    assert error.value.line == 4


def test_assign_lists_and_loop_declared_variables_parse_and_print_as_verilog_2001(tmp_path: Path) -> None:
    """Two forms RTLLM references use and pyverilog's grammar lacks; line numbers stay put."""
    text = ("module m(input [3:0] a, output [1:0] y, output reg [3:0] r);\n"
            "  assign y[0] = a[0], // first\n"
            "         y[1] = ^{a[2], a[3]};\n"
            "  always @* for (int i = 0; i < 4; i = i + 1) r[i] = a[3 - i];\n"
            "endmodule\n")
    parsed = parse_verilog(text)
    always = next(item for item in parsed.tree.description.definitions[0].items if type(item).__name__ == "Always")
    assert always.lineno == 4
    printed = unparse(parsed)
    assert "integer i;" in printed and printed.count("assign") == 2
    (tmp_path / "m.v").write_text(printed)
    compiled = subprocess.run(["iverilog", "-o", str(tmp_path / "m.vvp"), str(tmp_path / "m.v")],
                              capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr


@pytest.mark.skipif(not has_tool("verilator"), reason="needs verilator")
def test_a_null_statement_prints_back_as_one(tmp_path: Path) -> None:
    """pyverilog reads `default: ;` as an event control on an empty list and printed it
    `@(*);`: each mutant of spi_slave_cmd then waited forever on Icarus (a kill that was no
    mutation's) and crashed Verilator 5.006 under --timing, so the cover run lost its code
    coverage to Icarus."""
    source = DESIGNS_DIR / "hard_coverage" / "spi_slave_cmd" / "rtl" / "spi_slave_cmd.v"
    assert "default: ;" in source.read_text()
    printed = unparse(parse_verilog(source.read_text()))
    assert "@(*)" not in printed and "default: ;" in printed
    (tmp_path / "printed.v").write_text(printed)
    lint = subprocess.run([require_tool("verilator").path, "--lint-only", "--timing", "-Wno-fatal", "-Wno-lint",
                           "-Wno-style", str(tmp_path / "printed.v")], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr


def test_same_seed_same_mutants_other_seed_other_mutants() -> None:
    alu = design("alu8")
    first, again, other = make_mutants(alu, 15, 1), make_mutants(alu, 15, 1), make_mutants(alu, 15, 2)
    assert first == again and len(first) == 15
    assert [mutant.text for mutant in first] != [mutant.text for mutant in other]


def test_every_operator_family_is_produced() -> None:
    produced = {operator for name in COVERING_DESIGNS for mutant in make_mutants(design(name), 60, 0)
                for operator in mutant.operator.split("+")}
    assert produced == EVERY_OPERATOR


def test_a_small_design_is_topped_up_with_second_order_mutants() -> None:
    """mac8 has about 20 distinct single edits; the rest of 40 are pairs on different lines."""
    mutants = make_mutants(design("mac8"), 40, 0)
    assert len(mutants) == 40
    second_order = [mutant for mutant in mutants if "+" in mutant.operator]
    first_order = mutants[: len(mutants) - len(second_order)]
    assert second_order and first_order and all("+" not in mutant.operator for mutant in first_order)
    for mutant in second_order:
        first, second = mutant.description.split("; ")
        assert first.split(":")[0] != second.split(":")[0]  # two different lines


@pytest.mark.parametrize("name", ["alu8", "sync_fifo", "traffic_light", "adder16", "seq_detect", "mac8"])
def test_every_mutant_compiles_and_differs(name: str, tmp_path: Path) -> None:
    subject = design(name)
    originals = {normalise(unparse(parse_verilog(path.read_text()))) for path in subject.rtl}
    mutants = make_mutants(subject, 30, 7)
    assert len({normalise(mutant.text) for mutant in mutants}) == len(mutants)
    for mutant in mutants:
        assert normalise(mutant.text) not in originals, mutant.description
        paths = write_mutant(subject, mutant, tmp_path / f"mutant_{mutant.index:03d}")
        assert [path.name for path in paths] == [path.name for path in subject.rtl]
        compiled = subprocess.run(["iverilog", "-g2012", "-o", str(tmp_path / "a.out"), *map(str, paths)],
                                  capture_output=True, text=True)
        assert compiled.returncode == 0, f"{mutant.description}: {compiled.stderr}"


def test_round_trip_failure_names_the_file() -> None:
    subject = design("alu8")
    with pytest.raises(HdlrlError, match="round trip") as error:
        check_round_trip(subject, lambda candidate: candidate.rtl == subject.rtl)
    assert error.value.path == subject.rtl[0]


def test_equivalent_rewrites_pass_the_testbench(tmp_path: Path) -> None:
    from hdlrl.evaluate.cascade import evaluate
    from hdlrl.evaluate.eval_flow import load_flow
    from hdlrl.pdk import get_pdk

    pdk, flow = get_pdk("generic"), load_flow()
    jobs = []
    for name in ("sync_fifo", "decoder3to8", "traffic_light"):
        subject = design(name)
        for index, rewrite in enumerate(equivalent_rewrites(subject)):
            jobs.append((rewrite, subject.with_rtl(write_mutant(subject, rewrite, tmp_path / name / str(index)))))
    assert {"rename_internal_signals", "swap_commutative_operands", "reorder_case_items",
            "double_negation"} <= {rewrite.name for rewrite, _ in jobs}
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda job: evaluate(job[1], pdk, flow), jobs))
    failures = [f"{rewrite.file} {rewrite.name}: {result.reason}" for (rewrite, _), result in zip(jobs, results)
                if not result.verified]
    assert not failures
