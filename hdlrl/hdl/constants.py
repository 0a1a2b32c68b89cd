"""Constant expressions of Verilog source text: number literals, and widths under parameter defaults.

Both parser front ends (`hdlrl.hdl.readers`) need the same two answers: the value of a
literal (`8'hFF`, `'b1010`, `42`) and the width of a declaration whose range uses
parameters (`[WIDTH-1:0]`, `[$clog2(DEPTH):0]`). Working on the text keeps them equal
whichever parser read the module. Anything outside integer arithmetic on literals and known
names is None rather than a guess: a width the facts do not know is a claim a summary must
not make.
"""

from __future__ import annotations

import ast
import operator
import re

from hdlrl.hdl.lexer import tokenize

_LITERAL = re.compile(r"^(?:(?P<size>\d[\d_]*)\s*)?'(?P<signed>[sS]?)(?P<base>[bBoOdDhH])\s*(?P<digits>[0-9a-fA-F_]+)$")
_BASES = {"b": 2, "o": 8, "d": 10, "h": 16}
_OPERATORS = {"+", "-", "*", "/", "%", "**", "<<", ">>", "(", ")", "&", "|", "^", "~"}


def literal_value(text: str) -> int | None:
    """The value of a number literal; None for x/z digits, reals, or anything that is not a literal."""
    text = text.strip()
    if re.fullmatch(r"\d[\d_]*", text):
        return int(text.replace("_", ""))
    match = _LITERAL.match(text)
    if match is None:
        return None
    value = int(match.group("digits").replace("_", ""), _BASES[match.group("base").lower()])
    if match.group("size"):
        value &= (1 << int(match.group("size").replace("_", ""))) - 1
    return value


def _clog2(value: int) -> int:
    return max(0, (value - 1).bit_length())


MAX_CONSTANT_BITS = 4096  # far past any real width or depth, and cheap to compute: `9**9**9` is not
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


def _bounded(node: ast.AST) -> int:
    """The value of an arithmetic tree, refusing (ValueError) any step past MAX_CONSTANT_BITS, so a
    hostile constant costs microseconds, not hours."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        value = node.value
    elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        value = _UNARY[type(node.op)](_bounded(node.operand))
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _bounded(node.left), _bounded(node.right)
        if isinstance(node.op, (ast.Pow, ast.LShift)) and not 0 <= right <= MAX_CONSTANT_BITS:
            raise ValueError("shift or exponent out of range")
        if isinstance(node.op, ast.Pow) and left.bit_length() * right > MAX_CONSTANT_BITS:
            raise ValueError("power out of range")
        value = _BINARY[type(node.op)](left, right)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_clog2"
          and len(node.args) == 1 and not node.keywords):
        value = _clog2(_bounded(node.args[0]))
    else:
        raise ValueError("not integer arithmetic")
    if value.bit_length() > MAX_CONSTANT_BITS:
        raise ValueError("constant out of range")
    return value


def evaluate(text: str, values: dict[str, int]) -> int | None:
    """The integer value of a constant expression over literals and the names in `values`.

    Supports + - * / % ** << >> & | ^ ~, parentheses and $clog2; / is integer division as
    in Verilog. None when any other name, operator or system function appears.
    """
    pieces: list[str] = []
    tokens = tokenize(text)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind == "number":
            value = literal_value(token.text)
            if value is None:
                return None
            pieces.append(str(value))
        elif token.kind == "identifier":
            if token.text not in values:
                return None
            pieces.append(f"({values[token.text]})")
        elif token.kind == "system" and token.text == "$clog2":
            pieces.append("_clog2")
        else:
            # the lexer splits multi-character operators into single characters; rejoin them
            pieces.append(token.text)
        index += 1
    expression = "".join(pieces).replace("/", "//")
    if not expression or not re.fullmatch(r"[0-9()+\-*/%<>&|^~_clog2 ]+", expression):
        return None
    try:
        return _bounded(ast.parse(expression, mode="eval").body)
    except (ArithmeticError, SyntaxError, ValueError, RecursionError):
        return None


def range_width(msb: str, lsb: str, values: dict[str, int]) -> int | None:
    """Bits in `[msb:lsb]`: |msb - lsb| + 1 when both evaluate."""
    high, low = evaluate(msb, values), evaluate(lsb, values)
    return abs(high - low) + 1 if high is not None and low is not None else None
