"""Verilator `--lint-only`: the stricter parser, and the source of structural warnings."""

from __future__ import annotations

from pathlib import Path

from hdlrl.eda.lint.base import Linter, LintResult, lint_result
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import require_tool


class VerilatorLinter(Linter):
    name = "verilator"

    def lint(self, runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path]) -> LintResult:
        argv = [require_tool("verilator").path, "--lint-only", "--timing", "-Wno-fatal", "--top-module", top,
                *[f"-I{directory}" for directory in include_dirs], *map(str, sources)]
        return lint_result(self.name, runner.run(argv))
