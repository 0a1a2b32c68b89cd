"""Input values that steer a simulation toward an uncovered branch, read from its source line.

An uncovered if-arm or case item often waits for one input value: `if (!en)`, `case (op)
3'd5:`, `if (mode == 2'b11)`. The condition's comparisons of a driven input with a constant
(or a bare input, or its negation) give values to hold; an `else` point takes the values
that make its `if` false. Conditions on internal state give nothing here: reaching those is
left to the generators that hold and burst inputs for long enough.

A count compared with a large constant (a hunt or carrier-loss timeout, a long-press repeat)
needs that many cycles without the event that clears it, longer than any generator's segment
and than a model check reaches: `stretch_lengths` reads such bounds, for a quiet stretch of
held inputs at least that long.
"""

from __future__ import annotations

import re

from hdlrl.cover.coverage import CoveragePoint
from hdlrl.cover.functional import Covergroup
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


def if_condition(tokens: list[Token], line: int) -> list[Token] | None:
    """The parenthesised condition after the last `if` on `line`, as far as `tokens` hold it
    (a caller passing the line's tokens alone gets None for a condition that runs on)."""
    starts = [index for index, token in enumerate(tokens) if token.line == line and token.text == "if"]
    if not starts or starts[-1] + 1 >= len(tokens) or tokens[starts[-1] + 1].text != "(":
        return None
    depth = 0
    for index in range(starts[-1] + 1, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[index].text, 0)
        if depth == 0:
            return tokens[starts[-1] + 2:index]
    return None


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


def _compared_bound(point_id: str, tokens: list[Token], constants: dict[str, int], inputs: dict[str, int]) -> int:
    """The largest constant that the condition of the `if` on the branch's line compares a
    register (not a driven input) with; 0 if none."""
    line = CoveragePoint.from_id(point_id).line
    condition = if_condition(tokens, line) or []
    bounds = [0]
    for index, token in enumerate(condition[1:-1], start=1):
        if token.text in _COMPARISONS:
            for name, other in ((condition[index - 1], condition[index + 1]), (condition[index + 1], condition[index - 1])):
                value = _value(other, constants)
                if name.kind == "identifier" and name.text not in inputs and name.text not in constants and value:
                    bounds.append(value)
    return max(bounds)


def stretch_lengths(uncovered: list[str], sources: dict[str, str], inputs: dict[str, int],
                    groups: list[Covergroup], longest: int) -> dict[str, int]:
    """Uncovered item -> the cycles of a quiet stretch that plausibly reach it: a quarter more
    than the count it waits for, at most `longest` (what the stimulus memory holds). The count
    is the constant the condition on a branch's line compares a register with, or the least
    value of a functional bin on a coverpoint that is one register."""
    tokens_of = {file: joined_operators(tokenize(text)) for file, text in sources.items()}
    constants = {name: value for tokens in tokens_of.values() for name, value in literal_constants(tokens).items()}
    bin_bounds = {f"{group.name}.{point.name}.{item.name}": min(
        [low for low, _ in item.ranges] or [max(step) for step in item.transition if step] or [0])
        for group in groups for point in group.coverpoints
        if re.fullmatch(r"[A-Za-z_]\w*", point.signal) and point.signal not in inputs for item in point.bins}
    lengths = {}
    for item in uncovered:
        if item in bin_bounds:
            bound = bin_bounds[item]
        elif item.startswith(("line|", "branch|")) and (file := CoveragePoint.from_id(item).file) in tokens_of:
            bound = _compared_bound(item, tokens_of[file], constants, inputs)
        else:
            continue
        if 0 < bound and bound + bound // 4 <= longest:
            lengths[item] = bound + bound // 4
    return lengths
