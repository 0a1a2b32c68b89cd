"""Icarus `-t null`: parses and elaborates as the simulator will, without writing a program."""

from __future__ import annotations

from pathlib import Path

from hdlrl.eda.lint.base import Linter, LintResult, lint_result
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import require_tool


class IcarusLinter(Linter):
    name = "icarus"

    def lint(self, runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path]) -> LintResult:
        argv = [require_tool("iverilog").path, "-g2012", "-t", "null", "-s", top,
                *[f"-I{directory}" for directory in include_dirs], *map(str, sources)]
        return lint_result(self.name, runner.run(argv))
