"""What every architecture rewrite rule is: a finder of sites and an AST-to-AST edit.

A rule never touches its input: `apply` edits a deep copy and returns it, so the policy can
try many rules on one parsed file. A site names its node by its index in `walk` order, which
a deep copy keeps, and carries an `option` when a rule has variants (an encoding, an adder
architecture).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import node_at
from hdlrl.hdl.verilog_ast import ParsedSource


@dataclass(frozen=True)
class RewriteSite:
    rule: str
    file: str  # RTL path relative to the design root
    line: int
    node_index: int  # the rewritten node's index in `walk(tree)` order
    description: str
    option: str = ""  # the variant, for rules that have several
    source: ParsedSource | None = field(default=None, compare=False, repr=False)  # set by the registry


class RewriteRule(ABC):
    """One kind of architecture change; its docstring says what hardware changes and when it helps."""

    name: str
    family: str
    options: tuple[str, ...] = ("",)  # the variants its sites carry; "" for a rule without any

    @abstractmethod
    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        """Every place in `tree` where this rule applies, in walk order."""

    def apply(self, tree: ast.Source, site: RewriteSite) -> ast.Source:
        """A rewritten copy of `tree`; `tree` itself is untouched."""
        tree = copy.deepcopy(tree)
        node, ancestors = node_at(tree, site.node_index)
        self.rewrite(tree, node, ancestors, site)
        return tree

    @abstractmethod
    def rewrite(self, tree: ast.Source, node: ast.Node, ancestors: tuple[ast.Node, ...], site: RewriteSite) -> None:
        """Edit `tree` (already a copy) in place at `node`."""

    def site(self, file: str, node: ast.Node, node_index: int, description: str, option: str = "") -> RewriteSite:
        return RewriteSite(self.name, file, node.lineno, node_index, description, option)
