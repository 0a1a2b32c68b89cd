"""Resource sharing: one adder or multiplier where the RTL implies one per branch.

Yosys shares an operator only between identical cells; a mux between two adders stays two
adders, and a conditional accumulation stays an adder plus a mux. Moving the mux onto the
operands leaves one operator, and lets Yosys merge chains of additions into one multi-operand
adder (a carry-save tree). All three rules keep every expression's width and are exact.
"""

from __future__ import annotations

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.scope import Scope, Scopes, enclosing_module, literal, tests_async_control

SHAREABLE = (ast.Plus, ast.Minus, ast.Times)


def single_statement(statement: ast.Node | None) -> ast.Node | None:
    """The one statement of a branch (unwrapping `begin ... end`), else None."""
    while isinstance(statement, ast.Block) and len(statement.statements) == 1:
        statement = statement.statements[0]
    return statement


def same(first: ast.Node, second: ast.Node) -> bool:
    return render(first) == render(second)


def mux(condition: ast.Node, when_true: ast.Node, when_false: ast.Node) -> ast.Node:
    """`condition ? a : b`, or just `a` when both arms are the same expression."""
    return when_true if same(when_true, when_false) else ast.Cond(condition, when_true, when_false)


class GatedAccumulate(RewriteRule):
    """`if (c) x = x + e;` becomes `x = x + (c ? e : 0);`: an AND-gated operand instead of a
    mux after the adder.

    In a combinational loop (shift-add multipliers) the unconditional additions chain into
    one multi-operand adder that Yosys builds as a carry-save tree: the multiplier gets the
    array structure of `*`. In a clocked block it trades a register enable for gating.
    """

    name = "gated_accumulate"
    family = "sharing"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        return [self.site(file, node, index, f"if ({render(node.cond)}) accumulation made unconditional")
                for index, (node, ancestors) in enumerate(walk(tree)) if self._parts(node) is not None]

    def _parts(self, node: ast.Node) -> tuple[ast.Node, ast.Node, bool] | None:
        """(assignment, added operand, accumulator on the left) of a conditional accumulation."""
        if not isinstance(node, ast.IfStatement):
            return None
        assignment = single_statement(node.true_statement)
        otherwise = single_statement(node.false_statement)
        if not isinstance(assignment, ASSIGNMENTS) or not isinstance(assignment.right.var, (ast.Plus, ast.Minus)):
            return None
        if otherwise is not None and not (type(otherwise) is type(assignment) and same(otherwise.left, assignment.left)
                                          and same(otherwise.right.var, assignment.left.var)):
            return None
        total, target = assignment.right.var, assignment.left.var
        if same(total.left, target):
            return assignment, total.right, True
        if isinstance(total, ast.Plus) and same(total.right, target):
            return assignment, total.left, False
        return None

    def rewrite(self, tree, node, ancestors, site) -> None:
        assignment, operand, accumulator_left = self._parts(node)
        total = assignment.right.var
        width = Scope(enclosing_module(ancestors)).width(operand)
        gated = ast.Cond(node.cond, operand, literal(0, width) if width else ast.IntConst("1'b0"))
        new_total = type(total)(total.left, gated) if accumulator_left else type(total)(gated, total.right)
        replace_child(ancestors[-1], node, type(assignment)(assignment.left, ast.Rvalue(new_total)))


