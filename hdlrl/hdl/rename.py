"""Rename modules in Verilog text, so a reference and a candidate can share one simulation or proof.

The reference and the candidate define the same top module (and often the same submodules);
the differential testbench and the equivalence miter need both at once, so every module the
reference defines gets a prefix. Renaming works on tokens, so a module name inside a comment
or a string, or as part of a longer identifier, is left alone.
"""

from __future__ import annotations

from hdlrl.hdl.lexer import tokenize

REFERENCE_PREFIX = "hdlrl_ref_"


def defined_modules(text: str) -> list[str]:
    """Names after `module` / `macromodule`, in source order."""
    tokens = tokenize(text)
    return [tokens[index + 1].text for index, token in enumerate(tokens[:-1])
            if token.text in ("module", "macromodule") and tokens[index + 1].kind == "identifier"]


def rename_modules(text: str, renames: dict[str, str]) -> str:
    """`text` with every identifier token in `renames` replaced, comments and layout kept."""
    pieces = []
    position = 0
    for token in _located_identifiers(text):
        start, end, name = token
        if name in renames:
            pieces.append(text[position:start])
            pieces.append(renames[name])
            position = end
    pieces.append(text[position:])
    return "".join(pieces)


def prefix_modules(texts: list[str], prefix: str = REFERENCE_PREFIX) -> list[str]:
    """Every module defined across `texts` renamed to `prefix + name`, in definitions and instances."""
    names = {name for text in texts for name in defined_modules(text)}
    renames = {name: prefix + name for name in names}
    return [rename_modules(text, renames) for text in texts]


def _located_identifiers(text: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each identifier, found by re-scanning the tokens in order."""
    located = []
    position = 0
    for token in tokenize(text, keep_comments=True):
        start = text.index(token.text, position)
        position = start + len(token.text)
        if token.kind == "identifier":
            located.append((start, position, token.text))
    return located
