"""Mux restructuring: muxes that select what the other input computes anyway, and priority
chains that are really parallel selections.
"""

from __future__ import annotations

import copy

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.scope import Scope, Scopes, enclosing_module, tests_async_control
from hdlrl.hdl.rewrites.sharing import mux, same, single_statement


class RedundantWrap(RewriteRule):
    """Drop `if (x == K) x <= K2; else x <= x + c;` down to `x <= x + c` when K + c wraps to K2
    at x's width (a counter's explicit roll-over at its natural modulus).

    Removes a W-bit comparator and a W-bit mux per roll-over check; an up/down counter with
    both checks also lets its incrementer and decrementer become one adder. Exact: the
    assignment truncates to x's width, so the general branch computes K2 itself.
    """

    name = "redundant_wrap"
    family = "muxes"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if isinstance(node, ast.IfStatement):
                scope = scopes.of(ancestors)
                if self._general_branch(node, scope) is not None:
                    sites.append(self.site(file, node, index, f"roll-over check ({render(node.cond)}) removed"))
        return sites

    def _general_branch(self, node: ast.IfStatement, scope: Scope) -> ast.Node | None:
        """The `x <= x + c` branch of a redundant roll-over check, else None."""
        condition = node.cond
        special, general = single_statement(node.true_statement), single_statement(node.false_statement)
        if isinstance(condition, ast.NotEq):
            special, general = general, special
        elif not isinstance(condition, ast.Eq):
            return None
        if not isinstance(special, ASSIGNMENTS) or type(general) is not type(special) \
                or not same(special.left, general.left) or not isinstance(special.left.var, ast.Identifier):
            return None
        target = special.left.var
        signal = scope.signals.get(target.name)
        checked = next((scope.constant(side) for side, other in ((condition.right, condition.left),
                                                                  (condition.left, condition.right))
                        if same(other, target)), None)
        loaded, step = scope.constant(special.right.var), _step(general.right.var, target, scope)
        if signal is None or signal.width is None or checked is None or loaded is None or step is None:
            return None
        modulus = 1 << signal.width
        return general if (checked + step) % modulus == loaded % modulus else None

    def rewrite(self, tree, node, ancestors, site) -> None:
        replace_child(ancestors[-1], node, self._general_branch(node, Scope(enclosing_module(ancestors))))


def _step(value: ast.Node, target: ast.Identifier, scope: Scope) -> int | None:
    """c of `target + c` (or -c of `target - c`), else None."""
    if isinstance(value, (ast.Plus, ast.Minus)) and same(value.left, target):
        amount = scope.constant(value.right)
        return None if amount is None else amount if isinstance(value, ast.Plus) else -amount
    if isinstance(value, ast.Plus) and same(value.right, target):
        return scope.constant(value.left)
    return None


class PriorityChainToCase(RewriteRule):
    """An `if (s == A) .. else if (s == B) ..` chain on one selector with distinct constants
    becomes `case (s)`: a parallel one-hot mux (AND-OR) instead of a chain of 2:1 muxes.

    The conditions exclude each other, so the priority order carried no meaning; the mux
    depth drops from the chain length to one level. Exact.
    """

    name = "priority_chain_to_case"
    family = "muxes"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        nested: set[int] = set()  # else-ifs of a chain already offered
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, ast.IfStatement) or id(node) in nested:
                continue
            scope = scopes.of(ancestors)
            chain = _chain(node, scope)
            if chain is not None:
                selector, items, _ = chain
                nested |= {id(branch) for branch in _else_ifs(node)}
                sites.append(self.site(file, node, index,
                                       f"if-chain on {render(selector)} ({len(items)} values) -> case"))
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        selector, items, otherwise = _chain(node, Scope(enclosing_module(ancestors)))
        cases = [ast.Case((label,), statement) for label, statement in items]
        cases.append(ast.Case(None, otherwise if otherwise is not None else ast.Block(())))
        replace_child(ancestors[-1], node, ast.CaseStatement(selector, tuple(cases)))


