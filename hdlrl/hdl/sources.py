"""Read HDL files into modules: pyverilog first, pyslang for what it rejects, and never a module lost.

pyverilog reads a whole file or nothing, so when it rejects a file each module is tried on
its own (the other modules blanked out, line numbers kept), and a module it still rejects
goes to pyslang. A module neither parser reads is reported with both reasons rather than
dropped; `Module.parser` records which parser served each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from hdlrl.errors import HdlrlError
from hdlrl.hdl.ir import Block, Module
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.readers import pyslang_reader, pyverilog_reader
from hdlrl.hdl.screen import check_limits, decode_source


@dataclass(frozen=True)
class UnreadModule:
    """A module neither parser could read (or a file without any module): the row records why."""

    path: str
    name: str | None
    line: int | None  # where the first parser stopped (else where the module starts)
    reason: str  # one line
    source: str = ""  # the text the row's id hashes: the module alone, or the whole file


def module_spans(text: str) -> list[tuple[str | None, int, int]]:
    """(name, first line, last line) of each `module ... endmodule` in `text`."""
    spans = []
    tokens = tokenize(text)
    start = None
    for index, token in enumerate(tokens):
        if token.text in ("module", "macromodule") and start is None:
            start = index
        elif token.text == "endmodule" and start is not None:
            name = tokens[start + 1].text if start + 1 < len(tokens) and tokens[start + 1].kind == "identifier" else None
            spans.append((name, tokens[start].line, token.line))
            start = None
    return spans


def _only(text: str, first: int, last: int, spans: list[tuple[str | None, int, int]]) -> str:
    """`text` with every module but the one on lines first..last blanked, line numbers kept."""
    lines = text.split("\n")
    for _, start, end in spans:
        if (start, end) != (first, last):
            for number in range(start - 1, end):
                lines[number] = ""
    return "\n".join(lines)


def screened_text(path: Path) -> str | UnreadModule:
    """The file's text, or why it is not handed to a parser: unreadable, not UTF-8, or past the
    screen's size caps (with the line where it crossed the cap)."""
    try:
        text = decode_source(path)
        check_limits(text, path)
    except OSError as error:
        return UnreadModule(str(path), None, None, f"cannot read the file: {error}")
    except HdlrlError as error:
        return UnreadModule(str(path), None, error.line, error.message)
    return text


def read_source(path: Path, include_dirs: Sequence[Path] = (), defines: dict[str, str] | None = None,
                ) -> tuple[list[Module], list[UnreadModule]]:
    """The modules of one file, and those that could not be read with the reason."""
    text = screened_text(path)
    if isinstance(text, UnreadModule):
        return [], [text]
    return read_text(text, str(path), include_dirs, defines)


def read_text(text: str, name: str, include_dirs: Sequence[Path] = (), defines: dict[str, str] | None = None,
              ) -> tuple[list[Module], list[UnreadModule]]:
    """`read_source` on a file's screened text; `name` is its path, for the rows and its includes."""
    try:
        return pyverilog_reader.read_modules(text, name, defines, include_dirs), []
    except HdlrlError:
        pass
    spans = module_spans(text)
    if not spans:
        return [], [UnreadModule(name, None, None, "no module ... endmodule in the file", text)]
    modules, unread = [], []
    for module_name, first, last in spans:
        alone = _only(text, first, last, spans)
        errors = []
        for reader in (pyverilog_reader, pyslang_reader):
            try:
                modules += reader.read_modules(alone, name, defines, include_dirs)
                break
            except HdlrlError as error:
                errors.append(error)
        else:  # reported at the first parser's error line; each message names its parser
            line = errors[0].line or first
            unread.append(UnreadModule(name, module_name, line, "; ".join(
                error.message + (f" (line {error.line})" if error.line not in (None, line) else "")
                for error in errors), alone))
    return modules, unread


def instantiated(blocks: Iterable[Block]) -> list[str]:
    """The modules instantiated by `blocks` (generate regions included), in source order, each once."""
    found: dict[str, None] = {}
    for block in blocks:
        if block.kind == "instance" and block.module:
            found[block.module] = None
        found.update(dict.fromkeys(instantiated(block.blocks)))
    return list(found)


class Hierarchy:
    """The instance hierarchy of a batch of modules.

    A child is looked up in the parent's own file first, then among all modules (module names
    repeat across a repository of designs); an instantiated module that is not in the batch
    is left out.
    """

    def __init__(self, modules: list[Module]):
        self.modules = modules
        self._by_file = {(module.path, module.name): module for module in modules}
        self._by_name: dict[str, Module] = {}
        for module in modules:
            self._by_name.setdefault(module.name, module)

    def children(self, module: Module) -> list[Module]:
        found = [self._by_file.get((module.path, name)) or self._by_name.get(name)
                 for name in instantiated(module.blocks)]
        return [child for child in found if child is not None and child is not module]

    def graph(self) -> nx.DiGraph:
        """Module positions in the batch, an edge from each parent to each child it instantiates."""
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(self.modules)))
        index = {id(module): position for position, module in enumerate(self.modules)}
        graph.add_edges_from((position, index[id(child)]) for position, module in enumerate(self.modules)
                             for child in self.children(module))
        return graph

    def groups(self) -> list[list[Module]]:
        """Modules connected by instantiation, children before parents (a cycle is cut where it closes);
        groups in order of first module."""
        graph = self.graph()
        components = sorted(nx.weakly_connected_components(graph), key=min)
        return [[self.modules[position] for position in nx.dfs_postorder_nodes(graph.subgraph(sorted(component)))]
                for component in components]


def file_text(module: Module) -> str:
    """The whole file `module` was read from, where it can still be read (the children defined
    beside it come along), else the module's own text: what a tool reading the module alone needs."""
    path = Path(module.path)
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else module.source
    except OSError:
        return module.source
