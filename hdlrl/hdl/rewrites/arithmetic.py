"""Adder architectures: hand-built adders to the `+` operator, `+`/`-` to an explicit adder of
a chosen architecture (prefix trees, ripple, carry-select; see `prefix`), and
subtract-and-test-the-borrow to a comparator.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.bitsim import Evaluator
from hdlrl.hdl.rewrites.instances import (operator_nodes, extended, instance_can_stand_in, instance_output,
                                          plain_operand, result_used)
from hdlrl.hdl.rewrites.prefix import ARCHITECTURES, adder_module, module_name, offered_architectures
from hdlrl.hdl.rewrites.scope import Scope, enclosing_module, identifier_uses, literal, modules

RANDOM_VECTORS = 40  # per carry value, besides the corner cases

# ---------------------------------------------------------------------------- hand-built adders


@dataclass(frozen=True)
class AdderPorts:
    """Port names of a module that computes `{carry_out, total} = a + b + carry_in`."""

    width: int
    a: str
    b: str
    carry_in: str | None  # None: no carry input
    total: str
    carry_out: str


def adder_ports(evaluator: Evaluator, module: ast.ModuleDef) -> AdderPorts | None:
    """The ports of `module` if it is a combinational adder, whatever its gates, else None.

    Candidates have the ports of an adder (two n-bit inputs, at most one 1-bit carry input,
    an n-bit sum and a 1-bit carry output). The hypothesis is checked by evaluating the
    module (`bitsim`) on corner and seeded random operands for both carry values.
    """
    scope = Scope(module)
    inputs = {name: signal.width for name, signal in scope.signals.items() if signal.port == "input"}
    outputs = {name: signal.width for name, signal in scope.signals.items() if signal.port == "output"}
    operands = sorted(name for name, width in inputs.items() if width and width > 1)
    carries = sorted(name for name, width in inputs.items() if width == 1)
    if len(operands) != 2 or len(carries) > 1 or len(inputs) != len(operands) + len(carries):
        return None
    width = inputs[operands[0]]
    totals = [name for name, output_width in outputs.items() if output_width == width]
    carry_outs = [name for name, output_width in outputs.items() if output_width == 1]
    if inputs[operands[1]] != width or len(totals) != 1 or len(carry_outs) != 1 or len(outputs) != 2:
        return None
    ports = AdderPorts(width, operands[0], operands[1], carries[0] if carries else None, totals[0], carry_outs[0])
    generator = random.Random(width)
    top = (1 << width) - 1
    vectors = [(0, 0), (top, top), (top, 1), (1, top), (top // 3, top // 3 * 2), (top // 3 * 2, top // 3)]
    vectors += [(generator.getrandbits(width), generator.getrandbits(width)) for _ in range(RANDOM_VECTORS)]
    for a, b in vectors:
        for carry in (0, 1) if ports.carry_in else (0,):
            values = {ports.a: a, ports.b: b} | ({ports.carry_in: carry} if ports.carry_in else {})
            result = evaluator.outputs(module.name, values)
            total = a + b + carry
            if result is None or result[ports.total] != total & top or result[ports.carry_out] != total >> width:
                return None
    return ports


def _is_operator_form(module: ast.ModuleDef) -> bool:
    """The body is already a single continuous assignment of an addition."""
    logic = [item for item in module.items if not isinstance(item, ast.Decl)]
    return len(logic) == 1 and isinstance(logic[0], ast.Assign) and isinstance(logic[0].right.var, ast.Plus)


class AdderToOperator(RewriteRule):
    """Replace a hand-built adder module (a ripple chain of full-adder instances, a nested
    carry-lookahead hierarchy, any gate-level adder) by `assign {co, s} = a + b + ci;`.

    The hand structure fixes one carry architecture and hides the addition from Yosys, which
    then cannot apply its own adder mapping, and other rules (`prefix_adder`) cannot pick a
    better one. Recognised by what it computes, not how it is written. Wins where the chain
    is short enough that a tree is cheap (8 bits: half the delay at the same area); the cells
    the adder used are removed when nothing else instantiates them.
    """

    name = "adder_to_operator"
    family = "arithmetic"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        adders = recognise_adders(tree)
        used_inside = {node.module for name in adders for node, _ in walk(_module(tree, name))
                       if isinstance(node, ast.Instance)}
        return [self.site(file, node, index, f"hand-built adder {node.name} ({adders[node.name].width} bits) -> +")
                for index, (node, _) in enumerate(walk(tree))
                if isinstance(node, ast.ModuleDef) and node.name in adders and node.name not in used_inside]

    def rewrite(self, tree, node, ancestors, site) -> None:
        ports = recognise_adders(tree)[node.name]
        before = _instantiated(tree)
        total = ast.Plus(ast.Identifier(ports.a), ast.Identifier(ports.b))
        if ports.carry_in:
            total = ast.Plus(total, ast.Identifier(ports.carry_in))
        addition = ast.Assign(ast.Lvalue(ast.Concat((ast.Identifier(ports.carry_out), ast.Identifier(ports.total)))),
                              ast.Rvalue(total))
        port_declarations = [item for item in node.items if isinstance(item, ast.Decl)
                             and all(type(entry) in (ast.Input, ast.Output) for entry in item.list)]
        node.items = tuple(port_declarations) + (addition,)
        _remove_orphans(tree, before)


def recognise_adders(tree: ast.Source) -> dict[str, AdderPorts]:
    """Every module of the file that is a hand-built adder (not already `+`)."""
    definitions = {module.name: module for module in modules(tree)}
    evaluator = Evaluator(definitions)
    return {name: ports for name, module in definitions.items()
            if not _is_operator_form(module) and (ports := adder_ports(evaluator, module)) is not None}


def _module(tree: ast.Source, name: str) -> ast.ModuleDef:
    return next(module for module in modules(tree) if module.name == name)


def _instantiated(tree: ast.Source) -> set[str]:
    return {node.module for node, _ in walk(tree) if isinstance(node, ast.Instance)}


def _remove_orphans(tree: ast.Source, instantiated_before: set[str]) -> None:
    """Drop modules that were instantiated before a rewrite and no longer are, transitively."""
    while True:
        orphans = instantiated_before - _instantiated(tree)
        definitions = tree.description.definitions
        kept = tuple(item for item in definitions if not (isinstance(item, ast.ModuleDef) and item.name in orphans))
        if len(kept) == len(definitions):
            return
        tree.description.definitions = kept


# ---------------------------------------------------------------------------- prefix adders

class PrefixAdder(RewriteRule):
    """Build `a + b`, `a + b + c` (c one bit) or `a - b` as an explicit adder module whose
    carry structure synthesis keeps (see `prefix`): a Brent-Kung, Kogge-Stone, Sklansky or
    Han-Carlson prefix tree, a ripple chain, or a carry-select adder of 2, 4 or 8-bit blocks.

    ABC otherwise turns `+` into a near-ripple chain. Brent-Kung trades roughly 1.3-1.5x
    adder area for a carry path of 2 log2 n levels: a win for wide adders (32 bits and up)
    and for adders on the critical path of a design whose area is mostly flops; the other
    trees buy fewer levels with more cells or fan-out, ripple the reverse. Offered for
    additions of 8 or more bits of unsigned, non-constant operands on the right of a used
    assignment, outside loops, functions and blocks an instance cannot wake; a carry-select
    block size only below the adder's width.
    """

    name = "prefix_adder"
    family = "arithmetic"
    options = ARCHITECTURES
    minimum_width = 8

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        for index, node, ancestors, scope in operator_nodes(tree, (ast.Plus, ast.Minus)):
            shape = _addition(node, ancestors, scope)
            if shape is None or shape[3] < self.minimum_width or not instance_can_stand_in(node, ancestors) \
                    or not result_used(ancestors[-2], scope):
                continue
            for architecture in offered_architectures(shape[3]):
                sites.append(self.site(file, node, index, f"{render(node)} as a {shape[3]}-bit {architecture} adder",
                                       architecture))
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        a, b, carry_in, width, result_width = _addition(node, ancestors, scope)
        subtract = isinstance(node, ast.Minus)
        total = instance_output(
            tree, module, module_name(site.option, width, subtract),
            lambda: adder_module(site.option, width, subtract),
            {"a": extended(a, width, scope), "b": extended(b, width, scope),
             "cin": carry_in if carry_in is not None else ast.IntConst("1'b1" if subtract else "1'b0")},
            ("s", width + 1), "sum")
        replace_child(ancestors[-1], node, _result(total.name, width, result_width, subtract))


def _carry_bit(node: ast.Node, scope: Scope) -> ast.Node | None:
    """The one-bit value of a carry-in operand: a one-bit expression, or one zero-extended by a
    concatenation (`{16'd0, cin}`); None for anything wider."""
    if scope.width(node) == 1:
        return node
    if isinstance(node, ast.Concat) and node.list and scope.width(node.list[-1]) == 1 \
            and all(scope.constant(part) == 0 for part in node.list[:-1]):
        return node.list[-1]
    return None


def _addition(node: ast.Node, ancestors: tuple[ast.Node, ...], scope: Scope):
    """(a, b, carry-in or None, adder width, result width) of an adder site, else None."""
    a, b, carry_in = node.left, node.right, None
    if isinstance(node, ast.Plus) and isinstance(a, ast.Plus) and _carry_bit(b, scope) is not None:
        a, b, carry_in = a.left, a.right, _carry_bit(b, scope)
    if isinstance(node, ast.Minus) and isinstance(a, (ast.Plus, ast.Minus)):
        return None
    if not (plain_operand(a, scope) and plain_operand(b, scope)) \
            or (carry_in is not None and not scope.unsigned(carry_in)):
        return None  # an operand such as `x + y` would lose its carry on an adder port of its own width
    widths = [scope.width(a), scope.width(b)]
    assignment = ancestors[-2]
    if None in widths or not isinstance(assignment, ASSIGNMENTS + (ast.Assign,)):
        return None
    target = scope.width(assignment.left.var)
    width = max(widths)
    if target is None or target < width:
        return None
    return a, b, carry_in, width, target


def _result(total: str, width: int, result_width: int, subtract: bool) -> ast.Node:
    """The (width+1)-bit adder output at the assignment's width: a sum's upper bits are zero,
    a difference's are its borrow (the complement of the carry out)."""
    def bits(high: int) -> ast.Node:
        return ast.Partselect(ast.Identifier(total), ast.IntConst(str(high)), ast.IntConst("0"))

    if result_width <= width + (not subtract):
        return bits(result_width - 1) if result_width <= width else ast.Identifier(total)
    if not subtract:
        return ast.Concat((literal(0, result_width - width - 1), ast.Identifier(total)))
    borrow = ast.Ulnot(ast.Pointer(ast.Identifier(total), ast.IntConst(str(width))))
    return ast.Concat((ast.Repeat(ast.Concat((borrow,)), ast.IntConst(str(result_width - width))), bits(width - 1)))


