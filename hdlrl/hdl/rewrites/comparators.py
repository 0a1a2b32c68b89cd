"""Comparator architectures: an unsigned magnitude comparison `a < b`, `a <= b`, `a > b` or
`a >= b` rebuilt as an explicit comparator module whose structure synthesis keeps.

Every comparison is one `x < y` (the operands in order or swapped), inverted for `<=` and
`>=`: `a > b` is `b < a`, `a >= b` is `!(a < b)`, `a <= b` is `!(b < a)`.
"""

from __future__ import annotations

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.instances import (REWRITE_PREFIX, operator_nodes, extended, instance_can_stand_in,
                                          instance_output, parsed_module, plain_operand, result_used)
from hdlrl.hdl.rewrites.scope import Scope, enclosing_module

ARCHITECTURES = ("subtract", "tree", "ripple")
OPERAND_WIDTHS = range(4, 65)
OPERATORS = {ast.LessThan: "lt", ast.LessEq: "le", ast.GreaterThan: "gt", ast.GreaterEq: "ge"}
# operator -> (the operand that must be smaller, the other, whether the result is inverted)
AS_LESS_THAN = {"lt": ("a", "b", False), "gt": ("b", "a", False), "ge": ("a", "b", True), "le": ("b", "a", True)}


# ---------------------------------------------------------------------------- the comparator modules

def subtract_less(x: str, y: str, width: int) -> tuple[list[str], str]:
    """(lines, net) for `x < y` as the borrow out of an explicit `width + 1`-bit subtraction;
    the difference is named unused so that lint knows it is not needed."""
    return [f"  wire [{width - 1}:0] difference_unused;", "  wire less;",
            f"  assign {{less, difference_unused}} = {{1'b0, {x}}} - {{1'b0, {y}}};"], "less"


def tree_less(x: str, y: str, width: int) -> tuple[list[str], str]:
    """(lines, net) for `x < y` by a tree of (less, equal) pairs over groups of bits.

    A group is less when its upper half is, or its upper half is equal and its lower half
    less. Adjacent groups combine pairwise per level (an odd one out waits a level), so
    there are ceil(log2 width) levels. The lowest group's equal would only feed the next
    level's lowest group's, and the final group's is not wanted, so none of them (bit 0's
    included) is built."""
    lines = [f"  wire [{width - 1}:0] lt_bit = ~{x} & {y};",
             f"  wire [{width - 1}:1] eq_bit = ~({x}[{width - 1}:1] ^ {y}[{width - 1}:1]);"]
    less = [f"lt_bit[{bit}]" for bit in range(width)]
    equal = [""] + [f"eq_bit[{bit}]" for bit in range(1, width)]
    level = 0
    while len(less) > 1:
        level += 1
        next_less, next_equal = [], []
        for group in range(0, len(less) - 1, 2):
            name = f"{level}_{group // 2}"
            lines += _kept(f"lt_{name}", f"{less[group + 1]} | ({equal[group + 1]} & {less[group]})")
            next_less.append(f"lt_{name}")
            next_equal.append(f"eq_{name}" if group else "")
            if group:
                lines += _kept(f"eq_{name}", f"{equal[group + 1]} & {equal[group]}")
        if len(less) % 2:
            next_less.append(less[-1])
            next_equal.append(equal[-1])
        less, equal = next_less, next_equal
    return lines, less[0]


def ripple_less(x: str, y: str, width: int) -> tuple[list[str], str]:
    """(lines, net) for `x < y` from the least significant bit up: `lt{i}` compares bits
    i..0, decided by bit i where the operands differ there and passed up from below where not."""
    lines = _kept("lt0", f"~{x}[0] & {y}[0]")
    for bit in range(1, width):
        lines += _kept(f"lt{bit}", f"({x}[{bit}] ^ {y}[{bit}]) ? {y}[{bit}] : lt{bit - 1}")
    return lines, f"lt{width - 1}"


