"""pyslang's syntax tree as the pyslang reader walks it: children, text, and IR expressions.

`to_expression` turns an expression node into an `hdlrl.hdl.ir.Expression` (its text as written,
its operators and names in pre-order, the value of a lone literal); the other functions find
their way through the tree: the nodes among a node's children, a generate construct's
contents, the module items inside generate constructs, the signals an assignment writes.
Used by `hdlrl.hdl.readers.pyslang_reader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pyslang import parsing, syntax
from pyslang.syntax import SyntaxKind, SyntaxNode

from hdlrl.hdl.constants import literal_value
from hdlrl.hdl.ir import OPERATORS, Expression

INCREMENTS = {SyntaxKind.PostincrementExpression: "add", SyntaxKind.UnaryPreincrementExpression: "add",
              SyntaxKind.PostdecrementExpression: "subtract", SyntaxKind.UnaryPredecrementExpression: "subtract"}
# Operators that no token names: `x++` reads as `x + 1`.
_SHAPES = {SyntaxKind.ConditionalExpression: "conditional", SyntaxKind.ConcatenationExpression: "concatenate",
           SyntaxKind.MultipleConcatenationExpression: "replicate", **INCREMENTS}
# `x += e` reads as `x + e`: its operator is the one before the `=`.
COMPOUND_ASSIGNMENTS = {kind for kind in SyntaxKind if kind.name.endswith("AssignmentExpression")} - {
    SyntaxKind.AssignmentExpression, SyntaxKind.NonblockingAssignmentExpression}
_IDENTIFIERS = {SyntaxKind.IdentifierName, SyntaxKind.IdentifierSelectName}
GENERATES = {SyntaxKind.GenerateRegion, SyntaxKind.LoopGenerate, SyntaxKind.IfGenerate, SyntaxKind.CaseGenerate,
             SyntaxKind.GenerateBlock}


def child_nodes(items: Iterable) -> Iterator[SyntaxNode]:
    """The nodes among `items`, without the tokens (a separated list's commas)."""
    return (item for item in items if isinstance(item, SyntaxNode))


def _tokens(node: SyntaxNode) -> Iterator[parsing.Token]:
    for child in node:
        if isinstance(child, SyntaxNode):
            yield from _tokens(child)
        elif child:
            yield child


def node_text(node: SyntaxNode) -> str:
    """The node's tokens as written, macros expanded, comments dropped and whitespace collapsed to one space."""
    pieces: list[str] = []
    for token in _tokens(node):
        if pieces and token.trivia:
            pieces.append(" ")
        pieces.append(token.rawText)
    return "".join(pieces)


def unwrap(node: SyntaxNode) -> SyntaxNode:
    """The expression inside parentheses, or inside a port connection (which slang parses as a property)."""
    while node.kind in (SyntaxKind.SimplePropertyExpr, SyntaxKind.SimpleSequenceExpr, SyntaxKind.ParenthesizedExpression):
        node = node.expression if node.kind == SyntaxKind.ParenthesizedExpression else node.expr
    return node


def generate_label(block: syntax.GenerateBlockSyntax) -> str | None:
    """`begin : name` or `name : begin`."""
    clause = block.beginName or block.label
    return clause.name.valueText if clause else None


def generate_contents(node: SyntaxNode) -> list[SyntaxNode]:
    """The items a generate construct holds: a loop's body, a conditional's branches, a region's or block's members."""
    if node.kind == SyntaxKind.LoopGenerate:
        return [node.block]
    if node.kind == SyntaxKind.IfGenerate:
        return [node.block, *([node.elseClause.clause] if node.elseClause else [])]
    if node.kind == SyntaxKind.CaseGenerate:
        return [item.clause for item in child_nodes(node.items)]
    return list(node.members)


def module_items(members: Iterable[SyntaxNode]) -> Iterator[SyntaxNode]:
    """Module items, those inside generate constructs included (they declare real nets and constants)."""
    for member in members:
        if member.kind in GENERATES:
            yield from module_items(generate_contents(member))
        else:
            yield member


def first_identifier(node: SyntaxNode) -> str | None:
    """The first name in `node`, pre-order: the signal of `q[3:0]`, `mem[addr]`, `s.field`, `posedge clk`."""
    if node.kind in _IDENTIFIERS:
        return node.identifier.valueText
    return next((name for child in child_nodes(node) if (name := first_identifier(child))), None)


def assigned_names(node: SyntaxNode) -> tuple[str, ...]:
    """Every signal an assignment target writes: the elements of a concatenation, else its one base name."""
    node = unwrap(node)
    if node.kind == SyntaxKind.ConcatenationExpression:
        return tuple(name for element in child_nodes(node.expressions) for name in assigned_names(element))
    name = first_identifier(node)
    return (name,) if name else ()


def _operator(node: SyntaxNode) -> str | None:
    if node.kind in _SHAPES:
        return _SHAPES[node.kind]
    if isinstance(node, syntax.BinaryExpressionSyntax):
        written = node.operatorToken.rawText
        return OPERATORS.get(written[:-1] if node.kind in COMPOUND_ASSIGNMENTS else written)
    if isinstance(node, syntax.PrefixUnaryExpressionSyntax):
        written = node.operatorToken.rawText.replace("^~", "~^")  # both spell the reduction xnor
        return OPERATORS.get(f"unary {written}", OPERATORS.get(written))
    return None


def _collect(node: SyntaxNode, operators: list[str], identifiers: dict[str, None]) -> None:
    """Operators and names of `node` in pre-order: a node's operator, then its operands left to right."""
    if node.kind in _IDENTIFIERS:
        identifiers[node.identifier.valueText] = None
    operator = _operator(node)
    if operator:
        operators.append(operator)
    # `{4{a, b}}` is one replication: its inner braces are no concatenation of their own
    children = ((node.expression, *node.concatenation.expressions)
                if node.kind == SyntaxKind.MultipleConcatenationExpression else node)
    for child in child_nodes(children):
        _collect(child, operators, identifiers)


def _constant(node: SyntaxNode) -> int | None:
    """The value of a lone number literal; `'0` is 0, while `'1` has no width and so no value."""
    node = unwrap(node)
    if node.kind in (SyntaxKind.IntegerLiteralExpression, SyntaxKind.IntegerVectorExpression):
        return literal_value("".join(token.rawText for token in _tokens(node)))
    if node.kind == SyntaxKind.UnbasedUnsizedLiteralExpression and node.literal.rawText == "'0":
        return 0
    return None


def to_expression(node: SyntaxNode) -> Expression:
    operators: list[str] = []
    identifiers: dict[str, None] = {}  # an ordered set
    _collect(node, operators, identifiers)
    return Expression(node_text(node), tuple(operators), tuple(identifiers), _constant(node))
