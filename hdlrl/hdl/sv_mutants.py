"""Mutants of SystemVerilog (and of Verilog that pyverilog cannot read), made on pyslang's syntax tree.

pyverilog reads Verilog-2001 only, and its mutants are printed by its own code generator;
slang parses SystemVerilog completely but prints nothing. So here a mutation is an edit of
the original text at token offsets found on the syntax tree: everything outside the site
stays as written, byte for byte, and no printer has to be trusted (no round-trip check).
A mutant that pyslang no longer reads without errors is dropped (`SvSource.render`).

The kinds are those of `hdlrl.hdl.mutants` that are edits of a few tokens: binary operator
replacement (that module's table, by symbol), integer literals +1, -1 or with a bit flipped
(`Number.variants`, width and base kept), `'0` and `'1` exchanged, negated conditions of
`if` and `?:`, and case items whose label changes or whose labels swap with the next item's.
Constants that size or name things (parameters, ranges, typedefs, casts, selects, delays)
are left alone, as in the pyverilog engine. `split_rtl` picks the engine of each RTL file
and gives the reason for each file neither can read.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyslang
from pyslang import parsing, syntax
from pyslang.syntax import SyntaxKind, SyntaxNode
from pyverilog.utils.op2mark import op2mark

from hdlrl.design import Design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.ast_edit import Number
from hdlrl.hdl.design_files import parse_rtl, relative_name
from hdlrl.hdl.mutation_operators import OPERATOR_ALTERNATIVES, OPERATOR_FAMILIES
from hdlrl.hdl.readers.pyslang_reader import read_modules
from hdlrl.hdl.readers.pyslang_syntax import child_nodes, node_text
from hdlrl.hdl.verilog_ast import ParsedSource

SV_SUFFIXES = (".sv", ".svh")  # always the pyslang engine: pyverilog would misread or refuse them
# Nodes under these declare, size or name things: a constant or operator there is no functional bug.
_DECLARATIONS = {SyntaxKind.ParameterDeclaration, SyntaxKind.TypeParameterDeclaration, SyntaxKind.TypedefDeclaration,
                 SyntaxKind.VariableDimension, SyntaxKind.ParameterValueAssignment, SyntaxKind.DelayControl,
                 SyntaxKind.AttributeInstance}
_LITERALS = {SyntaxKind.IntegerVectorExpression, SyntaxKind.IntegerLiteralExpression}
_UNBASED = {"'0": "'1", "'1": "'0"}

Edit = tuple[int, int, str]  # (start, end, replacement): a byte range of the original text, UTF-8


@dataclass(frozen=True)
class SvSite:
    """One mutation of a file: the same fields as `hdlrl.hdl.ast_edit.Site`, with text edits for its transform."""

    operator: str
    file: str
    line: int
    node_index: int  # the site's byte offset in the file: sites are ordered by it
    description: str
    edits: tuple[Edit, ...]


@functools.cache
def operator_symbols() -> dict[str, tuple[str, tuple[str, ...]]]:
    """{symbol: (family, alternative symbols)}: the table both engines share, as symbols."""
    family = {member: name for name, members in OPERATOR_FAMILIES.items() for member in members}
    return {op2mark(operator.__name__): (family[operator], tuple(op2mark(other.__name__) for other in others))
            for operator, others in OPERATOR_ALTERNATIVES.items()}


def _compact(text: str) -> str:
    return " ".join(text.split())


def _ancestors(node: SyntaxNode) -> Iterator[SyntaxNode]:
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


class SvSource:
    """One RTL file's text and pyslang syntax tree; refused (HdlrlError) when pyslang reports an error."""

    def __init__(self, file: str, path: Path, text: str, include_dirs: Sequence[Path] = ()):
        read_modules(text, str(path), include_dirs=include_dirs)  # the project's checks: errors, includes
        self.file, self.path, self.text, self.include_dirs = file, path, text, tuple(include_dirs)
        self.data = text.encode()
        options = parsing.PreprocessorOptions()
        options.additionalIncludePaths = list(include_dirs)
        self.sources = pyslang.SourceManager()
        self.buffer = self.sources.assignText(str(path.absolute()), text)
        self.tree = syntax.SyntaxTree.fromBuffer(self.buffer, self.sources, pyslang.Bag([options]))

    # ------------------------------------------------------------------ text of the tree

    def span(self, node: SyntaxNode | parsing.Token) -> tuple[int, int] | None:
        """Byte range of a node or token in this file; None when a macro or an included file wrote part of it."""
        first, last = (node, node) if isinstance(node, parsing.Token) else (node.getFirstToken(), node.getLastToken())
        if first.location.buffer != self.buffer.id or last.location.buffer != self.buffer.id:
            return None
        return first.location.offset, last.range.end.offset

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode()

    def site(self, operator: str, start: int, description: str, *edits: Edit) -> SvSite:
        line = self.data.count(b"\n", 0, start) + 1
        return SvSite(operator, self.file, line, start, description, edits)

    # ------------------------------------------------------------------ sites

    def sites(self) -> list[SvSite]:
        """Every mutation site of the file, in offset order."""
        found: list[SvSite] = []

        def visit(node: SyntaxNode | parsing.Token) -> None:
            if isinstance(node, SyntaxNode) and not any(ancestor.kind in _DECLARATIONS
                                                         for ancestor in (node, *_ancestors(node))):
                for kind in (self.replaced_operator, self.perturbed_constant, self.inverted_condition,
                             self.changed_case_labels):
                    found.extend(kind(node))

        self.tree.root.visit(visit)
        return sorted(found, key=lambda site: (site.node_index, site.operator, site.description))

    def replaced_operator(self, node: SyntaxNode) -> list[SvSite]:
        if not isinstance(node, syntax.BinaryExpressionSyntax) or node.kind.name.endswith("AssignmentExpression"):
            return []  # `q <= d` is an assignment, not a comparison
        symbol = node.operatorToken.rawText
        family, alternatives = operator_symbols().get(symbol, ("", ()))
        where = self.span(node.operatorToken)  # only the operator is edited: its operands may come from macros
        if where is None:
            return []
        left_text, right_text = node_text(node.left), node_text(node.right)
        return [self.site(family, where[0], f"{left_text} {symbol} {right_text} -> {left_text} {other} {right_text}",
                          (*where, other)) for other in alternatives]

    def literal_edits(self, node: SyntaxNode, operator: str, prefix: str) -> list[SvSite]:
        """+1, -1 and a flipped bit of an integer literal, or `'0` for `'1` and back."""
        where = self.span(node)
        if where is None:
            return []
        text = self.slice(*where)
        if node.kind == SyntaxKind.UnbasedUnsizedLiteralExpression and text in _UNBASED:
            variants = [("flipped", _UNBASED[text])]
        elif node.kind in _LITERALS and (number := Number.parse(text)) is not None:
            variants = number.variants()
        else:
            variants = []
        distinct: dict[str, str] = {}  # a 1-bit literal's +1, -1 and flipped bit are one mutant
        for how, literal in variants:
            distinct.setdefault(literal, how)
        return [self.site(operator, where[0], f"{prefix}{text} -> {literal} ({how})", (*where, literal))
                for literal, how in distinct.items() if literal != text]

    def perturbed_constant(self, node: SyntaxNode) -> list[SvSite]:
        """A literal in an expression; not a case label (`changed_case_labels`), a cast's size nor a select."""
        parent = node.parent
        if parent is None or parent.kind in (SyntaxKind.StandardCaseItem, SyntaxKind.CastExpression):
            return []
        if any(ancestor.kind == SyntaxKind.ElementSelect for ancestor in _ancestors(node)):
            return []
        return self.literal_edits(node, "constant", "")

    def inverted_condition(self, node: SyntaxNode) -> list[SvSite]:
        """`if (c)` and `c ? a : b` with `!(c)`; a `matches` pattern is left alone."""
        if node.kind not in (SyntaxKind.ConditionalStatement, SyntaxKind.ConditionalExpression):
            return []
        sites = []
        for condition in child_nodes(node.predicate.conditions):
            where = None if condition.matchesClause else self.span(condition.expr)
            if where is not None:
                text = self.slice(*where)
                sites.append(self.site("condition_inversion", where[0], f"condition ({_compact(text)}) negated",
                                       (*where, f"!({text})")))
        return sites

    def changed_case_labels(self, node: SyntaxNode) -> list[SvSite]:
        """A literal label changed, or the labels of neighbouring items with different bodies swapped."""
        if node.kind != SyntaxKind.CaseStatement:
            return []
        sites: list[SvSite] = []
        items = [item for item in node.items if item.kind == SyntaxKind.StandardCaseItem]
        for item in items:
            for label in child_nodes(item.expressions):
                sites += self.literal_edits(label, "case_label", "case label ")
        for first, second in zip(items, items[1:]):
            first_spans, second_spans = self.item_spans(first), self.item_spans(second)
            if first_spans is None or second_spans is None:
                continue
            (first_labels, first_body), (second_labels, second_body) = first_spans, second_spans
            first_text, second_text = self.slice(*first_labels), self.slice(*second_labels)
            if first_text == second_text or _compact(self.slice(*first_body)) == _compact(self.slice(*second_body)):
                continue
            sites.append(self.site("case_labels_swapped", first_labels[0],
                                   f"labels of case items {_compact(first_text)} / {_compact(second_text)} swapped",
                                   (*first_labels, second_text), (*second_labels, first_text)))
        return sites

    def item_spans(self, item: SyntaxNode) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Byte ranges of a case item's labels (all of them, commas included) and of its body."""
        labels = list(child_nodes(item.expressions))
        first, last, body = self.span(labels[0]), self.span(labels[-1]), self.span(item.clause)
        if first is None or last is None or body is None:
            return None
        return (first[0], last[1]), body

    # ------------------------------------------------------------------ mutants

    def render(self, sites: Sequence[SvSite]) -> str | None:
        """The file with the sites' edits applied; None when two edits overlap or pyslang rejects the result."""
        edits = sorted(edit for site in sites for edit in site.edits)
        if any(first[1] > second[0] for first, second in zip(edits, edits[1:])):
            return None
        data = self.data
        for start, end, replacement in reversed(edits):
            data = data[:start] + replacement.encode() + data[end:]
        text = data.decode()
        try:
            read_modules(text, str(self.path), include_dirs=self.include_dirs)
        except HdlrlError:
            return None
        return text


