"""State encoding: the codes an FSM's named states get.

The encoding decides the flop count (clog2(n) or n), how much logic decodes the state, and
how many flops toggle per transition. The original parameters stay declared (they are part
of the module's interface); new localparams carry the chosen codes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, replace_child, walk
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.scope import (Scope, Scopes, assignments_to, bits_for, enclosing_module, fresh_name,
                                      identifier_uses, in_instance, literal, written_partially)

ENCODINGS = ("binary", "gray", "one_hot")
CASES = (ast.CaseStatement, ast.CasexStatement, ast.CasezStatement)


@dataclass
class StateMachine:
    """The state registers of one FSM and its named states (parameter name -> value)."""

    registers: set[str]
    states: dict[str, int]

    def codes(self, encoding: str) -> tuple[int, dict[str, int]]:
        """(register width, code of each state) for `encoding`, states in the order the case
        lists them, so that re-encoding an encoded machine changes nothing."""
        ordered = list(self.states)
        if encoding == "one_hot":
            return len(ordered), {name: 1 << index for index, name in enumerate(ordered)}
        width = bits_for(len(ordered) - 1)
        if encoding == "gray":
            return width, {name: index ^ (index >> 1) for index, name in enumerate(ordered)}
        return width, {name: index for index, name in enumerate(ordered)}


def find_state_machine(scope: Scope, case: ast.Node) -> StateMachine | None:
    """The FSM a `case (state)` over named constant states belongs to, else None.

    The state registers are the case's selector and every register copied to or from it
    (`state <= next_state`). They may only be loaded with named states or each other, and
    only read by case selectors, comparisons with named states, and those copies: then any
    distinct codes give the same behaviour at the ports.
    """
    if not isinstance(case.comp, ast.Identifier) or not scope.plain_register(case.comp.name):
        return None
    labels = [label for item in case.caselist if item.cond is not None for label in item.cond]
    if not labels or not all(isinstance(label, ast.Identifier) and label.name in scope.parameters for label in labels):
        return None
    states = {label.name: scope.parameters[label.name] for label in labels}
    if len(set(states.values())) != len(states) or len(states) < 3:
        return None
    registers, frontier = set(), [case.comp.name]
    while frontier:
        name = frontier.pop()
        if name in registers:
            continue
        if not scope.plain_register(name) or written_partially(scope.module, name):
            return None
        registers.add(name)
        for assignment, _ in assignments_to(scope.module, name):
            leaves = _choices(assignment.right.var)
            if leaves is None:
                return None
            for value in leaves:
                if value.name in scope.parameters:
                    states.setdefault(value.name, scope.parameters[value.name])
                else:
                    frontier.append(value.name)
        for node, ancestors, written in identifier_uses(scope.module, name):
            if written:
                continue
            use = _state_use(scope, node, ancestors)
            if use is None:
                return None
            if use in scope.parameters:
                states.setdefault(use, scope.parameters[use])
            elif use != "state":
                frontier.append(use)
    return StateMachine(registers, states) if len(set(states.values())) == len(states) else None


def _choices(value: ast.Node) -> list[ast.Identifier] | None:
    """The names a loaded value chooses among (`x ? ONE : IDLE` chooses ONE or IDLE), else None."""
    if isinstance(value, ast.Identifier):
        return [value]
    if isinstance(value, ast.Cond):
        arms = [_choices(value.true_value), _choices(value.false_value)]
        return None if None in arms else arms[0] + arms[1]
    return None


def _state_use(scope: Scope, node: ast.Identifier, ancestors: tuple[ast.Node, ...]) -> str | None:
    """"state" for a selector, the state's name for a comparison, the target's name for a copy, else None."""
    parent = ancestors[-1]
    if isinstance(parent, ast.Sens):
        return "state"
    if in_instance(ancestors):
        return None
    if isinstance(parent, CASES) and parent.comp is node:
        return "state"
    if isinstance(parent, (ast.Eq, ast.NotEq)):
        other = parent.right if parent.left is node else parent.left
        return other.name if isinstance(other, ast.Identifier) and other.name in scope.parameters else None
    if isinstance(parent, ast.Rvalue) and isinstance(ancestors[-2], ASSIGNMENTS + (ast.Assign,)):
        target = ancestors[-2].left.var
        return target.name if isinstance(target, ast.Identifier) else None
    return None


class StateEncoding(RewriteRule):
    """Re-encode an FSM's states as binary (dense, in value order), Gray or one-hot.

    Codes follow the order the case lists the states. Binary and Gray keep clog2(n) flops;
    Gray makes transitions between neighbouring states toggle one flop.
    One-hot spends n flops to turn every state test into a single flop output (`state[i]`,
    and `case (1'b1)` over the bits), which pays off for wide next-state and output logic.
    A re-encoding is exact on reachable states, so a proof may need induction: the gate
    decides.
    """

    name = "state_encoding"
    family = "fsm"
    options = ENCODINGS

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        seen: set[frozenset[str]] = set()
        scopes = Scopes()
        for index, (node, ancestors) in enumerate(walk(tree)):
            if not isinstance(node, CASES):
                continue
            scope = scopes.of(ancestors)
            machine = find_state_machine(scope, node)
            if machine is None or frozenset(machine.registers) in seen:
                continue
            seen.add(frozenset(machine.registers))
            current = {name: value for name, value in machine.states.items()}
            width = scope.signals[node.comp.name].width
            for encoding in ENCODINGS:
                if machine.codes(encoding) != (width, current):
                    sites.append(self.site(file, node, index, f"FSM {', '.join(sorted(machine.registers))}: "
                                           f"{len(machine.states)} states encoded {encoding}", encoding))
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        machine = find_state_machine(scope, node)
        width, codes = machine.codes(site.option)
        renamed = {name: fresh_name(scope, f"{name}_{site.option}") for name in machine.states}
        one_hot = site.option == "one_hot"
        bit_of = {name: index for index, name in enumerate(machine.states)}
        for register in machine.registers:
            for use, use_ancestors, written in list(identifier_uses(module, register)):
                parent = use_ancestors[-1]
                if one_hot and isinstance(parent, (ast.Eq, ast.NotEq)):
                    other = parent.right if parent.left is use else parent.left
                    test = ast.Pointer(ast.Identifier(register), ast.IntConst(str(bit_of[other.name])))
                    replace_child(use_ancestors[-2], parent, test if isinstance(parent, ast.Eq) else ast.Ulnot(test))
                elif isinstance(parent, (ast.Eq, ast.NotEq)):
                    other = parent.right if parent.left is use else parent.left
                    replace_child(parent, other, ast.Identifier(renamed[other.name]))
                elif isinstance(parent, CASES) and parent.comp is use:
                    _recode_case(parent, register, renamed, bit_of if one_hot else None)
            for assignment, _ in assignments_to(module, register):
                for value in _choices(assignment.right.var):
                    if value.name in renamed:
                        value.name = renamed[value.name]
            for declaration, _ in walk(module):
                if isinstance(declaration, ast.Reg) and declaration.name == register:
                    declaration.width = ast.Width(ast.IntConst(str(width - 1)), ast.IntConst("0"))
        declarations = ast.Decl(tuple(ast.Localparam(renamed[name], ast.Rvalue(literal(codes[name], width)))
                                      for name in machine.states))
        module.items = (declarations,) + tuple(module.items)


def _recode_case(case: ast.Node, register: str, renamed: dict[str, str], bit_of: dict[str, int] | None) -> None:
    """Labels renamed; for one-hot, `case (1'b1)` with one state bit per label."""
    items = []
    for item in case.caselist:
        if item.cond is None:
            items.append(item)
        elif bit_of is None:
            items.append(ast.Case(tuple(ast.Identifier(renamed[label.name]) for label in item.cond), item.statement))
        else:
            items.append(ast.Case(tuple(ast.Pointer(ast.Identifier(register), ast.IntConst(str(bit_of[label.name])))
                                        for label in item.cond), item.statement))
    case.caselist = tuple(items)
    if bit_of is not None:
        case.comp = ast.IntConst("1'b1")

