"""A small evaluator for combinational modules: continuous assigns and instances of modules
of the same file, on concrete input values.

Rules use it to recognise what a hand-built block computes (a ripple or carry-lookahead adder
is an adder however its gates are written) by checking a hypothesis on corner and random
vectors; the verification gate then proves the rewrite. Anything outside this subset
(procedural blocks, parameters, unknown modules, non-constant selects) makes `evaluate`
return None: no guess is made.
"""

from __future__ import annotations

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import Number
from hdlrl.hdl.rewrites.scope import Scope

_CONTEXT_OPERATORS = {ast.Plus: lambda a, b: a + b, ast.Minus: lambda a, b: a - b, ast.Times: lambda a, b: a * b,
                      ast.And: lambda a, b: a & b, ast.Or: lambda a, b: a | b, ast.Xor: lambda a, b: a ^ b,
                      ast.Xnor: lambda a, b: ~(a ^ b)}
_TESTS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.LessThan: lambda a, b: a < b,
          ast.GreaterThan: lambda a, b: a > b, ast.LessEq: lambda a, b: a <= b, ast.GreaterEq: lambda a, b: a >= b,
          ast.Land: lambda a, b: bool(a) and bool(b), ast.Lor: lambda a, b: bool(a) or bool(b)}
MAX_DEPTH = 16  # instance nesting


class Unsupported(Exception):
    """The module uses something outside the evaluated subset."""


class Evaluator:
    """Evaluates modules of one file; each module is analysed once however often it is run."""

    def __init__(self, definitions: dict[str, ast.ModuleDef]):
        self.definitions = definitions
        self.analysed: dict[str, tuple[Scope, dict[str, int]]] = {}  # module -> (scope, lsb of each vector)

    def outputs(self, top: str, inputs: dict[str, int]) -> dict[str, int] | None:
        """Every output of module `top` for the given input values, or None if it cannot be evaluated."""
        try:
            return _Evaluation(self, self.definitions[top], inputs, 0).outputs()
        except (Unsupported, KeyError, RecursionError):
            return None


