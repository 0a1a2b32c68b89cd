"""Editing pyverilog ASTs: walking a tree, finding a node by index, replacing it, printing it.

A node is named by its index in `walk` order, which a deep copy keeps, so a site found on one
tree can be applied to a copy of it (`edited_tree`). Used by the mutation operators
(`hdlrl.hdl.mutants`) and the architecture rewrites (`hdlrl.hdl.rewrites`). `Number` reads
and re-prints a Verilog integer literal so that either can change it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.verilog_ast import unparse

ASSIGNMENTS = (ast.BlockingSubstitution, ast.NonblockingSubstitution)
_NUMBER = re.compile(r"^(?P<size>\d*)'(?P<signed>[sS]?)(?P<base>[bBoOdDhH])(?P<digits>[0-9a-fA-F_]+)$")
_BASES = {"b": 2, "o": 8, "d": 10, "h": 16}


@dataclass(frozen=True)
class Site:
    """One possible edit: the `node_index`-th node of a file's walk, transformed by `transform`."""

    operator: str
    file: str
    line: int
    node_index: int
    description: str
    transform: Callable[[ast.Node], ast.Node | None]


def walk(node: ast.Node, ancestors: tuple[ast.Node, ...] = ()) -> Iterator[tuple[ast.Node, tuple[ast.Node, ...]]]:
    """Every node with its ancestors (nearest last), in a fixed depth-first order."""
    yield node, ancestors
    for child in node.children():
        if isinstance(child, ast.Node):
            yield from walk(child, ancestors + (node,))


def node_at(tree: ast.Node, index: int) -> tuple[ast.Node, tuple[ast.Node, ...]]:
    """The node at `index` in walk order, with its ancestors."""
    for position, entry in enumerate(walk(tree)):
        if position == index:
            return entry
    raise IndexError(f"the tree has no node {index}")


def replace_child(parent: ast.Node, old: ast.Node, new: ast.Node | None) -> None:
    """Put `new` where `old` is among `parent`'s fields; None removes it from a tuple or list."""
    for field, value in vars(parent).items():
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, (tuple, list)) and any(item is old for item in value):
            items = [new if item is old else item for item in value if item is not old or new is not None]
            setattr(parent, field, type(value)(items))
            return
    raise ValueError("node is not a child of its parent")


def edited_tree(tree: ast.Node, sites: list[Site]) -> ast.Node:
    """A copy of `tree` with each site's node transformed; the original is untouched.

    Sites are applied from the last node in walk order to the first, so that an edit never
    renumbers a node that is still to be edited (only later nodes can move)."""
    tree = copy.deepcopy(tree)
    for site in sorted(sites, key=lambda site: site.node_index, reverse=True):
        node, ancestors = node_at(tree, site.node_index)
        replace_child(ancestors[-1], node, site.transform(node))
    return tree


def render(node: ast.Node) -> str:
    """One-line Verilog for a node, for descriptions."""
    return " ".join(unparse(node).split())


@dataclass(frozen=True)
class Number:
    """A Verilog integer literal without x/z digits, so that it can be changed and re-printed."""

    value: int
    size: int | None
    signed: str
    base: str

    @staticmethod
    def parse(text: str) -> "Number | None":
        text = text.replace(" ", "")
        if text.replace("_", "").isdigit():
            return Number(int(text.replace("_", "")), None, "", "")
        match = _NUMBER.match(text)
        if match is None:
            return None
        base = match.group("base").lower()
        try:
            value = int(match.group("digits").replace("_", ""), _BASES[base])
        except ValueError:
            return None
        size = int(match.group("size")) if match.group("size") else None
        return Number(value % (1 << size) if size else value, size, match.group("signed"), base)

    def with_value(self, value: int) -> str:
        if self.size:
            value %= 1 << self.size
        if not self.base:
            return str(value)
        digits = {"b": "b", "o": "o", "d": "d", "h": "x"}[self.base]
        return f"{self.size or ''}'{self.signed}{self.base}{value:{digits}}"

    def variants(self) -> list[tuple[str, str]]:
        """(how, literal) for +1, -1 and one flipped bit (the top bit of a sized literal)."""
        flipped_bit = self.size - 1 if self.size else max(self.value.bit_length(), 1)
        changes = [("+1", self.value + 1), ("flip bit %d" % flipped_bit, self.value ^ (1 << flipped_bit))]
        if self.value > 0 or self.size:
            changes.insert(1, ("-1", self.value - 1))
        return [(how, self.with_value(value)) for how, value in changes]
