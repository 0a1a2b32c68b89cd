"""Rename modules in Verilog text, so a reference and a candidate can share one simulation or proof.

The reference and the candidate define the same top module (and often the same submodules);
the differential testbench and the equivalence miter need both at once, so every module the
reference defines gets a prefix. Renaming works on tokens, so a module name inside a comment
or a string, or as part of a longer identifier, is left alone; and only where the name is a
module (after `module`, or as the type of an instance), so that a signal or memory that
shares the module's name (`reg [7:0] RAM [0:11]` in module RAM) keeps it, and the proof can
still match it by name.

`rename_identifiers` renames any identifiers; with `alpha_renames` it alpha-renames modules'
internals (the summariser's rename-robustness test, and the corpus of `hdlrl bench summarize`).
"""

from __future__ import annotations

from collections.abc import Callable

from hdlrl.hdl.ir import Block, Module
from hdlrl.hdl.lexer import Token, tokenize

# Every name the gate generates (the reference's renamed copies, the differential testbench,
# the equivalence miter) starts with this prefix, and the screen refuses any candidate name
# that does: no collision by construction.
RESERVED_PREFIX = "hdlrl_"
REFERENCE_PREFIX = f"{RESERVED_PREFIX}ref_"


def defined_modules(text: str) -> list[str]:
    """Names after `module` / `macromodule`, in source order."""
    tokens = tokenize(text)
    return [tokens[index + 1].text for index, token in enumerate(tokens[:-1])
            if token.text in ("module", "macromodule") and tokens[index + 1].kind == "identifier"]


def _names_a_module(tokens: list[Token], index: int) -> bool:
    """Is the identifier at `index` a module name: `module NAME`, or `NAME [#(...)] instance (`?"""
    before = tokens[index - 1].text if index else ""
    after = [token.text for token in tokens[index + 1:index + 3]]
    is_instance_type = after[:1] == ["#"] or (len(after) == 2 and tokens[index + 1].kind == "identifier"
                                              and after[1] in ("(", "["))
    return before in ("module", "macromodule") or is_instance_type


def rename_modules(text: str, renames: dict[str, str]) -> str:
    """`text` with each module name in `renames` replaced where it names a module, layout kept."""
    tokens = tokenize(text)
    pieces = []
    position = 0
    for index, token in enumerate(tokens):
        if token.kind == "identifier" and token.text in renames and _names_a_module(tokens, index):
            pieces += [text[position:token.start], renames[token.text]]
            position = token.start + len(token.text)
    pieces.append(text[position:])
    return "".join(pieces)


def prefix_modules(texts: list[str], prefix: str = REFERENCE_PREFIX) -> list[str]:
    """Every module defined across `texts` renamed to `prefix + name`, in definitions and instances."""
    names = {name for text in texts for name in defined_modules(text)}
    renames = {name: prefix + name for name in names}
    return [rename_modules(text, renames) for text in texts]


def rename_identifiers(text: str, renames: dict[str, str]) -> str:
    """`text` with every identifier in `renames` replaced, layout kept, except a name right after
    `.` (a named port connection or a hierarchical reference names something of another module)."""
    tokens = tokenize(text)
    pieces = []
    position = 0
    for index, token in enumerate(tokens):
        if token.kind == "identifier" and token.text in renames and not (index and tokens[index - 1].text == "."):
            pieces += [text[position:token.start], renames[token.text]]
            position = token.start + len(token.text)
    pieces.append(text[position:])
    return "".join(pieces)


def internal_names(module: Module) -> list[str]:
    """Names that are the module's own business: signals, localparams, instances, labels, functions.
    Ports, parameters and module names are its interface, which a renaming must keep."""
    def named(blocks: tuple[Block, ...]) -> list[str]:
        names = []
        for block in blocks:
            if block.name:
                names.append(block.name)
            names += named(block.blocks)
        return names

    ports = {port.name for port in module.ports}
    names = [signal.name for signal in module.signals if signal.name not in ports]
    names += [parameter.name for parameter in module.parameters if parameter.local]
    names += named(module.blocks)
    return list(dict.fromkeys(names))


def alpha_renames(modules: list[Module], fresh: Callable[[int, str], str]) -> dict[str, str]:
    """name -> fresh(index, name) for every internal name of `modules` that is not also a module's
    name or another module's port or parameter: one renaming serves the whole file, and a port
    renamed in its declaration but not in `.port(...)` connections would break the design."""
    interface = {module.name for module in modules} | {port.name for module in modules for port in module.ports} | {
        parameter.name for module in modules for parameter in module.parameters if not parameter.local}
    internal = dict.fromkeys(name for module in modules for name in internal_names(module) if name not in interface)
    return {name: fresh(index, name) for index, name in enumerate(internal)}