@dataclass(frozen=True)
class MutableRtl:
    """A design's RTL files, each read by the engine that can mutate it, and the files neither can."""

    sources: dict[str, ParsedSource | SvSource]  # in the design's file order
    skipped: dict[str, str]  # file -> why neither engine can read it

    def why_skipped(self) -> str:
        return "; ".join(f"{file}: {reason}" for file, reason in self.skipped.items())


def _reason(engine: str, error: HdlrlError) -> str:
    """The error of `engine` with its line, named after the engine (once: its messages may already say it)."""
    text = f"{error.message} (line {error.line})" if error.line else error.message
    return text if text.startswith(engine) else f"{engine}: {text}"


def split_rtl(design: Design) -> MutableRtl:
    """pyverilog's tree for each Verilog file it reads and prints back faithfully; a pyslang
    `SvSource` for SystemVerilog files and the Verilog files pyverilog refuses; the reasons of both
    engines for a file neither can read."""
    sources: dict[str, ParsedSource | SvSource] = {}
    skipped: dict[str, str] = {}
    for path in design.rtl:
        file = relative_name(design, path)
        refusal = ""
        if path.suffix not in SV_SUFFIXES:
            try:
                sources[file] = parse_rtl(design.with_rtl((path,)))[file]
                continue
            except HdlrlError as error:
                refusal = f"{_reason('pyverilog', error)}; "
        try:
            sources[file] = SvSource(file, path, path.read_text(), design.include_dirs)
        except HdlrlError as error:
            skipped[file] = refusal + _reason("pyslang", error)
    return MutableRtl(sources, skipped)
