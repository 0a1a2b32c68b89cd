"""Multiplier architectures: an unsigned `a * b` rebuilt as an explicit multiplier module.

Yosys maps `*` to a generic shift-and-add array and ABC then restructures it freely, so the
RTL has no say in the architecture. Written out as partial products and a tree of full and
half adders whose outputs are `(* keep *)` wires, the tree survives ABC and the architecture
chosen in the RTL is the one that gets built. Every architecture reduces the partial products
to two rows and ends in a plain `+`, the final adder Yosys maps.

A product needed at fewer bits than the full `wa + wb` is built with only its low columns:
carries only move up, so the low bits are exact, and kept cells above them would survive as
dead logic.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from pyverilog.vparser import ast

from hdlrl.hdl.ast_edit import ASSIGNMENTS, render, replace_child
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.instances import (REWRITE_PREFIX, operator_nodes, instance_can_stand_in,
                                          instance_output, plain_operand, result_used)
from hdlrl.hdl.rewrites.scope import Scope, enclosing_module, literal
from hdlrl.hdl.verilog_ast import parse_verilog

ARCHITECTURES = ("array", "wallace", "dadda", "booth_radix4")
OPERAND_WIDTHS = range(4, 33)

Columns = list[list[str]]  # the bits (Verilog expressions) of each weight, earliest-ready first
# (column, bits in it, carries arriving from the column below in this layer) -> (full, half adders)
Plan = Callable[[int, int, int], tuple[int, int]]


# ---------------------------------------------------------------------------- compressor cells

@dataclass
class Cells:
    """The module body: wires written as Verilog lines, compressor outputs kept from ABC."""

    lines: list[str] = field(default_factory=list)
    count: int = 0

    def kept(self, name: str, width: int, expression: str) -> str:
        # declared, then assigned: a net declaration assignment cannot carry an attribute
        self.lines += [f"  (* keep *) wire {_range(width)}{name};", f"  assign {name} = {expression};"]
        return name

    def compress(self, bits: list[str], with_carry: bool) -> tuple[str, str | None]:
        """A full adder over three bits or a half adder over two: (sum, carry or None).

        The top column has no carry: the product never overflows its width, and a carry
        out of a truncated product is not wanted."""
        number, self.count = self.count, self.count + 1
        total = self.kept(f"sum{number}", 1, " ^ ".join(bits))
        if not with_carry:
            return total, None
        majority = " | ".join(f"{x} & {y}" for x, y in itertools.combinations(bits, 2))
        return total, self.kept(f"carry{number}", 1, majority)


def _range(width: int) -> str:
    return f"[{width - 1}:0] " if width > 1 else ""


def layer(columns: Columns, cells: Cells, plan: Plan) -> Columns:
    """One level of compressors: each column's first bits go into the cells `plan` asks for,
    sums stay in the column and carries move one column up, after the bits that waited."""
    waiting: Columns = [[] for _ in columns]
    produced: Columns = [[] for _ in columns]
    carries_in = 0
    for column, bits in enumerate(columns):
        full, half = plan(column, len(bits), carries_in)
        sizes = [3] * full + [2] * half
        if sum(sizes) > len(bits):
            raise AssertionError(f"column {column} has {len(bits)} bits for {full} full and {half} half adders")
        start = 0
        for size in sizes:
            total, carry = cells.compress(bits[start:start + size], column + 1 < len(columns))
            produced[column].append(total)
            if carry is not None:
                produced[column + 1].append(carry)
            start += size
        waiting[column] = bits[start:]
        carries_in = full + half
    return [early + late for early, late in zip(waiting, produced)]


def array(rows: list[tuple[int, list[str]]], width: int, cells: Cells) -> Columns:
    """A carry-save array: each partial-product row is added by its own row of adders to
    the running (sum, carry) pair, so the path is as long as the rows are many."""
    columns: Columns = [[] for _ in range(width)]
    for offset, bits in rows:
        touched = range(offset, min(offset + len(bits), width))
        for column in touched:
            columns[column].append(bits[column - offset])
        columns = layer(columns, cells, lambda column, height, _: (int(height == 3), int(height == 2))
                        if column in touched else (0, 0))
    return columns


def wallace(columns: Columns, cells: Cells) -> Columns:
    """Wallace: every level compresses all it can (threes to full adders, a leftover pair to
    a half adder) until two rows remain; log-depth at the cost of extra half adders."""
    while max(map(len, columns)) > 2:
        columns = layer(columns, cells, lambda _, height, __: (height // 3, int(height % 3 == 2)))
    return columns


def dadda(columns: Columns, cells: Cells) -> Columns:
    """Dadda: each level compresses only down to the next height of 2, 3, 4, 6, 9, 13...,
    counting the carries that arrive from below: the same depth as Wallace, fewer cells."""
    for target in dadda_heights(max(map(len, columns))):
        columns = layer(columns, cells, lambda _, height, carries_in, target=target:
                        divmod(max(height + carries_in - target, 0), 2))
    return columns


def dadda_heights(height: int) -> list[int]:
    """The heights below `height` that Dadda's levels reduce to, largest first."""
    heights, next_height = [], 2
    while next_height < height:
        heights.append(next_height)
        next_height = next_height * 3 // 2
    return heights[::-1]


