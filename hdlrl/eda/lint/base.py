"""What every linter backend is and returns: `Linter`, `LintResult`, and `lint_result`, which
reads a finished run into a `LintResult` the same way for every backend."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.eda.diagnostics import Diagnostic, emit_warnings, first_error, parse_diagnostics
from hdlrl.eda.runner import ToolRun, ToolRunner


@dataclass
class LintResult:
    tool: str
    ok: bool
    reason: str = ""
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def unsupported(self) -> bool:
        """Failed only on constructs the tool says it does not support (Verilator 5.006 and a
        registered tristate): a gap in the tool, not an error in the design, so another linter decides."""
        located = [error for error in self.errors if error.file]  # not the closing "Exiting due to 2 error(s)"
        return not self.ok and bool(located) and all("Unsupported" in error.message for error in located)


class Linter(ABC):
    """One linter backend; `name` is its key in `hdlrl.eda.lint.LINTERS`."""

    name: str

    @abstractmethod
    def lint(self, runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path]) -> LintResult:
        """Check that `sources` parse and elaborate with `top` as the top module."""


def lint_result(tool: str, run: ToolRun) -> LintResult:
    """Turn a linter's run into a result: it fails on a non-zero exit or any error line."""
    diagnostics = parse_diagnostics(tool, run.output)
    emit_warnings(tool, diagnostics)
    errors = [d for d in diagnostics if d.severity == "error"]
    ok = run.ok and not errors
    if run.fault:
        reason = f"{tool} lint {run.fault}"
    else:
        reason = "" if ok else first_error(tool, run.output, f"{tool} lint failed (exit {run.returncode})")
    return LintResult(tool, ok, reason, errors, [d for d in diagnostics if d.severity == "warning"], run.wall_s)