# ---------------------------------------------------------------------------- comparators

class BorrowToComparison(RewriteRule):
    """`assign {borrow, d} = x - y;` read only as `borrow`, `d == 0` and `d != 0` becomes the
    comparisons `x < y`, `x == y` and `x != y`.

    A subtractor computes every difference bit to produce one flag; a magnitude comparator
    is a carry chain without the sum XORs, and equality needs no carries at all. Exact: the
    borrow of an n-bit subtraction is x < y, and the n-bit difference is zero iff x == y.
    """

    name = "borrow_to_comparison"
    family = "arithmetic"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        for index, (node, ancestors) in enumerate(walk(tree)):
            if isinstance(node, ast.Assign) and _borrow_parts(node, Scope(enclosing_module(ancestors))) is not None:
                sites.append(self.site(file, node, index, f"{render(node.left.var)} = {render(node.right.var)} "
                                       f"-> comparisons"))
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        borrow, difference, left, right = _borrow_parts(node, Scope(module))
        for use, use_ancestors, _ in list(identifier_uses(module, borrow)):
            if use_ancestors[-1] is not node.left.var:
                replace_child(use_ancestors[-1], use, ast.LessThan(copy.deepcopy(left), copy.deepcopy(right)))
        for use, use_ancestors, _ in list(identifier_uses(module, difference)):
            test = use_ancestors[-1]
            if test is not node.left.var:
                replace_child(use_ancestors[-2], test, type(test)(copy.deepcopy(left), copy.deepcopy(right)))
        replace_child(ancestors[-1], node, None)
        module.items = tuple(item for item in module.items if not _declares(item, {borrow, difference}))


