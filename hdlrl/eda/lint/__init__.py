"""Linters: parse and elaborate the RTL, report errors with file and line.

The `Linter` base class, the result and `lint_result` are in `base.py`, one backend per
module; `LINTERS` lists them in the order the cascade runs them.
"""

from __future__ import annotations

from hdlrl.eda.lint.base import Linter, LintResult, lint_result
from hdlrl.eda.lint.icarus import IcarusLinter
from hdlrl.eda.lint.verilator import VerilatorLinter

__all__ = ["LINTERS", "LintResult", "Linter", "lint_result", "linters"]

# In the order the cascade runs them: Verilator's stricter parser first.
LINTERS: dict[str, type[Linter]] = {"verilator": VerilatorLinter, "icarus": IcarusLinter}


def linters() -> list[Linter]:
    """The linters of the bridge, in the order the cascade runs them."""
    return [backend() for backend in LINTERS.values()]
