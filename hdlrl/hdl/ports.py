"""Ports of a module read from its source text, for designs no tool has elaborated yet.

Importers need the port names, directions and (literal) widths to find clocks and resets,
even for references that Yosys cannot elaborate (non-synthesisable event lists, two clocks
on one flop). Both ANSI (`input [7:0] a, b`) and non-ANSI (`input a;` in the body) styles
are read. A width with parameters in it is reported as None.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdlrl.hdl.lexer import Token, tokenize

DIRECTIONS = ("input", "output", "inout")
_TYPE_WORDS = {"wire", "reg", "logic", "signed", "unsigned", "var", "tri", "integer", "bit"}


@dataclass(frozen=True)
class DeclaredPort:
    name: str
    direction: str
    width: int | None  # None where the range is not a literal


def _module_tokens(tokens: list[Token], module: str) -> list[Token]:
    for index, token in enumerate(tokens[:-1]):
        if token.text == "module" and tokens[index + 1].text == module:
            end = next((j for j in range(index, len(tokens)) if tokens[j].text == "endmodule"), len(tokens))
            return tokens[index:end]
    return []


def _literal(token_texts: list[str]) -> int | None:
    text = "".join(token_texts)
    return int(text) if text.isdigit() else None


def declared_ports(text: str, module: str) -> list[DeclaredPort]:
    """Ports declared with a direction in `module`, in source order."""
    tokens = _module_tokens(tokenize(text), module)
    ports: list[DeclaredPort] = []
    index = 0
    while index < len(tokens):
        if tokens[index].text not in DIRECTIONS:
            index += 1
            continue
        direction = tokens[index].text
        width: int | None = 1
        index += 1
        while index < len(tokens) and tokens[index].text not in (";", ")") and tokens[index].text not in DIRECTIONS:
            token = tokens[index]
            if token.text == "[":
                close = next(j for j in range(index, len(tokens)) if tokens[j].text == "]")
                inner = [t.text for t in tokens[index + 1:close]]
                if ":" in inner:
                    colon = inner.index(":")
                    high, low = _literal(inner[:colon]), _literal(inner[colon + 1:])
                    width = abs(high - low) + 1 if high is not None and low is not None else None
                index = close
            elif token.kind == "identifier" and token.text not in _TYPE_WORDS:
                ports.append(DeclaredPort(token.text, direction, width))
            index += 1
    return ports
