"""Mutants of a design's RTL: small, plausible bugs the verification gate must reject.

Each operator is a function from one AST node (and its ancestors) to a list of edits; an
edit replaces that node by another, or removes it. Sites are enumerated over every RTL file
in a fixed walk order, picked with `random.Random(seed)` round-robin over the operators so
that every kind of bug is represented, and rendered back to Verilog by `unparse`. The same
design, count and seed give byte-identical mutants.

pyverilog's code generator is trusted only as far as it round-trips: `make_mutants` refuses a
file whose unparsed text does not parse back to the same tree (`design_files.parse_rtl`), and
`check_round_trip` (which needs the EDA tools, so callers run it once per design) refuses a
file whose unparsed text no longer passes the design's testbench.

SystemVerilog files, and Verilog files pyverilog cannot read or print back, are mutated on
pyslang's syntax tree instead, by text edits that need no printer (`hdlrl.hdl.sv_mutants`);
a file neither engine can read is left without mutants, with a warning that gives the reason.

The tree walking and editing lives in `hdlrl.hdl.ast_edit`; reading the RTL and writing a
mutant's files (`write_mutant`) in `hdlrl.hdl.design_files`.
"""

from __future__ import annotations

import copy
import itertools
import random
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pyverilog.vparser import ast

from hdlrl.design import Design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.ast_edit import ASSIGNMENTS, Number, Site, edited_tree, render, walk
from hdlrl.hdl.design_files import write_sources
from hdlrl.hdl.lexer import normalise
from hdlrl.hdl.mutation_operators import OPERATOR_ALTERNATIVES, OPERATOR_FAMILIES
from hdlrl.hdl.sv_mutants import SvSite, SvSource, split_rtl
from hdlrl.hdl.verilog_ast import IndexedPartselect, ParsedSource, unparse

# A replacement for the target node, or None to remove it from its statement list.
Edit = tuple[str, Callable[[ast.Node], ast.Node | None]]

NON_COMMUTATIVE = (ast.Minus, ast.Divide, ast.Mod, ast.Power, ast.Sll, ast.Srl, ast.Sla, ast.Sra,
                   ast.LessThan, ast.LessEq, ast.GreaterThan, ast.GreaterEq)
# Subtrees whose constants size declarations: changing them is not a functional bug of the kind wanted.
DECLARATION_CONTEXTS = (ast.Width, ast.Length, ast.Dimensions, ast.Parameter, ast.Localparam)
_RESET_NAME = re.compile(r"rst|reset", re.IGNORECASE)


@dataclass(frozen=True)
class Mutant:
    index: int
    seed: int
    operator: str
    file: str  # RTL path relative to the design root
    line: int
    description: str
    text: str  # the complete mutated source of `file`


# ---------------------------------------------------------------------------- constants

def constant_edits(node: ast.IntConst) -> list[Edit]:
    number = Number.parse(node.value)
    if number is None:
        return []
    return [(f"{node.value} -> {literal} ({how})", lambda target, literal=literal: ast.IntConst(literal, lineno=target.lineno))
            for how, literal in number.variants()]


def offset(expression: ast.Node, amount: int) -> ast.Node:
    """`expression + amount`, folded when the expression is a plain literal."""
    number = Number.parse(expression.value) if isinstance(expression, ast.IntConst) else None
    if number is not None and number.value + amount >= 0:
        return ast.IntConst(number.with_value(number.value + amount), lineno=expression.lineno)
    operator = ast.Plus if amount > 0 else ast.Minus
    return operator(expression, ast.IntConst(str(abs(amount))), lineno=expression.lineno)


# ---------------------------------------------------------------------------- operators

