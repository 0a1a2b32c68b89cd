"""Which binary operator a mutant may put in place of another, and the family each belongs to.

One table serves both mutation engines: pyverilog's tree (`hdlrl.hdl.mutants`) uses the node
classes, pyslang's text edits (`hdlrl.hdl.sv_mutants`) the same classes' symbols, so the two
cannot drift apart.
"""

from __future__ import annotations

from pyverilog.vparser import ast

OPERATOR_ALTERNATIVES: dict[type, tuple[type, ...]] = {
    ast.Plus: (ast.Minus, ast.Times), ast.Minus: (ast.Plus,), ast.Times: (ast.Plus,),
    ast.And: (ast.Or, ast.Xor), ast.Or: (ast.And, ast.Xor), ast.Xor: (ast.And, ast.Or, ast.Xnor),
    ast.Land: (ast.Lor,), ast.Lor: (ast.Land,),
    ast.LessThan: (ast.LessEq, ast.GreaterThan), ast.LessEq: (ast.LessThan, ast.GreaterEq),
    ast.GreaterThan: (ast.GreaterEq, ast.LessThan), ast.GreaterEq: (ast.GreaterThan, ast.LessEq),
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,),
    # << and <<< shift alike, as do >> and >>> on unsigned values: only real changes are listed
    ast.Sll: (ast.Srl,), ast.Srl: (ast.Sll,), ast.Sla: (ast.Sra,), ast.Sra: (ast.Sla, ast.Srl),
}
OPERATOR_FAMILIES = {
    "arithmetic_operator": (ast.Plus, ast.Minus, ast.Times),
    "logic_operator": (ast.And, ast.Or, ast.Xor, ast.Land, ast.Lor),
    "relational_operator": (ast.LessThan, ast.LessEq, ast.GreaterThan, ast.GreaterEq, ast.Eq, ast.NotEq),
    "shift_operator": (ast.Sll, ast.Srl, ast.Sla, ast.Sra),
}
