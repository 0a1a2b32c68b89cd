"""Shifter architectures: a variable logical shift `a << s` or `a >> s` rebuilt as an explicit
shifter module whose structure synthesis keeps.

Yosys maps a variable shift to its own logarithmic shifter and ABC then restructures it for
area, so the RTL has no say in the order of the stages or in a flat multiplexer. Written out
with each stage's output a `(* keep *)` wire, the structure chosen in the RTL is the one that
gets built.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.instances import (REWRITE_PREFIX, operator_nodes, extended, instance_can_stand_in,
                                          instance_output, parsed_module, plain_operand, result_used)
from hdlrl.hdl.rewrites.scope import Scope, enclosing_module, literal

ARCHITECTURES = ("log", "mux", "log_reversed")
OPERAND_WIDTHS = range(4, 65)
DIRECTIONS = {ast.Sll: "l", ast.Srl: "r"}


# ---------------------------------------------------------------------------- the shifter modules

@dataclass(frozen=True)
class Stage:
    """One 2:1 mux stage: where `select` is set, its output is its input shifted by `distance`."""

    select: str
    distance: int


def log_stages(width: int, amount_width: int) -> list[Stage]:
    """A stage per bit of `s` worth less than `width`, smallest first, then one stage that
    clears the result when any higher bit is set (each of those alone shifts everything out)."""
    useful = min(amount_width, (width - 1).bit_length())
    stages = [Stage(f"s[{bit}]", 1 << bit) for bit in range(useful)]
    if amount_width > useful:
        high = amount_width - 1
        stages.append(Stage(f"s[{high}]" if high == useful else f"|s[{high}:{useful}]", width))
    return stages


def shifted(value: str, distance: int, direction: str, width: int) -> str:
    """`value` (a `width`-bit net) shifted by a constant, as a concatenation of its kept bits."""
    if distance == 0:
        return value
    if distance >= width:
        return f"{width}'d0"
    if direction == "l":
        return f"{{{value}[{width - 1 - distance}:0], {distance}'d0}}"
    return f"{{{distance}'d0, {value}[{width - 1}:{distance}]}}"


def module_name(architecture: str, direction: str, width: int, amount_width: int) -> str:
    return f"{REWRITE_PREFIX}shift_{architecture}_{direction}{width}s{amount_width}"


def shifter_module(architecture: str, direction: str, width: int, amount_width: int) -> ast.ModuleDef:
    """`y = a << s` (direction "l") or `a >> s` ("r") on `width` bits, `s` of `amount_width`."""
    output = "output reg" if architecture == "mux" else "output"
    header = (f"module {module_name(architecture, direction, width, amount_width)}(input [{width - 1}:0] a, "
              f"input [{amount_width - 1}:0] s, {output} [{width - 1}:0] y);")
    if architecture == "mux":
        return parsed_module([header] + _case_lines(direction, width, amount_width))
    stages = log_stages(width, amount_width)
    return parsed_module([header] + _stage_lines(stages[::-1] if architecture == "log_reversed" else stages,
                                                 direction, width))


def _stage_lines(stages: list[Stage], direction: str, width: int) -> list[str]:
    """The stages in the order given, each reading the one before; declared, then assigned,
    since a net declaration assignment cannot carry an attribute."""
    lines, previous = [], "a"
    for number, stage in enumerate(stages):
        lines += [f"  (* keep *) wire [{width - 1}:0] stage{number};",
                  f"  assign stage{number} = {stage.select} ? {shifted(previous, stage.distance, direction, width)}"
                  f" : {previous};"]
        previous = f"stage{number}"
    return lines + [f"  assign y = {previous};"]


def _case_lines(direction: str, width: int, amount_width: int) -> list[str]:
    """One case per shift amount `s` can hold below `width`; a default (zero) only where `s`
    can hold more."""
    amounts = range(min(width, 1 << amount_width))
    lines = ["  always @* begin", "    case (s)"]
    lines += [f"      {amount_width}'d{amount}: y = {shifted('a', amount, direction, width)};" for amount in amounts]
    if len(amounts) < 1 << amount_width:
        lines.append(f"      default: y = {width}'d0;")
    return lines + ["    endcase", "  end"]


# ---------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class Shift:
    """A shift site: operands, the shifter's width and the width the result is assigned at."""

    value: ast.Node
    amount: ast.Node
    direction: str
    width: int
    amount_width: int
    result_width: int


