"""Explicit adders, written as RTL whose carry structure synthesis keeps.

Yosys maps `+` to a Brent-Kung tree, and ABC then restructures it for area into something
close to a ripple chain: on a 64-bit subtractor the carry path is about 35 gates. Written out
with its group generate/propagate wires marked `(* keep *)`, the tree survives ABC, so the
architecture chosen in the RTL is the one that gets built. The trees, for n bits (counts
exact for powers of two):

- Brent-Kung is the tree with the fewest cells (2n - log2 n - 2) at 2 log2 n - 1 levels, the
  best area-delay-power product of the classic trees; the `core` variant keeps only the inner
  levels and lets ABC merge the first and last levels into the bit-level propagate/generate
  and sum logic.
- Kogge-Stone reaches the minimum of log2 n levels with a fan-out of 2, and pays for it with
  the most cells (n log2 n - n + 1) and the longest wires.
- Sklansky also has log2 n levels, with only (n/2) log2 n cells, but a cell at level k drives
  2^k others: fan-out n/2 at the last level, which slows a wide adder.
- Han-Carlson runs Kogge-Stone on the odd bits only and finishes the even bits one level
  later: (n/2) log2 n cells, fan-out 2, log2 n + 1 levels; half Kogge-Stone's wiring for one
  level.
- Ripple is the serial chain: n - 1 cells, the fewest, and n - 1 levels, the most.

A carry-select adder is not a prefix tree: it adds each block of a few bits above the first
twice, for a carry in of 0 and of 1, and a mux per block picks one by the carry from below.
That is about twice the area of the block adders for a carry path of one block plus a mux per
block. Both candidate results of a block are kept, or ABC would merge them back into one adder.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.rewrites.instances import REWRITE_PREFIX, parsed_module


@dataclass(frozen=True)
class PrefixNode:
    """(g, p)[bit] = (g, p)[bit] o (g, p)[lower]: one black cell, at one tree level, reading the
    values the level before left."""

    bit: int
    lower: int
    level: int


def brent_kung(width: int) -> list[PrefixNode]:
    """The up-sweep and down-sweep cells of a Brent-Kung tree over `width` bits, in level order."""
    depth = max(1, math.ceil(math.log2(width)))
    nodes, level = [], 0
    for stage in range(1, depth + 1):
        nodes += [PrefixNode(bit, bit - 2 ** (stage - 1), level) for bit in range(2 ** stage - 1, width, 2 ** stage)]
        level += 1
    for stage in range(depth, 0, -1):
        span = 2 ** stage
        nodes += [PrefixNode(bit, bit - span // 2, level) for bit in range(span + span // 2 - 1, width, span)]
        level += 1
    return nodes


def _log_depth(width: int) -> int:
    """ceil(log2 width): the fewest levels of two-input cells that reach bit 0 from every bit."""
    return (width - 1).bit_length()


def kogge_stone(width: int) -> list[PrefixNode]:
    """At level k every bit combines with the bit 2^k below it, so every span doubles per level."""
    return [PrefixNode(bit, bit - 2 ** level, level)
            for level in range(_log_depth(width)) for bit in range(2 ** level, width)]


def sklansky(width: int) -> list[PrefixNode]:
    """At level k every bit in the upper half of a 2^(k+1)-bit block combines with the top bit
    of the lower half, whose span already reaches the block's bottom."""
    return [PrefixNode(bit, (bit >> level << level) - 1, level)
            for level in range(_log_depth(width)) for bit in range(width) if bit >> level & 1]


def han_carlson(width: int) -> list[PrefixNode]:
    """Each odd bit takes in the even bit below, the odd bits finish as in Kogge-Stone (their
    partners are odd too), and a last level completes each even bit from the odd bit below."""
    depth = _log_depth(width)
    odd_bits = range(1, width, 2)
    nodes = [PrefixNode(bit, bit - 1, 0) for bit in odd_bits]
    nodes += [PrefixNode(bit, bit - 2 ** level, level)
              for level in range(1, depth) for bit in odd_bits if bit - 2 ** level > 0]
    return nodes + [PrefixNode(bit, bit - 1, depth) for bit in range(2, width, 2)]


