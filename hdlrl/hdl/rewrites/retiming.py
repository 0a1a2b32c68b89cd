"""Retiming: move an adder from after a pair of registers to before them.

Pipelines often carry both operands of an addition through delay registers and add them at
the end. Two n-bit operand registers hold no more than what their (n+1)-bit sum needs, so
registering the sum instead saves n-1 flops per stage, and applied stage by stage it pulls
the adder to the front of the whole delay line.
"""

from __future__ import annotations

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.scope import (Scope, Scopes, assignments_to, clocked, enclosing_module, fresh_name,
                                      identifier_uses, in_instance, literal, written_partially)


class RegisterSum(RewriteRule):
    """Replace registers x, y that are only ever read as `x + y` by one register of their sum.

    Conditions: both are internal unsigned registers, written only side by side (every
    assignment of one has an assignment of the other in the same statement list of the same
    clocked block, so they load, hold and reset together), from values no wider than they
    are. The (max(n, m)+1)-bit sum is then exactly what `x + y` always was. Helps pipelined
    adders and multipliers that delay raw operands; removes flops, clock load and power.
    """

    name = "register_sum"
    family = "retiming"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        offered: set[frozenset[str]] = set()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, ast.Reg) or not isinstance(ancestors[-1], ast.Decl):
                continue
            module = enclosing_module(ancestors)
            scope = scopes.of(ancestors)
            partner = self._partner(scope, node.name)
            pair = frozenset((module.name, node.name, partner or ""))
            if partner is not None and pair not in offered:
                offered.add(pair)
                sites.append(self.site(file, node, index, f"register {node.name} + {partner} as one sum register"))
        return sites

    def _partner(self, scope: Scope, name: str) -> str | None:
        """The register y such that (name, y) can become one sum register, else None."""
        sums = _sum_reads(scope.module, name)
        if not sums:
            return None
        partners = {(total.right if _named(total.left, name) else total.left) for total in sums}
        if len({getattr(partner, "name", None) for partner in partners}) != 1:
            return None
        partner = next(iter(partners))
        if not isinstance(partner, ast.Identifier) or partner.name == name:
            return None
        other = partner.name
        if not scope.plain_register(name) or not scope.plain_register(other):
            return None
        if {id(total) for total in _sum_reads(scope.module, other) or ()} != {id(total) for total in sums}:
            return None
        return other if _written_together(scope, name, other) is not None else None

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        first, second = node.name, self._partner(scope, node.name)
        total = fresh_name(scope, f"{first}_plus_{second}")
        width = max(scope.signals[first].width, scope.signals[second].width) + 1
        for assignment, partner, block in _written_together(scope, first, second):
            values = (assignment.right.var, partner.right.var)
            constants = [scope.constant(value) for value in values]
            value = literal(sum(constants), width) if None not in constants else ast.Plus(*values)
            summed = type(assignment)(ast.Lvalue(ast.Identifier(total)), ast.Rvalue(value))
            replace_child(block, assignment, summed)
            replace_child(block, partner, None)
        reads = {id(read) for read in _sum_reads(module, first)}
        for read, ancestors in [(node, ancestors) for node, ancestors in walk(module) if id(node) in reads]:
            replace_child(ancestors[-1], read, ast.Identifier(total))
        _redeclare(module, first, second, ast.Reg(total, ast.Width(ast.IntConst(str(width - 1)), ast.IntConst("0"))))


def _named(node: ast.Node, name: str) -> bool:
    return isinstance(node, ast.Identifier) and node.name == name


def _sum_reads(module: ast.ModuleDef, name: str) -> list[ast.Plus] | None:
    """The `name + y` / `y + name` nodes that are all the reads of `name`, else None."""
    sums = []
    for node, ancestors, written in identifier_uses(module, name):
        if written:
            continue
        parent = ancestors[-1]
        if in_instance(ancestors) or not isinstance(parent, ast.Plus):
            return None
        sums.append(parent)
    return sums or None


def _written_together(scope: Scope, first: str, second: str) -> list[tuple[ast.Node, ast.Node, ast.Block]] | None:
    """(assignment of first, its partner assignment of second, their block) for each pair, else None."""
    module = scope.module
    if written_partially(module, first) or written_partially(module, second):
        return None
    firsts, seconds = assignments_to(module, first), assignments_to(module, second)
    if len(firsts) != len(seconds):
        return None
    pairs = []
    for assignment, ancestors in firsts:
        block = ancestors[-1]
        if not isinstance(assignment, ast.NonblockingSubstitution) or not isinstance(block, ast.Block) \
                or clocked(ancestors) is None:
            return None
        partner = next((statement for statement in block.statements if isinstance(statement, ASSIGNMENTS)
                        and _named(statement.left.var, second)), None)
        if partner is None or type(partner) is not type(assignment):
            return None
        for target, value in ((first, assignment.right.var), (second, partner.right.var)):
            if not _fits(scope, value, scope.signals[target].width):
                return None
        pairs.append((assignment, partner, block))
    return pairs if len({id(partner) for _, partner, _ in pairs}) == len(seconds) else None


def _fits(scope: Scope, value: ast.Node, width: int) -> bool:
    """Assigning `value` to a `width`-bit register loses nothing."""
    constant = scope.constant(value)
    if constant is not None:
        return 0 <= constant < (1 << width)
    value_width = scope.width(value)
    return value_width is not None and value_width <= width and scope.unsigned(value)


def _redeclare(module: ast.ModuleDef, first: str, second: str, declaration: ast.Reg) -> None:
    """Put `declaration` where `first` was declared and drop both old declarations."""
    items = []
    for item in module.items:
        if isinstance(item, ast.Decl):
            kept = [entry for entry in item.list if not (isinstance(entry, ast.Reg) and entry.name in (first, second))]
            if any(isinstance(entry, ast.Reg) and entry.name == first for entry in item.list):
                kept.insert(0, declaration)
            if kept:
                items.append(ast.Decl(tuple(kept)))
            continue
        items.append(item)
    module.items = tuple(items)
