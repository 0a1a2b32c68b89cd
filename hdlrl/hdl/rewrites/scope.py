"""What the rules need to know about a module: parameter values, signal widths, expression
widths by Verilog's sizing rules, who reads and writes a signal, and the conditions that hold
on the way to a statement.

Every rewrite must keep each expression's width (Verilog sizes operators by their context),
so the rules ask here rather than guess; anything not constant (a width depending on an
unknown) is None and the rule offers no site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, Number, walk
from hdlrl.hdl.verilog_ast import IndexedPartselect

# Expressions whose width is their own, whatever the context: an operand of these kinds keeps its
# value when it is moved to a port of its own width (`x + y` inside a wider sum does not).
SELF_DETERMINED = (ast.Identifier, ast.Pointer, ast.Partselect, IndexedPartselect, ast.Concat, ast.Repeat)

PORT_KINDS = {ast.Input: "input", ast.Output: "output", ast.Inout: "inout"}
NET_KINDS = {ast.Reg: "reg", ast.Wire: "wire", ast.Integer: "integer", ast.Tri: "wire"}
_ARITHMETIC = {ast.Plus: lambda a, b: a + b, ast.Minus: lambda a, b: a - b, ast.Times: lambda a, b: a * b,
               ast.Divide: lambda a, b: a // b if b else None, ast.Mod: lambda a, b: a % b if b else None,
               ast.Power: lambda a, b: a ** b if 0 <= b < 64 else None, ast.Sll: lambda a, b: a << b,
               ast.Srl: lambda a, b: a >> b, ast.And: lambda a, b: a & b, ast.Or: lambda a, b: a | b,
               ast.Xor: lambda a, b: a ^ b, ast.Eq: lambda a, b: int(a == b), ast.NotEq: lambda a, b: int(a != b),
               ast.LessThan: lambda a, b: int(a < b), ast.GreaterThan: lambda a, b: int(a > b),
               ast.LessEq: lambda a, b: int(a <= b), ast.GreaterEq: lambda a, b: int(a >= b)}
# Operators whose result takes the width of the wider operand (and of the context).
CONTEXT_SIZED = (ast.Plus, ast.Minus, ast.Times, ast.Divide, ast.Mod, ast.And, ast.Or, ast.Xor, ast.Xnor)
ONE_BIT = (ast.Eq, ast.NotEq, ast.Eql, ast.NotEql, ast.LessThan, ast.GreaterThan, ast.LessEq, ast.GreaterEq,
           ast.Land, ast.Lor, ast.Ulnot, ast.Uand, ast.Unand, ast.Uor, ast.Unor, ast.Uxor, ast.Uxnor)
COMPARISONS = {ast.LessThan: "<", ast.LessEq: "<=", ast.GreaterThan: ">", ast.GreaterEq: ">=", ast.Eq: "==",
               ast.NotEq: "!="}
_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


@dataclass(frozen=True)
class Signal:
    name: str
    width: int | None  # None when a bound is not a constant
    kind: str  # reg, wire, integer
    port: str  # "", input, output, inout
    signed: bool
    array: bool  # a memory: `reg [7:0] m [0:15]`


def bits_for(value: int) -> int:
    """Bits an unsigned value needs (at least one)."""
    return max(value.bit_length(), 1)


def literal(value: int, width: int) -> ast.IntConst:
    return ast.IntConst(f"{width}'d{value % (1 << width)}")


def fresh_name(scope: "Scope", wanted: str) -> str:
    """`wanted`, or `wanted_N` when the module already declares that name."""
    name, number = wanted, 1
    while name in scope.signals or name in scope.parameters:
        name, number = f"{wanted}_{number}", number + 1
    return name


def modules(tree: ast.Node) -> list[ast.ModuleDef]:
    return [node for node, _ in walk(tree) if isinstance(node, ast.ModuleDef)]


def enclosing_module(ancestors: tuple[ast.Node, ...]) -> ast.ModuleDef:
    return next(node for node in reversed(ancestors) if isinstance(node, ast.ModuleDef))


class Scopes:
    """One `Scope` per module of a tree, built the first time a node inside it asks."""

    def __init__(self) -> None:
        self._by_module: dict[int, Scope] = {}

    def of(self, ancestors: tuple[ast.Node, ...]) -> Scope:
        module = enclosing_module(ancestors)
        if id(module) not in self._by_module:
            self._by_module[id(module)] = Scope(module)
        return self._by_module[id(module)]


class Scope:
    """Parameters and signals of one module, and widths of its expressions."""

    def __init__(self, module: ast.ModuleDef):
        self.module = module
        self.parameters: dict[str, int] = {}
        self.parameter_widths: dict[str, int] = {}
        self.signals: dict[str, Signal] = {}
        declarations: dict[str, dict] = {}
        for node, _ in walk(module):
            if isinstance(node, (ast.Parameter, ast.Localparam)):
                value = self.constant(node.value.var)
                if value is not None:
                    self.parameters[node.name] = value
                    self.parameter_widths[node.name] = (self.range_width(node.width) if node.width else
                                                        self.width(node.value.var)) or 32
            elif type(node) in PORT_KINDS or type(node) in NET_KINDS:
                entry = declarations.setdefault(node.name, {"port": "", "kind": "wire", "width": 1, "signed": False,
                                                            "array": False})
                if type(node) in PORT_KINDS:
                    entry["port"] = PORT_KINDS[type(node)]
                else:
                    entry["kind"] = NET_KINDS[type(node)]
                    entry["array"] = entry["array"] or getattr(node, "dimensions", None) is not None
                width = self.range_width(node.width) if getattr(node, "width", None) is not None else (
                    32 if isinstance(node, ast.Integer) else 1)
                if getattr(node, "width", None) is not None or isinstance(node, ast.Integer):
                    entry["width"] = width
                entry["signed"] = entry["signed"] or bool(node.signed) or isinstance(node, ast.Integer)
        self.signals = {name: Signal(name, entry["width"], entry["kind"], entry["port"], entry["signed"],
                                     entry["array"]) for name, entry in declarations.items()}

    # ------------------------------------------------------------------ constants and widths

    def constant(self, node: ast.Node | None) -> int | None:
        """The value of a constant expression (literals and parameters), else None."""
        if isinstance(node, ast.IntConst):
            number = Number.parse(node.value)
            return number.value if number else None
        if isinstance(node, ast.Identifier):
            return self.parameters.get(node.name)
        if isinstance(node, ast.Rvalue):
            return self.constant(node.var)
        if isinstance(node, ast.Uminus):
            value = self.constant(node.right)
            return None if value is None else -value
        if type(node) in _ARITHMETIC:
            left, right = self.constant(node.left), self.constant(node.right)
            return None if left is None or right is None else _ARITHMETIC[type(node)](left, right)
        if isinstance(node, ast.Cond):
            condition = self.constant(node.cond)
            return None if condition is None else self.constant(node.true_value if condition else node.false_value)
        return None

    def range_width(self, width: ast.Width | None) -> int | None:
        if width is None:
            return 1
        msb, lsb = self.constant(width.msb), self.constant(width.lsb)
        return None if msb is None or lsb is None else abs(msb - lsb) + 1

    def width(self, node: ast.Node) -> int | None:
        """The self-determined width of an expression (IEEE 1364 table 5-22), None if unknown."""
        if isinstance(node, ast.IntConst):
            number = Number.parse(node.value)
            return (number.size or 32) if number else _sized_literal_width(node.value)
        if isinstance(node, ast.Identifier):
            if node.name in self.signals:
                return self.signals[node.name].width
            return self.parameter_widths.get(node.name)
        if isinstance(node, ast.Pointer):
            signal = self.signals.get(node.var.name) if isinstance(node.var, ast.Identifier) else None
            return signal.width if signal and signal.array else 1
        if isinstance(node, ast.Partselect):
            msb, lsb = self.constant(node.msb), self.constant(node.lsb)
            return None if msb is None or lsb is None else abs(msb - lsb) + 1
        if isinstance(node, IndexedPartselect):
            return self.constant(node.width)
        if isinstance(node, ast.Concat):
            widths = [self.width(item) for item in node.list]
            return None if None in widths else sum(widths)
        if isinstance(node, ast.Repeat):
            times, width = self.constant(node.times), self.width(node.value)
            return None if times is None or width is None else times * width
        if isinstance(node, CONTEXT_SIZED):
            left, right = self.width(node.left), self.width(node.right)
            return None if left is None or right is None else max(left, right)
        if isinstance(node, (ast.Sll, ast.Srl, ast.Sla, ast.Sra, ast.Power)):
            return self.width(node.left)
        if isinstance(node, ONE_BIT):
            return 1
        if isinstance(node, (ast.Unot, ast.Uminus, ast.Uplus)):
            return self.width(node.right)
        if isinstance(node, ast.Cond):
            left, right = self.width(node.true_value), self.width(node.false_value)
            return None if left is None or right is None else max(left, right)
        if isinstance(node, (ast.Rvalue, ast.Lvalue)):
            return self.width(node.var)
        if isinstance(node, ast.SystemCall) and node.syscall in ("signed", "unsigned") and len(node.args) == 1:
            return self.width(node.args[0])
        return None

    def unsigned(self, node: ast.Node) -> bool:
        """No signed signal, signed literal or $signed anywhere in the expression."""
        for item, _ in walk(node):
            if isinstance(item, ast.Identifier) and item.name in self.signals and self.signals[item.name].signed:
                return False
            if isinstance(item, ast.IntConst) and "'s" in item.value.lower():
                return False
            if isinstance(item, ast.SystemCall) and item.syscall == "signed":
                return False
        return True

    def plain_register(self, name: str) -> bool:
        """An internal, unsigned, scalar-or-vector reg of constant width: safe to re-declare."""
        signal = self.signals.get(name)
        return (signal is not None and signal.kind == "reg" and not signal.port and not signal.signed
                and not signal.array and signal.width is not None)


def _sized_literal_width(text: str) -> int | None:
    """Width of a literal with x/z digits (Number refuses those), e.g. 4'bxx01."""
    size = text.split("'")[0]
    return int(size) if "'" in text and size.isdigit() else (32 if "'" in text else None)


