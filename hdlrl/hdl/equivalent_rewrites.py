"""Behaviour-preserving rewrites of a design's RTL, to measure false rejections of the gate.

A verification gate that rejects one of these rejects a correct design. Each rewrite is a
whole-file edit of one RTL file that cannot change behaviour at the ports: internal signals
renamed, commutative operands swapped, case items with distinct constant labels reordered,
right-hand sides wrapped in a double negation. pyverilog's printer parenthesises every
operator, so each rewrite also carries redundant parentheses. Files are written with
`hdlrl.hdl.design_files.write_mutant`, like mutants.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.design import Design
from hdlrl.hdl.lexer import normalise
from hdlrl.hdl.ast_edit import ASSIGNMENTS, Number, walk
from hdlrl.hdl.design_files import parse_rtl
from hdlrl.hdl.verilog_ast import ParsedSource, unparse

RENAME_SUFFIX = "_hdlrl_renamed"
COMMUTATIVE = (ast.Plus, ast.Times, ast.And, ast.Or, ast.Xor, ast.Eq, ast.NotEq)
PORT_KINDS = (ast.Input, ast.Output, ast.Inout)
SIGNAL_KINDS = (ast.Wire, ast.Reg, ast.Integer, ast.Tri)


@dataclass(frozen=True)
class Rewrite:
    name: str
    file: str  # RTL path relative to the design root
    description: str
    text: str  # the complete rewritten source of `file`


def renamed_internal_signals(tree: ast.Node, design: Design) -> str | None:
    """Every non-port signal of every module gets a suffix, in declarations and uses.

    Names a testbench reaches hierarchically (`dut.state`) are kept, since renaming them
    would break the testbench, not the design.
    """
    testbench = "\n".join(path.read_text(errors="replace") for path in design.testbench.sources)
    renamed = []
    for module in (node for node, _ in walk(tree) if isinstance(node, ast.ModuleDef)):
        nodes = [node for node, _ in walk(module)]
        ports = {node.name for node in nodes if isinstance(node, PORT_KINDS)}
        ports |= {node.name for node in nodes if isinstance(node, ast.Port)}
        names = {node.name for node in nodes if isinstance(node, SIGNAL_KINDS)} - ports
        names = {name for name in names if not re.search(rf"\.\s*{re.escape(name)}\b", testbench)}
        for node in nodes:
            if isinstance(node, SIGNAL_KINDS + (ast.Identifier,)) and node.name in names:
                node.name += RENAME_SUFFIX
        renamed += sorted(names)
    return f"renamed {', '.join(renamed)}" if renamed else None


def swapped_commutative_operands(tree: ast.Node, design: Design) -> str | None:
    swapped = 0
    for node, _ in walk(tree):
        if type(node) in COMMUTATIVE:
            node.left, node.right = node.right, node.left
            swapped += 1
    return f"swapped the operands of {swapped} commutative operators" if swapped else None


def distinct_constant_labels(statement: ast.CaseStatement) -> bool:
    """All labels are x/z-free literals of distinct value and default, if any, is last."""
    values = []
    for index, item in enumerate(statement.caselist):
        if item.cond is None:
            if index != len(statement.caselist) - 1:
                return False
            continue
        for label in item.cond:
            number = Number.parse(label.value) if isinstance(label, ast.IntConst) else None
            if number is None:
                return False
            values.append(number.value)
    return len(values) == len(set(values))


def reordered_case_items(tree: ast.Node, design: Design) -> str | None:
    """Items of plain `case` statements reversed, default kept last (casez/casex order matters)."""
    reordered = 0
    for node, _ in walk(tree):
        if type(node) is ast.CaseStatement and distinct_constant_labels(node):
            items = [item for item in node.caselist if item.cond is not None]
            if len(items) > 1:
                node.caselist = tuple(reversed(items)) + tuple(item for item in node.caselist if item.cond is None)
                reordered += 1
    return f"reversed the items of {reordered} case statements" if reordered else None


def double_negated_right_hand_sides(tree: ast.Node, design: Design) -> str | None:
    """`x = e` becomes `x = ~~e`: `~` takes its width from the context, so `~~e` equals e."""
    wrapped = 0
    for node, ancestors in walk(tree):
        if isinstance(node, ast.Rvalue) and isinstance(ancestors[-1], ASSIGNMENTS + (ast.Assign,)) \
                and not isinstance(ancestors[-2], ast.ForStatement):
            node.var = ast.Unot(ast.Unot(node.var, lineno=node.lineno), lineno=node.lineno)
            wrapped += 1
    return f"wrapped {wrapped} right-hand sides in ~~( )" if wrapped else None


REWRITES: dict[str, Callable[[ast.Node, Design], str | None]] = {
    "rename_internal_signals": renamed_internal_signals,
    "swap_commutative_operands": swapped_commutative_operands,
    "reorder_case_items": reordered_case_items,
    "double_negation": double_negated_right_hand_sides,
}


def equivalent_rewrites(design: Design) -> list[Rewrite]:
    """Every rewrite that changes something, for every RTL file, in a fixed order."""
    rewrites = []
    for file, source in parse_rtl(design).items():
        original = normalise(unparse(source))
        for name, rewrite in REWRITES.items():
            tree = copy.deepcopy(source.tree)
            description = rewrite(tree, design)
            text = unparse(ParsedSource(tree, source.header))
            if description and normalise(text) != original:
                rewrites.append(Rewrite(name, file, description, text))
    return rewrites
