"""A small Verilog lexer: just enough to see comments, strings, system tasks and directives.

Screening and cache keys must not be fooled by a `$system` inside a comment, or miss one
hidden after a string containing `//`; a regex over raw text gets both wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<system>\$[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<directive>`[A-Za-z_][A-Za-z0-9_]*)
  | (?P<identifier>[A-Za-z_][A-Za-z0-9_$]*|\\\S+)
  | (?P<number>[0-9][0-9_]*(?:\.[0-9_]+)?(?:\s*'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+)?|'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ])
  | (?P<space>\s+)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str  # comment, string, system, directive, identifier, number, other
    text: str
    line: int
    start: int = 0  # offset in the text, for edits that keep everything else as written


def iter_tokens(text: str, keep_comments: bool = False) -> Iterator[Token]:
    """Tokens of `text` one at a time, so a scan that stops early never lexes the rest."""
    line = 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        value = match.group()
        if kind != "space" and (kind != "comment" or keep_comments):
            yield Token(kind, value, line, match.start())
        line += value.count("\n")


def tokenize(text: str, keep_comments: bool = False) -> list[Token]:
    """Tokens of `text` with 1-based line numbers; whitespace dropped, comments optional."""
    return list(iter_tokens(text, keep_comments))


def matching(tokens: list[Token], index: int, openers: Collection[str], closer: str) -> int:
    """Index of the `closer` that closes the opener at `index`, nesting counted (`end` for
    `begin`); the last index when the tokens stop first (a truncated text)."""
    depth = 0
    for end in range(index, len(tokens)):
        depth += (tokens[end].text in openers) - (tokens[end].text == closer)
        if depth == 0:
            return end
    return len(tokens) - 1


def blank_comments(text: str) -> str:
    """`text` with every comment turned into spaces, its line breaks kept, so that line numbers
    hold and nothing in a comment (a backticked word, a `define) is read as code."""
    pieces, position = [], 0
    for token in iter_tokens(text, keep_comments=True):
        if token.kind == "comment":
            pieces += [text[position:token.start], re.sub(r"[^\n]", " ", token.text)]
            position = token.start + len(token.text)
    return "".join(pieces) + text[position:]


_DELIMITERS = set(";,()[]{}")  # characters that start or end no operator of several characters
_DELIMITER_PAIRS = {"(*", "*)", "'{", "[*", "[=", "[-"}  # but for these: attributes, SystemVerilog patterns and SVA


def _one_operator(before: Token, token: Token) -> bool:
    """Whether two characters the lexer split are one operator (`&&`, `<=`, `(*`): they touch in
    the source and can combine."""
    if not before.kind == token.kind == "other" or before.start + len(before.text) != token.start:
        return False
    return not {before.text, token.text} & _DELIMITERS or before.text + token.text in _DELIMITER_PAIRS


def joined(tokens: list[Token]) -> str:
    """The tokens' text on one line: a space between two tokens, except within an operator the
    lexer split into characters. A space there changes the meaning: `a & &b` is AND with a
    reduction-AND, not `a && b`."""
    pieces = []
    for index, token in enumerate(tokens):
        if index:
            pieces.append("" if _one_operator(tokens[index - 1], token) else " ")
        pieces.append(token.text)
    return "".join(pieces)


def normalise(text: str) -> str:
    """Source with comments and layout removed: equal for edits that cannot change behaviour."""
    return joined(tokenize(text))