def _borrow_parts(node: ast.Assign, scope: Scope) -> tuple[str, str, ast.Node, ast.Node] | None:
    """(borrow wire, difference wire, x, y) when the subtraction is only tested, else None."""
    target, value = node.left.var, node.right.var
    if not isinstance(target, ast.Concat) or len(target.list) != 2 or not isinstance(value, ast.Minus):
        return None
    borrow, difference = target.list
    if not all(isinstance(name, ast.Identifier) and scope.signals.get(name.name) and
               scope.signals[name.name].kind == "wire" and not scope.signals[name.name].port
               for name in (borrow, difference)):
        return None
    width = scope.width(difference)
    if scope.width(borrow) != 1 or width != max(scope.width(value.left) or 0, scope.width(value.right) or 0):
        return None
    if not scope.unsigned(value):
        return None
    for use, ancestors, written in identifier_uses(scope.module, difference.name):
        parent = ancestors[-1]
        if parent is target:
            continue
        zero_test = isinstance(parent, (ast.Eq, ast.NotEq)) and scope.constant(
            parent.right if parent.left is use else parent.left) == 0
        if written or not zero_test:
            return None
    if any(written and ancestors[-1] is not target for _, ancestors, written in
           identifier_uses(scope.module, borrow.name)):
        return None
    return borrow.name, difference.name, value.left, value.right


def _declares(item: ast.Node, names: set[str]) -> bool:
    return isinstance(item, ast.Decl) and all(getattr(entry, "name", None) in names for entry in item.list)