def replaced_operator(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    return [(f"{render(node)} -> {render(alternative(node.left, node.right))}",
             lambda target, alternative=alternative: alternative(target.left, target.right, lineno=target.lineno))
            for alternative in OPERATOR_ALTERNATIVES.get(type(node), ())]


def perturbed_constant(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    if not isinstance(node, ast.IntConst) or isinstance(ancestors[-1], (ast.Case, ast.Pointer, ast.Partselect,
                                                                        IndexedPartselect)):
        return []
    if any(isinstance(ancestor, DECLARATION_CONTEXTS) for ancestor in ancestors) or in_reset_branch(ancestors):
        return []
    return constant_edits(node)


def inverted_condition(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    if not isinstance(node, (ast.IfStatement, ast.Cond)):
        return []

    def invert(target: ast.Node) -> ast.Node:
        inverted = copy.copy(target)
        inverted.cond = ast.Ulnot(target.cond, lineno=target.lineno)
        return inverted

    return [(f"condition ({render(node.cond)}) negated", invert)]


def shifted_select(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    """Off-by-one bit and part selects: index, both bounds, or the base of an indexed select."""
    if any(isinstance(ancestor, DECLARATION_CONTEXTS) for ancestor in ancestors):
        return []
    edits: list[Edit] = []
    for amount in (1, -1):
        if isinstance(node, ast.Pointer):
            edits.append((f"{render(node)} index {amount:+d}", lambda target, amount=amount:
                          ast.Pointer(target.var, offset(target.ptr, amount), lineno=target.lineno)))
        elif isinstance(node, ast.Partselect):
            edits.append((f"{render(node)} range {amount:+d}", lambda target, amount=amount:
                          ast.Partselect(target.var, offset(target.msb, amount), offset(target.lsb, amount),
                                         lineno=target.lineno)))
        elif isinstance(node, IndexedPartselect):
            edits.append((f"{render(node)} base {amount:+d}", lambda target, amount=amount:
                          IndexedPartselect(target.var, offset(target.base, amount), target.width,
                                            target.direction, lineno=target.lineno)))
    return edits


def dropped_assignment(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    """An assignment removed from a block, a branch, a case item, an always or the module (continuous)."""
    parent = ancestors[-1] if ancestors else None
    if isinstance(node, ast.Assign) and isinstance(parent, ast.ModuleDef):
        return [(f"`assign {render(node.left)}` removed", lambda target: None)]
    if isinstance(node, ASSIGNMENTS) and isinstance(parent, (ast.Block, ast.IfStatement, ast.Case, ast.Always)):
        removal = (lambda target: None) if isinstance(parent, ast.Block) else (lambda target: ast.Block(()))
        return [(f"`{render(node)}` removed", removal)]
    return []


def swapped_operands(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    if type(node) in NON_COMMUTATIVE and render(node.left) != render(node.right):
        return [(f"{render(node)} operands swapped",
                 lambda target: type(target)(target.right, target.left, lineno=target.lineno))]
    return []


def swapped_mux_arms(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    if isinstance(node, ast.Cond) and render(node.true_value) != render(node.false_value):
        return [(f"mux arms of ({render(node.cond)}) ? .. : .. swapped",
                 lambda target: ast.Cond(target.cond, target.false_value, target.true_value, lineno=target.lineno))]
    return []


def in_reset_branch(ancestors: tuple[ast.Node, ...]) -> bool:
    """Inside the reset branch of an `if (rst)` / `if (!rst_n)` in an edge-triggered always block."""
    always = next((ancestor for ancestor in ancestors if isinstance(ancestor, ast.Always)), None)
    if always is None or not any(getattr(sens, "type", None) in ("posedge", "negedge")
                                 for sens in getattr(always.sens_list, "list", ())):
        return False
    for index, ancestor in enumerate(ancestors[:-1]):
        if isinstance(ancestor, ast.IfStatement) and ancestors[index + 1] is ancestor.true_statement:
            names = [node.name for node, _ in walk(ancestor.cond) if isinstance(node, ast.Identifier)]
            if any(_RESET_NAME.search(name) for name in names):
                return True
    return False


def changed_reset_value(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    """The constant (or named state) a register takes in reset, changed."""
    if not isinstance(ancestors[-1] if ancestors else None, ast.Rvalue) or not in_reset_branch(ancestors):
        return []
    if isinstance(node, ast.IntConst):
        return [(f"reset value {description}", transform) for description, transform in constant_edits(node)]
    if isinstance(node, ast.Identifier):
        return [(f"reset value {node.name} -> ~{node.name}", lambda target: ast.Unot(target, lineno=target.lineno))]
    return []


def swapped_assignment_kind(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    """Blocking for non-blocking and back, inside always blocks only (never a for-loop header)."""
    if not isinstance(node, ASSIGNMENTS) or isinstance(ancestors[-1], ast.ForStatement):
        return []
    if not any(isinstance(ancestor, ast.Always) for ancestor in ancestors):
        return []
    other = ast.NonblockingSubstitution if isinstance(node, ast.BlockingSubstitution) else ast.BlockingSubstitution
    symbol = "=" if other is ast.BlockingSubstitution else "<="
    return [(f"`{render(node)}` made `{symbol}`",
             lambda target: other(target.left, target.right, lineno=target.lineno))]


def changed_case_label(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    if not isinstance(node, ast.IntConst) or not isinstance(ancestors[-1], ast.Case):
        return []
    return [(f"case label {description}", transform) for description, transform in constant_edits(node)]


def swapped_case_bodies(node: ast.Node, ancestors: tuple[ast.Node, ...]) -> list[Edit]:
    """The bodies of neighbouring case items exchanged (the labels stay)."""
    if not isinstance(node, (ast.CaseStatement, ast.CasexStatement, ast.CasezStatement)):
        return []
    edits: list[Edit] = []
    for index in range(len(node.caselist) - 1):
        first, second = node.caselist[index], node.caselist[index + 1]
        if render(first.statement) == render(second.statement):
            continue

        def swap(target: ast.Node, index: int = index) -> ast.Node:
            items = list(target.caselist)
            first, second = items[index], items[index + 1]
            items[index] = ast.Case(first.cond, second.statement, lineno=first.lineno)
            items[index + 1] = ast.Case(second.cond, first.statement, lineno=second.lineno)
            swapped = copy.copy(target)
            swapped.caselist = tuple(items)
            return swapped

        labels = " / ".join(render_labels(item) for item in (first, second))
        edits.append((f"bodies of case items {labels} swapped", swap))
    return edits


def render_labels(item: ast.Case) -> str:
    return "default" if item.cond is None else ", ".join(render(label) for label in item.cond)


def operator_family(node: ast.Node) -> str:
    return next(family for family, members in OPERATOR_FAMILIES.items() if type(node) in members)


MUTATION_OPERATORS: dict[str, Callable[[ast.Node, tuple[ast.Node, ...]], list[Edit]]] = {
    "operator_replacement": replaced_operator,  # reported under its family, see `enumerate_sites`
    "constant": perturbed_constant,
    "condition_inversion": inverted_condition,
    "select_off_by_one": shifted_select,
    "dropped_assignment": dropped_assignment,
    "swapped_operands": swapped_operands,
    "swapped_mux_arms": swapped_mux_arms,
    "reset_value": changed_reset_value,
    "blocking_swap": swapped_assignment_kind,
    "case_label": changed_case_label,
    "case_bodies_swapped": swapped_case_bodies,
}


# ---------------------------------------------------------------------------- design level

def enumerate_sites(file: str, tree: ast.Node) -> list[Site]:
    """All mutation sites of one file, in walk order."""
    sites = []
    for node_index, (node, ancestors) in enumerate(walk(tree)):
        if not ancestors:
            continue
        for name, operator in MUTATION_OPERATORS.items():
            family = operator_family(node) if name == "operator_replacement" and type(node) in OPERATOR_ALTERNATIVES else name
            for description, transform in operator(node, ancestors):
                sites.append(Site(family, file, node.lineno, node_index, description, transform))
    return sites


def _second_order_pairs(sites: list[Site | SvSite],
                        generator: random.Random) -> Iterator[tuple[Site | SvSite, Site | SvSite]]:
    """Pairs of sites in one file on different lines, in a seeded order."""
    pairs = [(first, second) for first, second in itertools.combinations(sites, 2)
             if first.file == second.file and first.line != second.line]
    generator.shuffle(pairs)
    yield from pairs


def make_mutants(design: Design, count: int, seed: int = 0) -> list[Mutant]:
    """`count` distinct mutants (fewer if the design has fewer sites), spread over the operators.

    First-order mutants (one edit) come first, round-robin over the operators. A small design
    may have fewer distinct ones than `count`; it is topped up with second-order mutants (two
    edits on different lines), the usual higher-order mutants of mutation testing.
    """
    rtl = split_rtl(design)
    if not rtl.sources:
        raise HdlrlError(f"no RTL file can be mutated: {rtl.why_skipped()}", design.root)
    if rtl.skipped:
        warnings.warn(f"{design.name}: {len(rtl.skipped)} RTL file(s) without mutants: {rtl.why_skipped()}",
                      stacklevel=2)
    by_operator: dict[str, list[Site | SvSite]] = {}
    for file, source in rtl.sources.items():
        for site in source.sites() if isinstance(source, SvSource) else enumerate_sites(file, source.tree):
            by_operator.setdefault(site.operator, []).append(site)
    generator = random.Random(seed)
    queues = []
    for operator in sorted(by_operator):
        sites = by_operator[operator]
        generator.shuffle(sites)
        queues.append(list(sites))
    generator.shuffle(queues)

    seen = {normalise(source.text if isinstance(source, SvSource) else unparse(source))
            for source in rtl.sources.values()}
    mutants: list[Mutant] = []

    def add(edits: list[Site | SvSite]) -> None:  # the sites of one file, so of one engine
        source = rtl.sources[edits[0].file]
        text = (source.render(edits) if isinstance(source, SvSource)
                else unparse(ParsedSource(edited_tree(source.tree, edits), source.header)))
        if text is not None and normalise(text) not in seen:
            seen.add(normalise(text))
            mutants.append(Mutant(len(mutants), seed, "+".join(site.operator for site in edits), edits[0].file,
                                  edits[0].line, "; ".join(f"line {site.line}: {site.description}" for site in edits),
                                  text))

    while queues and len(mutants) < count:
        for queue in list(queues):
            if len(mutants) == count:
                break
            if not queue:
                queues.remove(queue)
                continue
            add([queue.pop(0)])
    all_sites = sorted((site for sites in by_operator.values() for site in sites),
                       key=lambda site: (site.file, site.node_index, site.operator, site.description))
    for pair in _second_order_pairs(all_sites, generator) if len(mutants) < count else ():
        add(list(pair))
        if len(mutants) == count:
            break
    return mutants


def check_round_trip(design: Design, passes: Callable[[Design], bool]) -> None:
    """Raise, naming the file, if an unparsed RTL file no longer passes the design's testbench.

    `passes` runs the testbench (e.g. `lambda d: evaluate(d, pdk, flow).verified`); it is a
    parameter so that this module does not depend on the evaluation stack. One run when all
    is well; more only when the round trip fails, to tell a broken reference from a broken
    round trip and to name the file.
    """
    printed = {file: unparse(source) for file, source in split_rtl(design).sources.items()
               if isinstance(source, ParsedSource)}
    if not printed:  # pyslang's mutants are edits of the text as written: no printer to check
        return
    with tempfile.TemporaryDirectory(prefix="hdlrl-roundtrip-") as scratch:
        def passes_with(files: list[str]) -> bool:
            folder = Path(scratch) / "-".join(files).replace("/", "_")
            return passes(design.with_rtl(write_sources(design, {file: printed[file] for file in files}, folder)))

        if passes_with(list(printed)):
            return
        if not passes(design):
            raise HdlrlError("the reference RTL does not pass its own testbench; mutants would be meaningless",
                             design.root)
        culprit = next((file for file in printed if not passes_with([file])), next(iter(printed)))
        raise HdlrlError("pyverilog's round trip of this file changes its behaviour (the unparsed text fails "
                         "the testbench); no mutants can be made from it", design.root / culprit)
