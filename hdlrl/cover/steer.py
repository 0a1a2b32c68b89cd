"""Input values that steer a simulation toward an uncovered branch, read from its source line.

An uncovered if-arm or case item often waits for one input value: `if (!en)`, `case (op)
3'd5:`, `if (mode == 2'b11)`. The condition's comparisons of a driven input with a constant
(or a bare input, or its negation) give values to hold; an `else` point takes the values
that make its `if` false. Conditions on internal state give nothing here: reaching those is
left to the generators that hold and burst inputs for long enough.
"""

from __future__ import annotations

from hdlrl.cover.coverage import CoveragePoint
from hdlrl.hdl.lexer import Token, tokenize
from hdlrl.hdl.ast_edit import Number

_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def literal_constants(tokens: list[Token]) -> dict[str, int]:
    """Values of the parameters and localparams a file defines with literal values."""
    constants: dict[str, int] = {}
    for index, token in enumerate(tokens[:-2]):
        if token.kind == "identifier" and tokens[index + 1].text == "=" and tokens[index + 2].kind == "number":
            number = Number.parse(tokens[index + 2].text)
            if number is not None:
                constants[token.text] = number.value
    return constants


def _value(token: Token, constants: dict[str, int]) -> int | None:
    if token.kind == "number":
        number = Number.parse(token.text)
        return number.value if number else None
    return constants.get(token.text)


def joined_operators(tokens: list[Token]) -> list[Token]:
    """`=` `=` and `<` `=` (the lexer splits operators) joined into one token."""
    joined: list[Token] = []
    for token in tokens:
        if joined and token.text == "=" and joined[-1].text in ("=", "!", "<", ">") and joined[-1].start + 1 == token.start:
            joined[-1] = Token("other", joined[-1].text + "=", token.line, joined[-1].start)
        else:
            joined.append(token)
    return joined


def _condition_values(tokens: list[Token], inputs: dict[str, int], constants: dict[str, int]) -> dict[str, int]:
    """Values of inputs that make the condition in `tokens` true, where it says so plainly."""
    values: dict[str, int] = {}
    for index, token in enumerate(tokens):
        if token.text not in inputs:
            continue
        width = inputs[token.text]
        before = tokens[index - 1].text if index else ""
        after = tokens[index + 1].text if index + 1 < len(tokens) else ""
        if after in _COMPARISONS and index + 2 < len(tokens):
            constant = _value(tokens[index + 2], constants)
            if constant is None:
                continue
            wanted = {"==": constant, "!=": constant ^ 1, "<": constant - 1, "<=": constant,
                      ">": constant + 1, ">=": constant}[after]
            values[token.text] = wanted % (1 << width)
        elif before in ("!", "~") and after in (")", "&&", "||", "&", "|"):
            values[token.text] = 0
        elif before in ("(", "&&", "&") and after in (")", "&&", "&"):
            values[token.text] = (1 << width) - 1
    return values


def _negated(values: dict[str, int], inputs: dict[str, int]) -> dict[str, int]:
    """Values that make a condition false: each value's bits inverted (a single 1-bit input of
    `if (en)` becomes 0; for a wider equality any other value will do)."""
    return {name: value ^ ((1 << inputs[name]) - 1) for name, value in values.items()}


def case_selector(tokens: list[Token], line: int) -> str | None:
    """The selector of the innermost `case (NAME)` opened before `line`."""
    selector, depth = None, 0
    for index, token in enumerate(tokens):
        if token.line >= line:
            break
        if token.text in ("case", "casez", "casex"):
            depth += 1
            if tokens[index + 1].text == "(" and tokens[index + 3].text == ")":
                selector = tokens[index + 2].text
        elif token.text == "endcase":
            depth -= 1
            selector = selector if depth else None
    return selector


def steering_values(point_id: str, sources: dict[str, str], inputs: dict[str, int]) -> dict[str, int]:
    """Input values that plausibly reach the branch `point_id`; empty when its line says nothing
    about driven inputs."""
    point = CoveragePoint.from_id(point_id)
    if point.metric not in ("line", "branch") or point.file not in sources:
        return {}
    tokens = joined_operators(tokenize(sources[point.file]))
    constants = literal_constants(tokens)
    on_line = [token for token in tokens if token.line == point.line]
    if point.kind == "case":
        selector = case_selector(tokens, point.line)
        label = on_line[0] if on_line else None
        if selector in inputs and label is not None and (value := _value(label, constants)) is not None:
            return {selector: value % (1 << inputs[selector])}
        return {}
    if point.kind in ("if", "else", "elsif"):
        last_if = max((index for index, token in enumerate(on_line) if token.text == "if"), default=None)
        if last_if is None:
            return {}
        values = _condition_values(on_line[last_if:], inputs, constants)
        return _negated(values, inputs) if point.kind == "else" else values
    return {}
