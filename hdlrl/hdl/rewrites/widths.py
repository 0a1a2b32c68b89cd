"""Width trimming: flops and arithmetic wider than the values they can ever hold.

Synthesis keeps every declared flop unless it can prove it constant, and sizes arithmetic by
Verilog's rules (an unsized `1` makes `i - 1` 32 bits wide). A designer who knows the value
range trims both; these rules find the range from the code itself.
"""

from __future__ import annotations

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import render, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.scope import (COMPARISONS, CONTEXT_SIZED, Scope, Scopes, assignments_to, bits_for, clocked,
                                      constraints_on, enclosing_module, identifier_uses, in_instance, interval,
                                      literal, path_conditions, written_partially)


def counter_bound(scope: Scope, name: str) -> int | None:
    """The largest value register `name` can hold, when it is a bounded counter, else None.

    A bounded counter starts from constants (reset or initial value), is otherwise loaded
    with constants, held, or incremented by a constant step under a guard that bounds it
    (`if (cnt < K)`, or the `else` of `if (cnt == K)` where K is the largest value). By
    induction on the clock cycles it then never exceeds the returned bound.
    """
    module = scope.module
    if written_partially(module, name):
        return None
    constants: list[int] = []
    limits: list[int] = []
    stops: list[int] = []  # K of increments guarded only by `cnt != K`
    for node, ancestors in assignments_to(module, name):
        if clocked(ancestors) is None and not any(isinstance(ancestor, ast.Initial) for ancestor in ancestors):
            return None
        value = node.right.var
        if (constant := scope.constant(value)) is not None:
            if constant < 0:
                return None
            constants.append(constant)
            continue
        if isinstance(value, ast.Identifier) and value.name == name:
            continue
        step = _increment_step(value, name, scope)
        if step is None:
            return None
        constraints = constraints_on(name, path_conditions(node, ancestors), scope)
        high = interval(constraints, scope.signals[name].width)[1]
        if high < (1 << scope.signals[name].width) - 1:
            limits.append(high + step)
        elif step == 1 and any(operator == "!=" for operator, _ in constraints):
            stops.append(next(value for operator, value in constraints if operator == "!="))
        else:
            return None
    if not constants:
        return None  # no known starting value
    bound = max(constants + limits + stops)
    return bound if all(stop == bound for stop in stops) else None


def _increment_step(value: ast.Node, name: str, scope: Scope) -> int | None:
    if not isinstance(value, ast.Plus):
        return None
    for counter, step in ((value.left, value.right), (value.right, value.left)):
        if isinstance(counter, ast.Identifier) and counter.name == name:
            amount = scope.constant(step)
            return amount if amount is not None and amount > 0 else None
    return None


class CounterWidth(RewriteRule):
    """Trim a bounded counter's register to the bits its largest value needs.

    Removes flops that are always zero, and narrows the counter's incrementer and every
    comparator that reads it. Helps clock dividers and sequencers that declare a 4- or 8-bit
    counter for a count of 3 or 50. Reads are zero-extended back to the old width, so every
    expression keeps its width; it is exact whenever the bound analysis is (`counter_bound`).
    """

    name = "counter_width"
    family = "widths"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, ast.Reg) or not isinstance(ancestors[-1], ast.Decl):
                continue
            scope = scopes.of(ancestors)
            target = self._trimmed_width(scope, node.name)
            if target is not None:
                sites.append(self.site(file, node, index, f"counter {node.name}: "
                                       f"{scope.signals[node.name].width} -> {target} bits"))
        return sites

    def _trimmed_width(self, scope: Scope, name: str) -> int | None:
        if not scope.plain_register(name) or scope.constant(_lsb(scope.module, name)) != 0:
            return None
        bound = counter_bound(scope, name)
        if bound is None or bits_for(bound) >= scope.signals[name].width:
            return None
        target = bits_for(bound)
        for node, ancestors, written in identifier_uses(scope.module, name):
            if in_instance(ancestors):
                return None
            parent = ancestors[-1]
            if isinstance(parent, ast.Partselect) and parent.var is node:
                return None
            if isinstance(parent, ast.Pointer) and parent.var is node and scope.constant(parent.ptr) is None:
                return None
        return target

    def rewrite(self, tree, node, ancestors, site) -> None:
        """Narrow the declaration, load constants and increments at the new width (they
        truncate alike), and zero-extend every other read back to the old width."""
        module = enclosing_module(ancestors)
        scope = Scope(module)
        old, new = scope.signals[node.name].width, self._trimmed_width(scope, node.name)
        for declaration, _ in walk(module):
            if isinstance(declaration, ast.Reg) and declaration.name == node.name:
                declaration.width = ast.Width(ast.IntConst(str(new - 1)), ast.IntConst("0"))
        narrow_reads = set()
        for assignment, _ in assignments_to(module, node.name):
            value = assignment.right.var
            if (constant := scope.constant(value)) is not None:
                assignment.right.var = literal(constant, new)
            elif (step := _increment_step(value, node.name, scope)) is not None:
                assignment.right.var = ast.Plus(ast.Identifier(node.name), literal(step, new))
                narrow_reads.add(id(assignment.right.var.left))
        for use, use_ancestors, written in list(identifier_uses(module, node.name)):
            parent = use_ancestors[-1]
            if written or isinstance(parent, ast.Sens) or id(use) in narrow_reads \
                    or _widened_anyway(parent, use, old, scope):
                continue
            if isinstance(parent, ast.Pointer) and parent.var is use:
                if scope.constant(parent.ptr) >= new:
                    replace_child(use_ancestors[-2], parent, ast.IntConst("1'b0"))
                continue
            replace_child(parent, use, ast.Concat((literal(0, old - new), ast.Identifier(use.name))))


