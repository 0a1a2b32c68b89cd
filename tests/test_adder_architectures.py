"""Adder architectures of the `prefix_adder` rule: every generated module is proven equal to
`a + b + cin` (and, with cin = 1, to `a - b` and its borrow) by Yosys SAT on all inputs, the
trees have the cells, levels and fan-out the `prefix` docstring claims, the kept structure
survives synthesis, and a site offers only the carry-select blocks narrower than its adder.
"""

from __future__ import annotations

import hashlib
import math
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import proven_equal
from hdlrl.hdl.rewrites import RULES, applicable_rewrites
from hdlrl.hdl.rewrites.prefix import (ARCHITECTURES, PREFIX_TREES, PrefixNode, adder_module, brent_kung,
                                       han_carlson, kogge_stone, module_name, ripple, sklansky)
from hdlrl.hdl.verilog_ast import parse_verilog, unparse

NEW_ARCHITECTURES = ["kogge_stone", "sklansky", "han_carlson", "ripple",
                     "carry_select_2", "carry_select_4", "carry_select_8"]
TREES = {"brent_kung": brent_kung, "kogge_stone": kogge_stone, "sklansky": sklansky,
         "han_carlson": han_carlson, "ripple": ripple}


def reference(width: int, subtract: bool) -> str:
    """What the ports mean: a subtractor is `a + ~b + cin`, which with cin = 1 is `a - b` with
    the carry out set when nothing is borrowed (the rule reads the borrow as its complement)."""
    value = "cin ? {a >= b, a - b} : {1'b0, a} + {1'b0, ~b}" if subtract else "a + b + cin"
    return (f"module reference(input [{width - 1}:0] a, input [{width - 1}:0] b, input cin, output [{width}:0] s);\n"
            f"  assign s = {value};\nendmodule\n")


def adder_proven(architecture: str, width: int, subtract: bool, folder: Path) -> bool:
    """Yosys SAT proves the generated module and the reference agree on every input."""
    return proven_equal(reference(width, subtract), "reference", unparse(adder_module(architecture, width, subtract)),
                        module_name(architecture, width, subtract), folder)


@pytest.mark.parametrize("subtract", [False, True], ids=["add", "sub"])
@pytest.mark.parametrize("width", [8, 13])
@pytest.mark.parametrize("architecture", NEW_ARCHITECTURES)
def test_every_new_architecture_computes_the_sum(architecture: str, width: int, subtract: bool,
                                                  tmp_path: Path) -> None:
    assert adder_proven(architecture, width, subtract, tmp_path)


