"""Explicit parallel-prefix adders, written as RTL whose carry tree synthesis keeps.

Yosys maps `+` to a Brent-Kung tree, and ABC then restructures it for area into something
close to a ripple chain: on a 64-bit subtractor the carry path is about 35 gates. Written out
with its group generate/propagate wires marked `(* keep *)`, the tree survives ABC, so the
architecture chosen in the RTL is the one that gets built. Brent-Kung is the tree with the
fewest cells (2n - log2 n - 2) at 2 log2 n - 1 levels, the best area-delay-power product of
the classic trees; the `core` variant keeps only the inner levels and lets ABC merge the first
and last levels into the bit-level propagate/generate and sum logic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pyverilog.vparser import ast

from hdlrl.hdl.verilog_ast import parse_verilog

ARCHITECTURES = ("brent_kung", "brent_kung_core")


@dataclass(frozen=True)
class PrefixNode:
    """(g, p)[bit] = (g, p)[bit] o (g, p)[lower]: one black cell, at one tree level."""

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


# The prefix of the modules and nets a rewrite adds. Rewritten designs are candidates, so it
# cannot be the gate's reserved `hdlrl_`.
REWRITE_PREFIX = "rewrite_"


def module_name(architecture: str, width: int, subtract: bool) -> str:
    return f"{REWRITE_PREFIX}{architecture}_{'sub' if subtract else 'add'}{width}"


def prefix_adder(architecture: str, width: int, subtract: bool) -> ast.ModuleDef:
    """`s = a + b + cin` (or `a + ~b + cin`) on `width` bits with carry out, as a module AST."""
    nodes = brent_kung(width)
    levels = max(node.level for node in nodes) + 1 if nodes else 0
    kept_levels = range(levels) if architecture == "brent_kung" else range(1, levels - 1)
    generate = {bit: f"g_bit[{bit}]" for bit in range(width)}
    generate[0] = "g_in"
    propagate = {bit: f"p_bit[{bit}]" for bit in range(width)}
    cells = []  # (name, expression, level, inputs), pruned below to what the carries need
    for number, node in enumerate(nodes):
        g_name, p_name = f"g_{number}", f"p_{number}"
        cells.append((g_name, f"{generate[node.bit]} | ({propagate[node.bit]} & {generate[node.lower]})",
                      node.level, (generate[node.bit], propagate[node.bit], generate[node.lower])))
        cells.append((p_name, f"{propagate[node.bit]} & {propagate[node.lower]}", node.level,
                      (propagate[node.bit], propagate[node.lower])))
        generate[node.bit], propagate[node.bit] = g_name, p_name
    used = {generate[bit] for bit in range(width)}
    for name, _, _, inputs in reversed(cells):
        if name in used:
            used |= set(inputs)
    operand = "~b" if subtract else "b"
    lines = [f"module {module_name(architecture, width, subtract)}(input [{width - 1}:0] a, input [{width - 1}:0] b,"
             f" input cin, output [{width}:0] s);",
             f"  wire [{width - 1}:0] p_bit = a ^ {operand};",
             f"  wire [{width - 1}:0] g_bit = a & {operand};",
             "  wire g_in = g_bit[0] | (p_bit[0] & cin);"]
    for name, expression, level, _ in cells:
        if name in used:  # declared, then assigned: a net declaration assignment cannot carry an attribute
            lines.append(f"  {'(* keep *) ' if level in kept_levels else ''}wire {name};")
            lines.append(f"  assign {name} = {expression};")
    carries = ", ".join([generate[bit] for bit in range(width - 2, -1, -1)] + ["cin"])
    lines.append(f"  assign s = {{{generate[width - 1]}, p_bit ^ {{{carries}}}}};")
    lines.append("endmodule")
    tree = parse_verilog("\n".join(lines) + "\n").tree
    return tree.description.definitions[0]