class ShifterArchitecture(RewriteRule):
    """Build a variable logical shift `a << s` or `a >> s` (unsigned `a` of 4 to 64 bits, `s`
    not constant) as an explicit shifter module of the architecture chosen:

    `log`: a logarithmic barrel shifter, one 2:1 mux stage per bit of `s` (shifting by 1, 2,
    4... then clearing for any larger amount), n log2 n muxes at log2 n levels. Yosys builds
    much the same from the operator (alone, on Nangate45: the same levels, 5% more area), so
    it pays by fixing that structure where ABC would otherwise fold the stages into the
    logic around them. `log_reversed`: the same stages with the large shifts first, for an
    amount whose low bits arrive late (they then cross one stage only); alone, one level
    more. `mux`: one multiplexer over every shift amount: the same levels and 13% more area
    at 8 bits, twice the area at 32, so worth trying on narrow shifters only. A result
    assigned wider than `a` keeps Verilog's meaning: a left shift is built at the
    assignment's width, a right shift is zero-extended. Offered where the shift, of a
    self-sized `a`, is the whole right-hand side of an assignment that is used.
    """

    name = "shifter_architecture"
    family = "arithmetic"
    options = ARCHITECTURES

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        for index, node, ancestors, scope in operator_nodes(tree, tuple(DIRECTIONS)):
            shape = shift(node, ancestors, scope)
            if shape is None or not instance_can_stand_in(node, ancestors) or not result_used(ancestors[-2], scope):
                continue
            sites += [self.site(file, node, index, f"{render(node)} as a {shape.width}-bit {architecture} shifter",
                                architecture) for architecture in ARCHITECTURES]
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        shape = shift(node, ancestors, scope)
        name = module_name(site.option, shape.direction, shape.width, shape.amount_width)
        result = instance_output(
            tree, module, name,
            lambda: shifter_module(site.option, shape.direction, shape.width, shape.amount_width),
            {"a": extended(shape.value, shape.width, scope), "s": shape.amount}, ("y", shape.width), "shifted")
        replace_child(ancestors[-1], node, fitted(result, shape.width, shape.result_width))


def shift(node: ast.Node, ancestors: tuple[ast.Node, ...], scope: Scope) -> Shift | None:
    """The shape of a shift the rule can rebuild, else None.

    The assignment's width is the shift's context: `a` is extended to it before shifting, so
    a left shift into a wider target keeps the bits shifted above `a`."""
    assignment = ancestors[-2]
    if not isinstance(assignment, ASSIGNMENTS + (ast.Assign,)):
        return None
    value_width, amount_width = scope.width(node.left), scope.width(node.right)
    result_width = scope.width(assignment.left.var)
    if value_width not in OPERAND_WIDTHS or amount_width is None or result_width is None:
        return None
    if not plain_operand(node.left, scope) or scope.constant(node.right) is not None \
            or not scope.unsigned(node.right):
        return None
    direction = DIRECTIONS[type(node)]
    width = max(value_width, result_width) if direction == "l" else value_width
    if width not in OPERAND_WIDTHS:
        return None
    return Shift(node.left, node.right, direction, width, amount_width, result_width)


def fitted(result: ast.Identifier, width: int, result_width: int) -> ast.Node:
    """The `width`-bit result at the assignment's width: its low bits, or zero-extended."""
    if result_width < width:
        return ast.Partselect(result, ast.IntConst(str(result_width - 1)), ast.IntConst("0"))
    if result_width > width:
        return ast.Concat((literal(0, result_width - width), result))
    return result