def _widened_anyway(parent: ast.Node, use: ast.Node, width: int, scope: Scope) -> bool:
    """An operand whose partner is at least `width` bits wide is zero-extended to it regardless."""
    if not isinstance(parent, CONTEXT_SIZED + tuple(COMPARISONS)):
        return False
    other = parent.right if parent.left is use else parent.left
    other_width = scope.width(other)
    return other_width is not None and other_width >= width and scope.unsigned(other)


def _lsb(module: ast.ModuleDef, name: str) -> ast.Node | None:
    for node, _ in walk(module):
        if isinstance(node, ast.Reg) and node.name == name and node.width is not None:
            return node.width.lsb
    return ast.IntConst("0")


class GuardedIndexWidth(RewriteRule):
    """Compute `i - c` / `i + c` in a bit index or shift amount at the width its guarded range needs.

    An unsized constant makes `v[i-1]` or `x << (i-1)` do 32-bit arithmetic, and a shifter
    whose amount has 32 bits (5 after synthesis trims the obvious) has a mux level per bit.
    When the enclosing conditions bound `i` (`if (i > 0 && i < 17)`), the offset index fits
    in fewer bits: one mux level and one adder bit less per bit saved. Without such a guard,
    an index into a W-bit vector is computed on clog2(W) bits (an out-of-range index reads X,
    so this is a designer's call, and the gate's).
    """

    name = "index_arithmetic_width"
    family = "widths"

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, (ast.Plus, ast.Minus)) or not _self_determined_index(node, ancestors):
                continue
            scope = scopes.of(ancestors)
            target = self._target_width(scope, node, ancestors)
            if target is not None:
                sites.append(self.site(file, node, index, f"{render(node)} computed on {target} bits"))
        return sites

    def _target_width(self, scope: Scope, node: ast.Node, ancestors: tuple[ast.Node, ...]) -> int | None:
        variable, offset = node.left, scope.constant(node.right)
        if not isinstance(variable, ast.Identifier) or offset is None or offset < 0 \
                or variable.name not in scope.signals or not scope.unsigned(node):
            return None
        width = scope.signals[variable.name].width
        current = scope.width(node)
        if width is None or current is None:
            return None
        low, high = interval(constraints_on(variable.name, path_conditions(node, ancestors), scope), width)
        if (low, high) != (0, (1 << width) - 1):
            if isinstance(node, ast.Minus) and low < offset:
                return None
            target = bits_for(high - offset if isinstance(node, ast.Minus) else high + offset)
        elif isinstance(ancestors[-1], ast.Pointer) and (vector := _vector_width(scope, ancestors[-1])):
            target = bits_for(vector - 1)
        else:
            return None
        return target if target < current else None

    def rewrite(self, tree, node, ancestors, site) -> None:
        scope = Scope(enclosing_module(ancestors))
        target = self._target_width(scope, node, ancestors)
        variable = node.left
        if target < scope.signals[variable.name].width:
            variable = ast.Partselect(ast.Identifier(variable.name), ast.IntConst(str(target - 1)), ast.IntConst("0"))
        replace_child(ancestors[-1], node, type(node)(variable, literal(scope.constant(node.right), target)))


def _self_determined_index(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> bool:
    parent = ancestors[-1]
    return (isinstance(parent, ast.Pointer) and parent.ptr is node) or (
        isinstance(parent, (ast.Sll, ast.Srl, ast.Sla, ast.Sra)) and parent.right is node)


def _vector_width(scope: Scope, pointer: ast.Pointer) -> int | None:
    if not isinstance(pointer.var, ast.Identifier) or pointer.var.name not in scope.signals:
        return None
    signal = scope.signals[pointer.var.name]
    return None if signal.array else signal.width
