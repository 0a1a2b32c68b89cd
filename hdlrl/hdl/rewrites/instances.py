"""What every rule that replaces an operator by an instance of a generated module shares.

The adder, multiplier, shifter and comparator architecture rules all take an expression out
of its procedure or assignment and compute it instead in a module instance that runs
continuously beside it. They must agree on when that keeps the design's behaviour (the
instance can see the operands, the reading block wakes up when the result changes, the
operands keep their values on ports of their own width), on when it is worth it (a kept
structure whose result nothing reads survives as dead logic), and on how the generated module
and its instance are added, so that the answers live here once rather than in one rule that
the others borrow from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, walk
from hdlrl.hdl.rewrites.scope import (SELF_DETERMINED, Scope, Scopes, enclosing_module, fresh_name, identifier_uses,
                                      literal, modules)
from hdlrl.hdl.verilog_ast import parse_verilog

# The prefix of the modules and nets a rewrite adds. Rewritten designs are candidates, so it
# cannot be the gate's reserved `hdlrl_`.
REWRITE_PREFIX = "rewrite_"

# Where a continuous instance cannot stand in: it would read a function's or task's
# arguments, or a generate block's local names, from the module.
LOCAL_SCOPES = (ast.Function, ast.Task, ast.GenerateStatement)


# ---------------------------------------------------------------------------- where an instance keeps behaviour

def instance_can_stand_in(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> bool:
    """A continuously computing instance gives `node` the value it has where it is evaluated.

    Not where the operands are local names (a function, task or generate block) or change
    within a procedure (a loop, a blocking variable), and not where the reading block would not
    wake up when the instance's output changes: an `initial` block, or an `always` block with
    an explicit list of level-sensitive signals. An `@*` list grows to include the new wire,
    and an edge-triggered block reads it settled.
    """
    if any(isinstance(ancestor, LOCAL_SCOPES + (ast.Initial,)) for ancestor in ancestors):
        return False
    always = next((ancestor for ancestor in reversed(ancestors) if isinstance(ancestor, ast.Always)), None)
    sensitivity = getattr(always.sens_list, "list", None) if always is not None else ()
    if sensitivity is None or any(sens.type == "level" for sens in sensitivity):
        return False
    return not reads_procedural_values(node, ancestors)


def reads_procedural_values(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> bool:
    """The operands are values only a procedure sees (a loop's iteration, a blocking variable
    of the same block), which a continuously driven instance cannot read."""
    if any(isinstance(ancestor, (ast.ForStatement, ast.WhileStatement)) for ancestor in ancestors):
        return True
    always = next((ancestor for ancestor in reversed(ancestors) if isinstance(ancestor, ast.Always)), None)
    if always is None:
        return False
    blocking = {name.name for statement, _ in walk(always) if isinstance(statement, ast.BlockingSubstitution)
                for name, _ in walk(statement.left) if isinstance(name, ast.Identifier)}
    return any(isinstance(name, ast.Identifier) and name.name in blocking for name, _ in walk(node))


def plain_operand(operand: ast.Node, scope: Scope) -> bool:
    """A non-constant unsigned operand whose value does not depend on the expression around it,
    so connecting it to a port of its own width keeps its value."""
    return isinstance(operand, SELF_DETERMINED) and scope.constant(operand) is None and scope.unsigned(operand)


def extended(operand: ast.Node, width: int, scope: Scope) -> ast.Node:
    """`operand` zero-extended to `width` bits, so a port connection never changes its value."""
    missing = width - scope.width(operand)
    return ast.Concat((literal(0, missing), operand)) if missing else operand


# ---------------------------------------------------------------------------- where an instance pays

def result_used(assignment: ast.Node, scope: Scope) -> bool:
    """Some target of the assignment is an output or read other than by its own updates: a
    kept structure is never removed as dead logic, so an unused result must not get one."""
    for target, _ in walk(assignment.left):
        if isinstance(target, ast.Identifier):
            if scope.signals.get(target.name) and scope.signals[target.name].port == "output":
                return True
            for _, ancestors, written in identifier_uses(scope.module, target.name):
                own = next((node for node in reversed(ancestors)
                            if isinstance(node, ASSIGNMENTS + (ast.Assign,))), None)
                if not written and not (own is not None and render(own.left) == render(assignment.left)):
                    return True
    return False


# ---------------------------------------------------------------------------- adding the module and its instance

def parsed_module(lines: list[str]) -> ast.ModuleDef:
    """The module the lines write, as the AST the rule inserts (and the parser checks)."""
    tree = parse_verilog("\n".join(lines + ["endmodule"]) + "\n").tree
    return tree.description.definitions[0]


def instance_output(tree: ast.Source, module: ast.ModuleDef, generated: str, build: Callable[[], ast.ModuleDef],
                    inputs: dict[str, ast.Node], output: tuple[str, int], wanted: str) -> ast.Identifier:
    """A fresh wire in `module` (named after `wanted`) driven by the (port, width) `output` of
    an instance of `generated` fed with `inputs`; the module is added to the file unless it
    already is."""
    if generated not in {definition.name for definition in modules(tree)}:
        tree.description.definitions = tuple(tree.description.definitions) + (build(),)
    port, width = output
    wire = fresh_name(Scope(module), f"{REWRITE_PREFIX}{wanted}")
    ports = tuple(ast.PortArg(name, value) for name, value in inputs.items()) + (
        ast.PortArg(port, ast.Identifier(wire)),)
    instance = ast.InstanceList(generated, (), (ast.Instance(generated, f"{wire}_unit", ports, ()),))
    bits = ast.Width(ast.IntConst(str(width - 1)), ast.IntConst("0")) if width > 1 else None
    module.items = (ast.Decl((ast.Wire(wire, bits),)),) + tuple(module.items) + (instance,)
    return ast.Identifier(wire)


def operator_nodes(tree: ast.Source, kinds: tuple[type, ...], on_the_right: bool = True
                   ) -> Iterator[tuple[int, ast.Node, tuple[ast.Node, ...], Scope]]:
    """Every node of `kinds` (on the right of an assignment, unless `on_the_right` is False)
    outside the modules a rewrite generated: its index in walk order, ancestors and scope."""
    scopes = Scopes()
    for index, (node, ancestors) in enumerate(walk(tree)):
        if isinstance(node, kinds) and (isinstance(ancestors[-1], ast.Rvalue) or not on_the_right) \
                and not enclosing_module(ancestors).name.startswith(REWRITE_PREFIX):
            yield index, node, ancestors, scopes.of(ancestors)