def ripple(width: int) -> list[PrefixNode]:
    """Each bit combines with the complete prefix of the bit below: one cell per level."""
    return [PrefixNode(bit, bit - 1, bit - 1) for bit in range(1, width)]


PREFIX_TREES: dict[str, Callable[[int], list[PrefixNode]]] = {
    "brent_kung": brent_kung, "brent_kung_core": brent_kung, "kogge_stone": kogge_stone,
    "sklansky": sklansky, "han_carlson": han_carlson, "ripple": ripple,
}


def carry_select(block_size: int) -> str:
    """The option naming a carry-select adder of `block_size`-bit blocks."""
    return f"carry_select_{block_size}"


CARRY_SELECTS = {carry_select(size): size for size in (2, 4, 8)}  # option -> block size
ARCHITECTURES = tuple(PREFIX_TREES) + tuple(CARRY_SELECTS)


def offered_architectures(width: int) -> tuple[str, ...]:
    """The architectures of a `width`-bit adder: a carry-select block as wide as the adder
    would be a plain adder beside an unused copy."""
    return tuple(PREFIX_TREES) + tuple(name for name, size in CARRY_SELECTS.items() if size < width)


def module_name(architecture: str, width: int, subtract: bool) -> str:
    return f"{REWRITE_PREFIX}{architecture}_{'sub' if subtract else 'add'}{width}"


def adder_module(architecture: str, width: int, subtract: bool) -> ast.ModuleDef:
    """`s = a + b + cin` (or `a + ~b + cin`) on `width` bits with carry out, in `architecture`."""
    if architecture in PREFIX_TREES:
        return prefix_adder(architecture, width, subtract)
    return carry_select_adder(CARRY_SELECTS[architecture], width, subtract)


def _header(architecture: str, width: int, subtract: bool) -> str:
    return (f"module {module_name(architecture, width, subtract)}(input [{width - 1}:0] a, input [{width - 1}:0] b,"
            f" input cin, output [{width}:0] s);")


@dataclass(frozen=True)
class _Cell:
    """One net of the tree: a node's group generate or propagate."""

    name: str
    expression: str
    level: int
    inputs: tuple[str, ...]


def _prefix_cells(nodes: list[PrefixNode], width: int) -> tuple[list[_Cell], dict[int, str]]:
    """The nets of every node, and the net that ends up holding each bit's carry out."""
    generate = {bit: f"g_bit[{bit}]" for bit in range(width)}
    generate[0] = "g_in"
    propagate = {bit: f"p_bit[{bit}]" for bit in range(width)}
    cells = []
    for level, numbered in itertools.groupby(enumerate(nodes), key=lambda item: item[1].level):
        # a level reads what the level before left: a Kogge-Stone cell's lower bit changes on its own level
        g_before, p_before = dict(generate), dict(propagate)
        for number, node in numbered:
            g_bit, p_bit, g_lower, p_lower = (g_before[node.bit], p_before[node.bit],
                                              g_before[node.lower], p_before[node.lower])
            cells.append(_Cell(f"g_{number}", f"{g_bit} | ({p_bit} & {g_lower})", level, (g_bit, p_bit, g_lower)))
            cells.append(_Cell(f"p_{number}", f"{p_bit} & {p_lower}", level, (p_bit, p_lower)))
            generate[node.bit], propagate[node.bit] = f"g_{number}", f"p_{number}"
    return cells, generate


def _needed(cells: list[_Cell], outputs: set[str]) -> set[str]:
    """The nets `outputs` depend on: a tree's last propagates, for one, feed nothing."""
    used = set(outputs)
    for cell in reversed(cells):
        if cell.name in used:
            used |= set(cell.inputs)
    return used


def _kept_levels(architecture: str, levels: int) -> range:
    """Every level, or for the core variant the inner ones only: ABC may then fold the first
    level into the bit-level generate/propagate and the last into the sum XORs."""
    return range(1, levels - 1) if architecture == "brent_kung_core" else range(levels)