class _Evaluation:
    def __init__(self, evaluator: Evaluator, module: ast.ModuleDef, inputs: dict[str, int], depth: int):
        if depth > MAX_DEPTH:
            raise Unsupported("instances nested too deep")
        self.evaluator = evaluator
        self.module = module
        if module.name not in evaluator.analysed:
            scope = Scope(module)
            evaluator.analysed[module.name] = (scope, _lsbs(module, scope))
        self.scope, self.lsb = evaluator.analysed[module.name]
        self.depth = depth
        self.bits: dict[str, dict[int, int]] = {}  # net -> known bits (by index from its lsb)
        for name, value in inputs.items():
            self._write(name, 0, self._width(name), value)

    def outputs(self) -> dict[str, int]:
        pending = [item for item in self._items()]
        while pending:
            progress = False
            for item in list(pending):
                if self._try(item):
                    pending.remove(item)
                    progress = True
            if not progress:
                raise Unsupported("a net is never driven, or the logic loops")
        outputs = {}
        for name, signal in self.scope.signals.items():
            if signal.port == "output":
                value = self._read(name)
                if value is None:
                    raise Unsupported(f"output {name} is not driven")
                outputs[name] = value
        return outputs

    def _items(self) -> list[ast.Node]:
        items = []
        for item in self.module.items:
            if isinstance(item, ast.Assign):
                items.append(item)
            elif isinstance(item, ast.InstanceList):
                items += list(item.instances)
            elif isinstance(item, ast.Decl):
                items += [entry for entry in item.list if isinstance(entry, ast.Assign)]
            else:
                raise Unsupported(f"{type(item).__name__} is not combinational structure")
        return items

    # ------------------------------------------------------------------ nets

    def _width(self, name: str) -> int:
        signal = self.scope.signals.get(name)
        if signal is None or signal.width is None or signal.array:
            raise Unsupported(f"net {name} has no constant width")
        return signal.width

    def _read(self, name: str, low: int = 0, width: int | None = None) -> int | None:
        width = self._width(name) if width is None else width
        known = self.bits.get(name, {})
        if any(low + bit not in known for bit in range(width)):
            return None
        return sum(known[low + bit] << bit for bit in range(width))

    def _write(self, name: str, low: int, width: int, value: int) -> None:
        known = self.bits.setdefault(name, {})
        for bit in range(width):
            known[low + bit] = (value >> bit) & 1

    # ------------------------------------------------------------------ statements

    def _try(self, item: ast.Node) -> bool:
        """Evaluate one assign or instance if all it reads is known; True when done."""
        if isinstance(item, ast.Instance):
            return self._instance(item)
        targets = self._targets(item.left.var)
        value = self._value(item.right.var, sum(width for _, _, width in targets))
        if value is None:
            return False
        offset = 0
        for name, low, width in reversed(targets):
            self._write(name, low, width, value >> offset)
            offset += width
        return True

    def _targets(self, node: ast.Node) -> list[tuple[str, int, int]]:
        """(net, low bit, width) of each part of an assignment target, MSB first."""
        if isinstance(node, ast.Concat):
            return [target for item in node.list for target in self._targets(item)]
        if isinstance(node, ast.Identifier):
            return [(node.name, 0, self._width(node.name))]
        if isinstance(node, (ast.Pointer, ast.Partselect)) and isinstance(node.var, ast.Identifier):
            low, width = self._select(node)
            return [(node.var.name, low, width)]
        raise Unsupported(f"assignment target {type(node).__name__}")

    def _select(self, node: ast.Node) -> tuple[int, int]:
        """(low bit from the net's lsb, width) of a constant bit or part select."""
        lsb = self.lsb.get(node.var.name, 0)
        if isinstance(node, ast.Pointer):
            index = self.scope.constant(node.ptr)
            if index is None:
                raise Unsupported("a non-constant bit select")
            return index - lsb, 1
        high, low = self.scope.constant(node.msb), self.scope.constant(node.lsb)
        if high is None or low is None:
            raise Unsupported("a non-constant part select")
        return min(high, low) - lsb, abs(high - low) + 1

    def _instance(self, instance: ast.Instance) -> bool:
        definitions = self.evaluator.definitions
        if instance.parameterlist or instance.module not in definitions:
            raise Unsupported(f"instance of {instance.module}")
        child_evaluation = _Evaluation(self.evaluator, definitions[instance.module], {}, self.depth + 1)
        if any(port.portname is None for port in instance.portlist):
            raise Unsupported("ordered port connections")
        connections = {port.portname: port.argname for port in instance.portlist}
        inputs = {}
        for name, signal in child_evaluation.scope.signals.items():
            if signal.port == "input":
                if connections.get(name) is None:
                    raise Unsupported(f"input {name} of {instance.module} unconnected")
                value = self._value(connections[name], signal.width)
                if value is None:
                    return False
                inputs[name] = value
        for name, value in inputs.items():
            child_evaluation._write(name, 0, child_evaluation._width(name), value)
        results = child_evaluation.outputs()
        for name, value in results.items():
            if connections.get(name) is not None:
                targets = self._targets(connections[name])
                offset = 0
                for net, low, width in reversed(targets):
                    self._write(net, low, width, value >> offset)
                    offset += width
        return True

    # ------------------------------------------------------------------ expressions

    def _value(self, node: ast.Node, width: int) -> int | None:
        """`node` evaluated at context width `width` (masked), None while an input is unknown."""
        mask = (1 << width) - 1
        if isinstance(node, ast.IntConst):
            number = Number.parse(node.value)
            if number is None:
                raise Unsupported("a literal with x or z")
            return number.value & mask
        if isinstance(node, ast.Identifier):
            if node.name in self.scope.parameters:
                return self.scope.parameters[node.name] & mask
            value = self._read(node.name)
            return None if value is None else value & mask
        if isinstance(node, (ast.Pointer, ast.Partselect)) and isinstance(node.var, ast.Identifier):
            low, part = self._select(node)
            value = self._read(node.var.name, low, part)
            return None if value is None else value & mask
        if isinstance(node, ast.Concat):
            value = 0
            for item in node.list:
                item_width = self._self_width(item)
                part = self._value(item, item_width)
                if part is None:
                    return None
                value = (value << item_width) | part
            return value & mask
        if isinstance(node, ast.Repeat):
            times, item_width = self.scope.constant(node.times), self._self_width(node.value)
            if times is None:
                raise Unsupported("a non-constant repeat")
            part = self._value(node.value, item_width)
            if part is None:
                return None
            return sum(part << (index * item_width) for index in range(times)) & mask
        if type(node) in _CONTEXT_OPERATORS:
            left, right = self._value(node.left, width), self._value(node.right, width)
            return None if left is None or right is None else _CONTEXT_OPERATORS[type(node)](left, right) & mask
        if isinstance(node, ast.Unot):
            value = self._value(node.right, width)
            return None if value is None else ~value & mask
        if isinstance(node, ast.Ulnot):
            value = self._value(node.right, self._self_width(node.right))
            return None if value is None else int(value == 0)
        if type(node) in _TESTS:
            operand_width = max(self._self_width(node.left), self._self_width(node.right))
            if isinstance(node, (ast.Land, ast.Lor)):
                left = self._value(node.left, self._self_width(node.left))
                right = self._value(node.right, self._self_width(node.right))
            else:
                left, right = self._value(node.left, operand_width), self._value(node.right, operand_width)
            return None if left is None or right is None else int(_TESTS[type(node)](left, right))
        if isinstance(node, ast.Cond):
            condition = self._value(node.cond, self._self_width(node.cond))
            if condition is None:
                return None
            return self._value(node.true_value if condition else node.false_value, width)
        raise Unsupported(f"expression {type(node).__name__}")

    def _self_width(self, node: ast.Node) -> int:
        width = self.scope.width(node)
        if width is None:
            raise Unsupported("an expression of unknown width")
        return width


def _lsbs(module: ast.ModuleDef, scope: Scope) -> dict[str, int]:
    """The declared lsb of every vector (`input [32:1] a` has lsb 1)."""
    lsbs = {}
    for item in module.items:
        for entry in getattr(item, "list", ()):
            if getattr(entry, "width", None) is not None and hasattr(entry, "name"):
                lsbs[entry.name] = min(scope.constant(entry.width.msb) or 0, scope.constant(entry.width.lsb) or 0)
    for port in getattr(module.portlist, "ports", ()):
        for entry in (getattr(port, "first", None), getattr(port, "second", None)):
            if entry is not None and getattr(entry, "width", None) is not None:
                lsbs[entry.name] = min(scope.constant(entry.width.msb) or 0, scope.constant(entry.width.lsb) or 0)
    return lsbs