class SharedOperator(RewriteRule):
    """`c ? a + b : d + e` becomes `(c ? a : d) + (c ? b : e)`: one adder (subtractor,
    multiplier) behind two operand muxes instead of two operators behind a result mux.

    Also for an `if`/`else` assigning one target from two such expressions, and for `+`
    against `- k` with a literal k (`x - k` is `x + (-k)` at the context width). Helps up/down counters,
    sign-magnitude adders and ALUs; a loss where the operand muxes cost more than the
    operator (narrow or constant operands).
    """

    name = "shared_operator"
    family = "sharing"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            arms = self._arms(node)
            if arms is None:
                continue
            scope = scopes.of(ancestors)
            values = arms[1:]
            if all(scope.unsigned(arm) and scope.constant(arm) is None for arm in values) and _shared(*values) \
                    and not tests_async_control(arms[0], ancestors):
                sites.append(self.site(file, node, index, f"one operator for both arms of ({render(arms[0])})"))
        return sites

    def _arms(self, node: ast.Node) -> tuple[ast.Node, ast.Node, ast.Node] | None:
        """(condition, true expression, false expression) of a ternary or an if/else pair of assignments."""
        if isinstance(node, ast.Cond):
            return node.cond, node.true_value, node.false_value
        if isinstance(node, ast.IfStatement):
            first, second = single_statement(node.true_statement), single_statement(node.false_statement)
            if isinstance(first, ASSIGNMENTS) and type(second) is type(first) and same(first.left, second.left):
                return node.cond, first.right.var, second.right.var
        return None

    def rewrite(self, tree, node, ancestors, site) -> None:
        condition, when_true, when_false = self._arms(node)
        operator, (left_true, right_true), (left_false, right_false) = _shared(when_true, when_false)
        shared = operator(mux(condition, left_true, left_false), mux(condition, right_true, right_false))
        if isinstance(node, ast.Cond):
            replace_child(ancestors[-1], node, shared)
        else:
            assignment = single_statement(node.true_statement)
            replace_child(ancestors[-1], node, type(assignment)(assignment.left, ast.Rvalue(shared)))


def _shared(first: ast.Node, second: ast.Node) -> tuple[type, tuple, tuple] | None:
    """The operator both arms can use and each arm's (left, right) operands for it, else None."""
    if not isinstance(first, SHAREABLE) or not isinstance(second, SHAREABLE):
        return None
    if type(first) is type(second):
        operator, pairs = type(first), [(first.left, first.right), (second.left, second.right)]
    elif {type(first), type(second)} == {ast.Plus, ast.Minus} and _constant_subtrahend(first, second):
        operator, pairs = ast.Plus, [_as_sum(first), _as_sum(second)]
    else:
        return None
    (a, b), (c, d) = pairs
    if operator is not ast.Minus and not same(a, c) and (same(a, d) or same(b, c)):
        c, d = d, c  # line up the operand both arms share, so it needs no mux
    if same(a, c) and same(b, d):
        return None  # identical arms: nothing to share
    return operator, (a, b), (c, d)


def _constant_subtrahend(first: ast.Node, second: ast.Node) -> bool:
    """`x - k` with a literal k: adding -k is free, negating a signal would cost an incrementer."""
    subtraction = first if isinstance(first, ast.Minus) else second
    return isinstance(subtraction.right, ast.IntConst)


def _as_sum(node: ast.Node) -> tuple[ast.Node, ast.Node]:
    return (node.left, node.right) if isinstance(node, ast.Plus) else (node.left, ast.Uminus(node.right))


class CompareOffset(RewriteRule):
    """`x == y - k` becomes `x + k == y`, so the comparison reuses the incrementer `x + k` the
    counter already has instead of a decrementer of its own.

    Exact: both sides are reduced modulo 2^W at the comparison's width W, which the rewrite
    keeps. Helps programmable dividers and timers (`count == period - 1`).
    """

    name = "compare_offset"
    family = "sharing"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, (ast.Eq, ast.NotEq)):
                continue
            scope = scopes.of(ancestors)
            if self._parts(node, scope) is not None and scope.unsigned(node):
                sites.append(self.site(file, node, index, f"{render(node)}: offset moved to the other side"))
        return sites

    def _parts(self, node: ast.Node, scope: Scope) -> tuple[ast.Node, ast.Node, ast.Node] | None:
        """(compared expression, minuend y, offset k) of `x == y - k` in either order."""
        for other, difference in ((node.left, node.right), (node.right, node.left)):
            if isinstance(difference, ast.Minus) and scope.constant(difference.right) is not None \
                    and scope.constant(difference.left) is None and scope.constant(other) is None:
                return other, difference.left, difference.right
        return None

    def rewrite(self, tree, node, ancestors, site) -> None:
        other, minuend, offset = self._parts(node, Scope(enclosing_module(ancestors)))
        replace_child(ancestors[-1], node, type(node)(ast.Plus(other, offset), minuend))