# ---------------------------------------------------------------------------- partial products

@dataclass(frozen=True)
class Operands:
    """The ports by width: each bit (or Booth digit) of the narrow operand selects one row
    made of the wide operand, so the rows are as few and the tree as short as they can be."""

    wide: str
    wide_width: int
    narrow: str
    narrow_width: int


def operands(width_a: int, width_b: int) -> Operands:
    return Operands("a", width_a, "b", width_b) if width_b <= width_a else Operands("b", width_b, "a", width_a)


def and_rows(ports: Operands, width: int, cells: Cells) -> list[tuple[int, list[str]]]:
    """One row `wide & {n{narrow[i]}}` per bit of the narrow operand, at offset i."""
    rows = []
    for row in range(min(ports.narrow_width, width)):
        cells.lines.append(f"  wire {_range(ports.wide_width)}pp{row} = {ports.wide} & "
                           f"{{{ports.wide_width}{{{ports.narrow}[{row}]}}}};")
        rows.append((row, [f"pp{row}[{bit}]" for bit in range(ports.wide_width)]))
    return rows


def booth_columns(ports: Operands, width: int, cells: Cells) -> Columns:
    """Radix-4 Booth partial products, one per two bits of the narrow operand y (x the wide).

    Digit i of y (zero-extended, so it reads as positive) is -2 y[2i+1] + y[2i] + y[2i-1],
    which selects 0, x or 2x and negates it. A negated row is written as its complement plus
    `neg` in its lowest column; its sign costs one bit, `~neg` above the row, and a constant
    -2^(top) per row, all constants summed into one set of bits."""
    digits = (ports.narrow_width + 2) // 2
    span = ports.wide_width + 1  # bits of 2x
    x, y = ports.wide, ports.narrow
    cells.lines.append(f"  wire [{2 * digits}:0] booth_bits = {{{2 * digits - ports.narrow_width}'d0, {y}, 1'b0}};")
    columns: Columns = [[] for _ in range(width)]
    constant = 0
    for digit in range(digits):
        offset = 2 * digit
        if offset >= width:
            break
        high, middle, low = (f"booth_bits[{offset + bit}]" for bit in (2, 1, 0))
        used = min(span, width - offset)
        cells.lines += [f"  wire one{digit} = {middle} ^ {low};",
                        f"  wire two{digit} = {high} & ~{middle} & ~{low} | ~{high} & {middle} & {low};",
                        f"  wire neg{digit} = {high};",
                        f"  wire [{ports.wide_width}:0] select{digit} = {{1'b0, {x}}} & {{{span}{{one{digit}}}}}"
                        f" | {{{x}, 1'b0}} & {{{span}{{two{digit}}}}};"]
        row = cells.kept(f"booth{digit}", used, f"select{digit}{_select(used)} ^ {{{used}{{neg{digit}}}}}")
        bits = [f"{row}[{bit}]" for bit in range(used)] if used > 1 else [row]
        for bit, name in enumerate(bits):
            columns[offset + bit].append(name)
        if offset + 1 < ports.narrow_width:  # y[2i+1] exists: this digit can be negative
            columns[offset].append(f"neg{digit}")
            _place(columns, offset + span, f"~neg{digit}")
            constant -= 1 << (offset + span)
    for column in range(width):
        if constant >> column & 1:
            columns[column].append("1'b1")
    return columns


def _select(used: int) -> str:
    return f"[{used - 1}:0]" if used > 1 else "[0]"


def _place(columns: Columns, column: int, bit: str) -> None:
    """Put `bit` in `column` unless the product is truncated below it."""
    if column < len(columns):
        columns[column].append(bit)


def _columns(rows: list[tuple[int, list[str]]], width: int) -> Columns:
    columns: Columns = [[] for _ in range(width)]
    for offset, bits in rows:
        for bit, name in enumerate(bits):
            _place(columns, offset + bit, name)
    return columns


# ---------------------------------------------------------------------------- the module

def two_rows(columns: Columns) -> list[str]:
    """The reduced columns as the two operands of the final adder, msb first."""
    if max(map(len, columns)) > 2:
        raise AssertionError(f"the tree left columns of {max(map(len, columns))} bits")
    return [", ".join(bits[row] if row < len(bits) else "1'b0" for bits in reversed(columns)) for row in (0, 1)]


def module_name(architecture: str, width_a: int, width_b: int, product_width: int) -> str:
    truncated = f"_low{product_width}" if product_width < width_a + width_b else ""
    return f"{REWRITE_PREFIX}{architecture}_mul{width_a}x{width_b}{truncated}"