# ---------------------------------------------------------------------------- uses of a signal

def identifier_uses(module: ast.ModuleDef, name: str) -> Iterator[tuple[ast.Identifier, tuple[ast.Node, ...], bool]]:
    """Every `name` identifier in the module with its ancestors and whether it is written
    (under an Lvalue; a connection to an instance port counts as neither, see `in_instance`)."""
    for node, ancestors in walk(module):
        if isinstance(node, ast.Identifier) and node.name == name:
            yield node, ancestors, any(isinstance(ancestor, ast.Lvalue) for ancestor in ancestors)


def in_instance(ancestors: tuple[ast.Node, ...]) -> bool:
    return any(isinstance(ancestor, ast.PortArg) for ancestor in ancestors)


def assignments_to(module: ast.ModuleDef, name: str) -> list[tuple[ast.Node, tuple[ast.Node, ...]]]:
    """Procedural and continuous assignments whose left side is exactly `name`."""
    found = []
    for node, ancestors in walk(module):
        if isinstance(node, ASSIGNMENTS + (ast.Assign,)) and isinstance(node.left.var, ast.Identifier) \
                and node.left.var.name == name:
            found.append((node, ancestors))
    return found


def written_partially(module: ast.ModuleDef, name: str) -> bool:
    """`name` is written through a bit or part select, or inside a concatenation."""
    for node, ancestors, written in identifier_uses(module, name):
        if written and not isinstance(ancestors[-1], ast.Lvalue):
            return True
    return False


