"""Fast identity: a candidate that is the reference itself needs no simulation and no proof.

Two checks, both conservative: anything short of an exact match says "not identical" and the
gate goes on with its usual stages, so a false "identical" (a soundness bug) needs a real
difference to survive an exact comparison.

- `same_tokens` (the gate, after the interface lock): the candidate's synthesis view is token
  for token the reference's. Every tool reads that view, and simulation and synthesis are
  deterministic, so no tool can tell the candidate from the reference.
- `netlist_identity_script` and `same_netlist` (the equivalence stage, before the proofs): the
  texts differ but Yosys elaborates both to the same netlist once internal names are replaced
  by names given in the netlist's own order. Only the names of internal wires and cells (never
  ports, memories or cell types) and `src` attributes (file positions) are set aside; renaming
  internal wires and cells changes no behaviour, so the same text after that is the same
  circuit, which the proofs, reading the same elaboration, could only confirm.
"""

from __future__ import annotations

import re
from pathlib import Path

from hdlrl.eda.synth.yosys import read_commands
from hdlrl.hdl.lexer import joined, tokenize
from hdlrl.hdl.rename import RESERVED_PREFIX
from hdlrl.hdl.view import without_line_directives

IDENTICAL_NETLIST = "identical netlist"  # the equivalence method this check reports
# Internal names after normalisation; the screen refuses any candidate name with the prefix, so
# none can collide with a port.
_NAME_PATTERN = f"{RESERVED_PREFIX}n%"
_HIDE = f"rename -hide w:* c:*\nrename -enumerate -pattern {_NAME_PATTERN}"
_SRC_ATTRIBUTE = re.compile(r'^\s*attribute \\src "[^"\n]*"\n', re.MULTILINE)
_MODULE = re.compile(r"^module (\S+)$", re.MULTILINE)
_CELL = re.compile(r"^  cell ", re.MULTILINE)


def same_tokens(reference_view: str, candidate_view: str) -> int | None:
    """The number of tokens when the two views are the same token for token, else None.

    Comments and layout cannot change what a tool reads; `line directives only name the file
    a line came from (the candidate's and the reference's differ by name), so they are dropped.
    A token that differs in any character (a number written `8 'd3` against `8'd3`) counts as a
    difference, and so does a space between two operator characters, which the lexer keeps
    apart: `a & &b` is the tokens of `a && b` but AND with a reduction-AND (`joined`). The
    check may miss an identity, never invent one."""
    reference = tokenize(without_line_directives(reference_view))
    candidate = tokenize(without_line_directives(candidate_view))
    same = [(token.kind, token.text) for token in reference] == [(token.kind, token.text) for token in candidate]
    return len(reference) if reference and same and joined(reference) == joined(candidate) else None


def netlist_identity_script(reference: list[Path], candidate: list[Path], include_dirs: list[Path],
                            reference_top: str, top: str, outputs: tuple[Path, Path]) -> str:
    """One Yosys script that elaborates both designs and writes each top's netlist (reference, candidate).

    Internal names are enumerated before `proc` (so that the passes, which order some things by
    name, see the same names in both designs) and again after `flatten` (for the names the
    passes made, numbered from a counter both designs share); `opt_clean -purge` then drops
    what drives nothing. No pass that uses X freedom (`opt`) runs: the netlists compared are
    the circuits as written."""
    return "\n".join([
        *read_commands([*reference, *candidate], include_dirs),
        "hierarchy -check",
        _HIDE,
        "proc",
        "flatten",
        _HIDE,
        "opt_clean -purge",
        f"select {reference_top}",
        f"write_rtlil -selected {outputs[0]}",
        f"select {top}",
        f"write_rtlil -selected {outputs[1]}",
        "select -clear",
        "",
    ])


def _normalised(rtlil: str) -> str | None:
    """One module's RTLIL with its name and `src` attributes set aside; None unless it holds exactly one module."""
    modules = _MODULE.findall(rtlil)
    if len(modules) != 1:
        return None
    return _MODULE.sub(lambda match: "module \\top", _SRC_ATTRIBUTE.sub("", rtlil))


def same_netlist(reference_rtlil: str, candidate_rtlil: str) -> int | None:
    """The number of cells when the two written netlists are the same text, else None."""
    reference, candidate = _normalised(reference_rtlil), _normalised(candidate_rtlil)
    if reference is None or reference != candidate:
        return None
    return len(_CELL.findall(reference))