def prefix_adder(architecture: str, width: int, subtract: bool) -> ast.ModuleDef:
    """The adder (see `adder_module`) as bit-level (g, p), a prefix tree and the sum XORs."""
    nodes = PREFIX_TREES[architecture](width)
    levels = max(node.level for node in nodes) + 1 if nodes else 0
    kept_levels = _kept_levels(architecture, levels)
    cells, generate = _prefix_cells(nodes, width)
    used = _needed(cells, {generate[bit] for bit in range(width)})
    operand = "~b" if subtract else "b"
    lines = [_header(architecture, width, subtract),
             f"  wire [{width - 1}:0] p_bit = a ^ {operand};",
             f"  wire [{width - 1}:0] g_bit = a & {operand};",
             "  wire g_in = g_bit[0] | (p_bit[0] & cin);"]
    for cell in cells:
        if cell.name in used:  # declared, then assigned: a net declaration assignment cannot carry an attribute
            lines.append(f"  {'(* keep *) ' if cell.level in kept_levels else ''}wire {cell.name};")
            lines.append(f"  assign {cell.name} = {cell.expression};")
    carries = ", ".join([generate[bit] for bit in range(width - 2, -1, -1)] + ["cin"])
    lines.append(f"  assign s = {{{generate[width - 1]}, p_bit ^ {{{carries}}}}};")
    return parsed_module(lines)


def carry_select_adder(block_size: int, width: int, subtract: bool) -> ast.ModuleDef:
    """The adder (see `adder_module`) in blocks of `block_size` bits (the top one may be
    shorter): the lowest adds `cin`, each other adds both ways and selects by the carry below."""
    operand = "~b" if subtract else "b"
    blocks = [range(low, min(low + block_size, width)) for low in range(0, width, block_size)]
    lines = [_header(carry_select(block_size), width, subtract), f"  wire [{width - 1}:0] addend = {operand};",
             f"  wire [{len(blocks[0])}:0] sum_0 = {_block_operands(blocks[0])} + "
             f"{_widened('cin', 1, len(blocks[0]) + 1)};"]
    for number in range(1, len(blocks)):
        lines += _selected_block(number, blocks[number], carry_below=len(blocks[number - 1]))
    low_parts = [f"sum_{number}[{len(block) - 1}:0]" for number, block in enumerate(blocks[:-1])]
    lines.append(f"  assign s = {{{', '.join([f'sum_{len(blocks) - 1}'] + low_parts[::-1])}}};")
    return parsed_module(lines)


def _widened(expression: str, width: int, to: int) -> str:
    """`expression` zero-extended to `to` bits, so every operand of a block's sum has its width
    (lint-clean: Verilator warns of every implicit extension)."""
    return f"{{{to - width}'b0, {expression}}}"


def _block_operands(bits: range) -> str:
    """The sum of one block of `a` and the addend, one bit wider, before any carry in."""
    width = len(bits)
    return (f"{_widened(f'a[{bits[-1]}:{bits[0]}]', width, width + 1)} + "
            f"{_widened(f'addend[{bits[-1]}:{bits[0]}]', width, width + 1)}")


def _selected_block(number: int, bits: range, carry_below: int) -> list[str]:
    """Block `number` added for a carry in of 0 and of 1, and the one that bit `carry_below`
    of the block below (its carry out) selects."""
    lines = []
    one = _widened("1'b1", 1, len(bits) + 1)
    for carry_in, addition in ((0, _block_operands(bits)), (1, f"{_block_operands(bits)} + {one}")):
        lines.append(f"  (* keep *) wire [{len(bits)}:0] sum_{number}_if{carry_in};")
        lines.append(f"  assign sum_{number}_if{carry_in} = {addition};")
    selected = f"sum_{number - 1}[{carry_below}] ? sum_{number}_if1 : sum_{number}_if0"
    return lines + [f"  wire [{len(bits)}:0] sum_{number} = {selected};"]