def multiplier(architecture: str, width_a: int, width_b: int, product_width: int | None = None) -> ast.ModuleDef:
    """`p = a * b` (unsigned, the low `product_width` bits, all by default) as a module AST."""
    text = multiplier_verilog(architecture, width_a, width_b, product_width)
    return parse_verilog(text).tree.description.definitions[0]


def multiplier_verilog(architecture: str, width_a: int, width_b: int, product_width: int | None = None) -> str:
    """The text of `multiplier`."""
    width = min(product_width or width_a + width_b, width_a + width_b)
    cells = Cells()
    rows = two_rows(_reduced(architecture, operands(width_a, width_b), width, cells))
    lines = [f"module {module_name(architecture, width_a, width_b, width)}(input [{width_a - 1}:0] a, "
             f"input [{width_b - 1}:0] b, output {_range(width)}p);",
             *cells.lines,
             f"  wire {_range(width)}sum_row = {{{rows[0]}}};",
             f"  wire {_range(width)}carry_row = {{{rows[1]}}};",
             "  assign p = sum_row + carry_row;",
             "endmodule"]
    return "\n".join(lines) + "\n"


def _reduced(architecture: str, ports: Operands, width: int, cells: Cells) -> Columns:
    """The partial products of `architecture`, compressed to at most two bits per column."""
    if architecture == "booth_radix4":
        return dadda(booth_columns(ports, width, cells), cells)
    rows = and_rows(ports, width, cells)
    if architecture == "array":
        return array(rows, width, cells)
    return {"wallace": wallace, "dadda": dadda}[architecture](_columns(rows, width), cells)


# ---------------------------------------------------------------------------- the rule

@dataclass(frozen=True)
class Product:
    """An `a * b` site: its operands, their widths and the width the result is assigned at."""

    a: ast.Node
    b: ast.Node
    width_a: int
    width_b: int
    result_width: int


class MultiplierArchitecture(RewriteRule):
    """Build an unsigned `a * b` (4 to 32 bits each) as an explicit multiplier module whose
    partial products and adder tree synthesis keeps, of the architecture chosen:

    `array`: one row of carry-save adders per partial product; few, regular cells but a path
    through every row, for small or off-critical-path multipliers. `wallace`: a column
    compression tree of log depth that spends extra half adders. `dadda`: the same depth
    with the fewest full and half adders. `booth_radix4`: radix-4 Booth recoding halves the
    partial products before a Dadda tree; its recoding muxes cost more than they save at 8
    bits, and it is the smallest from about 16 bits up. Each ends in a `+` that Yosys maps
    (near-ripple after ABC, the longest part of a tree's path). Offered where the product of
    non-constant, unsigned, self-sized operands is the whole right-hand side of a used
    assignment, outside loops, functions and blocks an instance cannot wake; a result
    narrower than the product gets only the low columns.
    """

    name = "multiplier_architecture"
    family = "arithmetic"
    options = ARCHITECTURES

    def sites(self, file: str, tree: ast.Source) -> list[RewriteSite]:
        sites = []
        for index, node, ancestors, scope in operator_nodes(tree, (ast.Times,)):
            shape = product(node, ancestors, scope)
            if shape is None or not instance_can_stand_in(node, ancestors) or not result_used(ancestors[-2], scope):
                continue
            sites += [self.site(file, node, index, f"{render(node)} as a {shape.width_a}x{shape.width_b} "
                                                   f"{architecture} multiplier", architecture)
                      for architecture in ARCHITECTURES]
        return sites

    def rewrite(self, tree, node, ancestors, site) -> None:
        module = enclosing_module(ancestors)
        scope = Scope(module)
        shape = product(node, ancestors, scope)
        width = min(shape.result_width, shape.width_a + shape.width_b)
        total = instance_output(
            tree, module, module_name(site.option, shape.width_a, shape.width_b, width),
            lambda: multiplier(site.option, shape.width_a, shape.width_b, width),
            {"a": shape.a, "b": shape.b}, ("p", width), "product")
        missing = shape.result_width - width
        replace_child(ancestors[-1], node, ast.Concat((literal(0, missing), total)) if missing else total)


def product(node: ast.Times, ancestors: tuple[ast.Node, ...], scope: Scope) -> Product | None:
    """The shape of a multiplication the rule can rebuild, else None."""
    assignment = ancestors[-2]
    if not isinstance(assignment, ASSIGNMENTS + (ast.Assign,)):
        return None
    widths = [scope.width(operand) for operand in (node.left, node.right)]
    result_width = scope.width(assignment.left.var)
    if result_width is None or any(width not in OPERAND_WIDTHS for width in widths):
        return None
    if not all(plain_operand(operand, scope) for operand in (node.left, node.right)):
        return None
    return Product(node.left, node.right, widths[0], widths[1], result_width)
