"""Constant expressions of Verilog source text: number literals, and widths under parameter defaults.

Both parser front ends (`hdlrl.hdl.readers`) need the same two answers: the value of a
literal (`8'hFF`, `'b1010`, `42`) and the width of a declaration whose range uses
parameters (`[WIDTH-1:0]`, `[$clog2(DEPTH):0]`). Working on the text keeps them equal
whichever parser read the module. Anything outside integer arithmetic on literals and known
names is None rather than a guess: a width the facts do not know is a claim a summary must
not make.
"""

from __future__ import annotations

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
        result = eval(expression, {"__builtins__": {}}, {"_clog2": _clog2})  # only digits, operators, _clog2
    except (ArithmeticError, SyntaxError, TypeError, ValueError):
        return None
    return result if isinstance(result, int) else None


def range_width(msb: str, lsb: str, values: dict[str, int]) -> int | None:
    """Bits in `[msb:lsb]`: |msb - lsb| + 1 when both evaluate."""
    high, low = evaluate(msb, values), evaluate(lsb, values)
    return abs(high - low) + 1 if high is not None and low is not None else None