def clocked(ancestors: tuple[ast.Node, ...]) -> ast.Always | None:
    """The edge-triggered always block a statement is in, if any."""
    always = next((node for node in reversed(ancestors) if isinstance(node, ast.Always)), None)
    if always is not None and any(getattr(sens, "type", None) in ("posedge", "negedge")
                                  for sens in getattr(always.sens_list, "list", ())):
        return always
    return None


def tests_async_control(condition: ast.Node, ancestors: tuple[ast.Node, ...]) -> bool:
    """`condition` reads an edge-sensitive signal of its always block (an asynchronous reset or
    set): that `if` is the flop template synthesis recognises and must stay as written."""
    always = clocked(ancestors)
    if always is None:
        return False
    edges = {name.name for sens in always.sens_list.list for name, _ in walk(sens) if isinstance(name, ast.Identifier)}
    return any(isinstance(name, ast.Identifier) and name.name in edges for name, _ in walk(condition))


# ---------------------------------------------------------------------------- path conditions

Constraint = tuple[str, int]  # (operator, constant) about one signal: ("<", 17) means signal < 17


def path_conditions(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[tuple[ast.Node, bool]]:
    """(condition, holds) for every `if` on the way to `node`, outermost first."""
    conditions = []
    chain = ancestors + (node,)
    for index, ancestor in enumerate(chain[:-1]):
        child = chain[index + 1]
        if isinstance(ancestor, ast.IfStatement) and child is not ancestor.cond:
            conditions.append((ancestor.cond, child is ancestor.true_statement))
    return conditions


def constraints_on(name: str, conditions: list[tuple[ast.Node, bool]], scope: Scope) -> list[Constraint]:
    """What the path conditions say about `name` compared with constants."""
    found: list[Constraint] = []
    for condition, holds in conditions:
        found += _atoms(name, condition, holds, scope)
    return found


def _atoms(name: str, condition: ast.Node, holds: bool, scope: Scope) -> list[Constraint]:
    if isinstance(condition, ast.Ulnot):
        return _atoms(name, condition.right, not holds, scope)
    if isinstance(condition, ast.Land) and holds or isinstance(condition, ast.Lor) and not holds:
        return _atoms(name, condition.left, holds, scope) + _atoms(name, condition.right, holds, scope)
    operator = COMPARISONS.get(type(condition))
    if operator is None:
        return []
    if _is(condition.left, name) and (value := scope.constant(condition.right)) is not None:
        pass
    elif _is(condition.right, name) and (value := scope.constant(condition.left)) is not None:
        operator = _MIRRORED[operator]
    else:
        return []
    return [(operator if holds else _NEGATED[operator], value)]


def _is(node: ast.Node, name: str) -> bool:
    return isinstance(node, ast.Identifier) and node.name == name


def interval(constraints: list[Constraint], width: int) -> tuple[int, int]:
    """The smallest [low, high] the constraints leave for an unsigned `width`-bit value."""
    low, high = 0, (1 << width) - 1
    for operator, value in constraints:
        if operator == "<":
            high = min(high, value - 1)
        elif operator == "<=":
            high = min(high, value)
        elif operator == ">":
            low = max(low, value + 1)
        elif operator == ">=":
            low = max(low, value)
        elif operator == "==":
            low, high = max(low, value), min(high, value)
    return low, high