def test_the_proof_catches_a_wrong_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One Kogge-Stone cell reading the wrong lower bit must fail, or the proofs above prove nothing."""
    def one_cell_off(width: int) -> list[PrefixNode]:
        nodes = kogge_stone(width)
        wrong = nodes[-1]
        return nodes[:-1] + [PrefixNode(wrong.bit, wrong.lower - 1, wrong.level)]

    monkeypatch.setitem(PREFIX_TREES, "kogge_stone", one_cell_off)
    assert not adder_proven("kogge_stone", 13, False, tmp_path)


def spans(nodes: list[PrefixNode], width: int) -> list[int]:
    """The lowest bit each bit's group (g, p) covers after the tree, each level reading what the
    level before left; fails on a cell whose lower group does not start right below its own."""
    low = list(range(width))
    for level in sorted({node.level for node in nodes}):
        before = list(low)
        for node in (node for node in nodes if node.level == level):
            assert node.lower == before[node.bit] - 1, f"{node} joins groups that are not adjacent"
            low[node.bit] = before[node.lower]
    return low


@pytest.mark.parametrize("name", sorted(TREES))
def test_every_tree_is_a_complete_prefix_in_level_order(name: str) -> None:
    for width in range(1, 70):
        nodes = TREES[name](width)
        assert [node.level for node in nodes] == sorted(node.level for node in nodes), f"{name} {width}"
        assert spans(nodes, width) == [0] * width, f"{name} {width}: some carry misses a bit"


def fan_out(nodes: list[PrefixNode]) -> int:
    """The most cells on one level that read the same bit's group."""
    readers = Counter(reader for node in nodes for reader in ((node.level, node.bit), (node.level, node.lower)))
    return max(readers.values())


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_trees_have_the_cells_levels_and_fan_out_the_docstring_claims(width: int) -> None:
    log = int(math.log2(width))
    claims = {  # name: (cells, levels)
        "brent_kung": (2 * width - log - 2, 2 * log - 1),
        "kogge_stone": (width * log - width + 1, log),
        "sklansky": (width // 2 * log, log),
        "han_carlson": (width // 2 * log, log + 1),
        "ripple": (width - 1, width - 1),
    }
    for name, claim in claims.items():
        nodes = TREES[name](width)
        assert (len(nodes), len({node.level for node in nodes})) == claim, name
    assert fan_out(kogge_stone(width)) == fan_out(han_carlson(width)) == 2
    assert fan_out(sklansky(width)) == width // 2


def test_non_power_of_two_widths_round_the_depth_up() -> None:
    levels = {name: len({node.level for node in TREES[name](13)}) for name in NEW_ARCHITECTURES if name in TREES}
    assert levels == {"kogge_stone": 4, "sklansky": 4, "han_carlson": 5, "ripple": 12}


def test_brent_kung_modules_are_unchanged() -> None:
    """Recorded results were measured on these exact texts."""
    text = "".join(unparse(adder_module(name, width, subtract)) for name in ("brent_kung", "brent_kung_core")
                   for width in (8, 13, 16, 32, 64) for subtract in (False, True))
    assert hashlib.sha256(text.encode()).hexdigest() == \
        "8cc830e463829e54223b770d68596611efb1c82bc1befd405869ef04ba3c049c"


def synthesised(architecture: str, width: int, folder: Path, checks: str = "") -> str:
    """Yosys's log of synthesising the adder to simple gates and measuring its longest path."""
    source = folder / f"{architecture}.v"
    source.write_text(unparse(adder_module(architecture, width, False)))
    script = (f"read_verilog {source}; synth -flatten -top {module_name(architecture, width, False)}; "
              f"abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX; opt_clean; {checks} ltp -noff")
    run = subprocess.run(["yosys", "-p", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    return run.stdout


def longest_path(log: str) -> int:
    return int(re.search(r"Longest topological path in \S+ \(length=(\d+)\)", log).group(1))


def test_synthesis_builds_the_chosen_structure(tmp_path: Path) -> None:
    """The kept nets survive ABC: both candidate sums of each carry-select block, and a carry
    path as deep as the tree (Kogge-Stone shallowest, ripple deepest)."""
    carry_select = synthesised("carry_select_4", 16, tmp_path, "select -assert-count 6 w:sum_*_if0 w:sum_*_if1;")
    paths = {name: longest_path(synthesised(name, 16, tmp_path)) for name in ("kogge_stone", "brent_kung", "ripple")}
    assert paths["kogge_stone"] < paths["brent_kung"] < paths["ripple"], paths
    assert longest_path(carry_select) < paths["ripple"], (longest_path(carry_select), paths)


def test_sites_offer_only_carry_select_blocks_narrower_than_the_adder() -> None:
    text = """
module widths(input [7:0] a8, input [7:0] b8, input [12:0] a13, input [12:0] b13, input [8:0] a9, input [8:0] b9,
              output [8:0] s8, output [13:0] d13, output [9:0] s9);
  assign s8 = a8 + b8;
  assign d13 = a13 - b13;
  assign s9 = a9 + b9;
endmodule
"""
    offered: dict[int, list[str]] = {}
    for site in applicable_rewrites({"widths.v": parse_verilog(text)}, ["prefix_adder"]):
        width = int(re.search(r"(\d+)-bit", site.description).group(1))
        offered.setdefault(width, []).append(site.option)
    prefix_trees = list(PREFIX_TREES)
    assert offered == {8: prefix_trees + ["carry_select_2", "carry_select_4"],
                       9: prefix_trees + ["carry_select_2", "carry_select_4", "carry_select_8"],
                       13: prefix_trees + ["carry_select_2", "carry_select_4", "carry_select_8"]}


def test_options_are_plain_identifiers_and_all_offered() -> None:
    assert RULES["prefix_adder"].options == ARCHITECTURES
    assert set(NEW_ARCHITECTURES) | {"brent_kung", "brent_kung_core"} == set(ARCHITECTURES)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in ARCHITECTURES)