LESS_THAN = {"subtract": subtract_less, "tree": tree_less, "ripple": ripple_less}


def _kept(name: str, expression: str) -> list[str]:
    """A one-bit wire ABC must keep: declared, then assigned, since a net declaration
    assignment cannot carry an attribute."""
    return [f"  (* keep *) wire {name};", f"  assign {name} = {expression};"]


def module_name(architecture: str, operator: str, width: int) -> str:
    return f"{REWRITE_PREFIX}cmp_{architecture}_{operator}{width}"


def comparator_module(architecture: str, operator: str, width: int) -> ast.ModuleDef:
    """`result = a <operator> b` on unsigned `width`-bit operands, as a module AST."""
    smaller, other, inverted = AS_LESS_THAN[operator]
    lines, less = LESS_THAN[architecture](smaller, other, width)
    header = (f"module {module_name(architecture, operator, width)}(input [{width - 1}:0] a, "
              f"input [{width - 1}:0] b, output result);")
    return parsed_module([header] + lines + [f"  assign result = {'~' if inverted else ''}{less};"])


# ---------------------------------------------------------------------------- the rule

class ComparatorArchitecture(RewriteRule):
    """Build an unsigned magnitude comparison (`<`, `<=`, `>`, `>=`; operands of 4 to 64 bits,
    not constant, the narrower zero-extended) as an explicit comparator module of the
    architecture chosen (figures for the comparator alone, Nangate45, 8 and 32 bits, against
    what Yosys builds from the operator):

    `subtract`: the borrow out of `a - b`, written as a subtraction whose difference bits
    ABC then drops: a quarter to a third less area for one to three more levels, for
    comparisons with slack. `tree`: a log-depth magnitude-comparator tree, per-bit (less,
    equal) pairs combined pairwise over ceil(log2 n) kept levels: the operator's area and
    depth alone, and a structure ABC cannot trade for a slower one inside a larger cone, for
    comparisons on the critical path. `ripple`: a serial mux chain from the least
    significant bit up, a path through every bit for about 10% less area, for narrow
    comparisons or ones off any critical path. Offered wherever the one-bit result of a
    comparison of self-sized operands is read (an assignment that is used, a condition),
    outside loops, functions and blocks an instance cannot wake.
    """

    name = "comparator_architecture"
    family = "arithmetic"
    options = ARCHITECTURES

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        for index, node, ancestors, scope in operator_nodes(tree, tuple(OPERATORS), on_the_right=False):
            width = comparison_width(node, scope)
            if width is None or not instance_can_stand_in(node, ancestors) or not _read(ancestors, scope):
                continue
            sites += [self.site(file, node, index, f"{render(node)} as a {width}-bit {architecture} comparator",
                                architecture) for architecture in ARCHITECTURES]
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        width = comparison_width(node, scope)
        operator = OPERATORS[type(node)]
        result = instance_output(
            tree, module, module_name(site.option, operator, width),
            lambda: comparator_module(site.option, operator, width),
            {"a": extended(node.left, width, scope), "b": extended(node.right, width, scope)}, ("result", 1),
            "compared")
        replace_child(ancestors[-1], node, result)


def comparison_width(node: ast.Node, scope: Scope) -> int | None:
    """The width both operands are compared at (the wider one's), if the rule can rebuild it."""
    widths = [scope.width(operand) for operand in (node.left, node.right)]
    if any(width not in OPERAND_WIDTHS for width in widths) \
            or not all(plain_operand(operand, scope) for operand in (node.left, node.right)):
        return None
    return max(widths)


def _read(ancestors: tuple[ast.Node, ...], scope: Scope) -> bool:
    """The comparison's value is read: a condition always is, a value only if the assignment
    it is part of is used (a kept comparator would otherwise survive as dead logic)."""
    assignment = next((ancestor for ancestor in reversed(ancestors)
                       if isinstance(ancestor, ASSIGNMENTS + (ast.Assign,))), None)
    return assignment is None or result_used(assignment, scope)