def _else_ifs(node: ast.IfStatement) -> list[ast.IfStatement]:
    chain = []
    while isinstance(node.false_statement, ast.IfStatement):
        node = node.false_statement
        chain.append(node)
    return chain


def _chain(node: ast.IfStatement, scope: Scope) -> tuple[ast.Node, list, ast.Node | None] | None:
    """(selector, [(label, statement)], final else) of a chain of two or more `s == constant` tests."""
    selector, items, values = None, [], set()
    current: ast.Node | None = node
    while isinstance(current, ast.IfStatement):
        condition = current.cond
        if not isinstance(condition, ast.Eq):
            return None
        for tested, label in ((condition.left, condition.right), (condition.right, condition.left)):
            value = scope.constant(label)
            if value is not None and scope.constant(tested) is None:
                break
        else:
            return None
        if selector is None:
            selector = tested
        if not same(selector, tested) or value in values:
            return None
        values.add(value)
        items.append((label, current.true_statement))
        current = current.false_statement
    if len(items) < 2 or scope.width(selector) is None:
        return None
    return selector, items, current


class HoistedAssignment(RewriteRule):
    """`if (c) begin x = A; ... end else begin x = B; ... end` becomes `x = c ? A : B;` before
    the `if`: the assignment both branches start with, as one mux.

    On its own the hardware is the same; it exposes the choice as an expression, so that
    `shared_operator` can put one adder or subtractor behind operand muxes where each branch
    had its own (sign-magnitude arithmetic, ALUs), and identical choices merge. Exact: both
    branches evaluated their first assignment before anything else, and the condition does
    not read what it assigns.
    """

    name = "hoisted_assignment"
    family = "muxes"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        return [self.site(file, node, index, f"first assignment to {render(parts[0].left)} hoisted out of "
                                             f"if ({render(node.cond)})")
                for index, (node, ancestors) in enumerate(walk(tree))
                if (parts := _common_first(node)) is not None and not tests_async_control(node.cond, ancestors)]

    def rewrite(self, tree, node, ancestors, site) -> None:
        first, second = _common_first(node)
        hoisted = type(first)(first.left, ast.Rvalue(mux(copy.deepcopy(node.cond), first.right.var, second.right.var)))
        node.true_statement = _without_first(node.true_statement)
        node.false_statement = _without_first(node.false_statement)
        parent = ancestors[-1]
        if isinstance(parent, ast.Block):
            statements = list(parent.statements)
            statements.insert(statements.index(node), hoisted)
            parent.statements = tuple(statements)
        else:
            replace_child(parent, node, ast.Block((hoisted, node)))


def _first(statement: ast.Node | None) -> ast.Node | None:
    if isinstance(statement, ast.Block):
        return statement.statements[0] if statement.statements else None
    return statement


def _common_first(node: ast.Node) -> tuple[ast.Node, ast.Node] | None:
    """The first assignments of both branches when they write the same target, else None."""
    if not isinstance(node, ast.IfStatement) or node.false_statement is None:
        return None
    first, second = _first(node.true_statement), _first(node.false_statement)
    if not isinstance(first, ASSIGNMENTS) or type(second) is not type(first) or not same(first.left, second.left):
        return None
    if single_statement(node.true_statement) is first and single_statement(node.false_statement) is second:
        return None  # already a plain two-way mux
    written = _targets(first.left.var)
    if any(isinstance(item, ast.Identifier) and item.name in written for item, _ in walk(node.cond)):
        return None
    return first, second


def _targets(target: ast.Node) -> set[str]:
    """The signals an assignment target writes (not the parameters in its bounds)."""
    if isinstance(target, ast.Concat):
        return {name for item in target.list for name in _targets(item)}
    while isinstance(target, (ast.Pointer, ast.Partselect)):
        target = target.var
    return {target.name} if isinstance(target, ast.Identifier) else set()


def _without_first(statement: ast.Node) -> ast.Node:
    if isinstance(statement, ast.Block):
        return ast.Block(tuple(statement.statements[1:]))
    return ast.Block(())
