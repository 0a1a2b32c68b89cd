"""Parse tool messages into (file, line, message) so a failure can be shown as one line.

Each tool has its own message shape, and its own continuation lines (Verilator repeats
`file:line:col:` on the lines of a multi-line warning; Icarus starts them with `: `), so
parsing is per tool: only a tool's real message heads count.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass


class ToolWarning(UserWarning):
    """A warning printed by an EDA tool (Yosys `Warning:`, Verilator `%Warning`, ...)."""


_PATTERNS = {
    # %Error: rtl/a.v:12:5: message   |   %Warning-WIDTH: rtl/a.v:3:1: message   |   %Error: message
    "verilator": re.compile(r"^%(?P<severity>Error|Warning)(?:-(?P<code>[A-Z0-9_]+))?:\s*"
                            r"(?:(?P<file>[^:\s]+):(?P<line>\d+):(?:\d+:)?)?\s*(?P<message>.*)$"),
    # rtl/a.v:12: syntax error   |   rtl/a.v:12: error: message   |   rtl/a.v:4: warning: message
    "icarus": re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+):\s*(?:(?P<severity>error|warning|sorry):\s*)?"
                         r"(?P<message>[^\s:].*)$"),
    # ERROR: message   |   rtl/a.v:12: ERROR: message   |   Warning: message
    "yosys": re.compile(r"^(?:(?P<file>[^:\s]+):(?P<line>\d+):\s*)?(?P<severity>ERROR|Warning):\s*(?P<message>.*)$"),
    # Error: net.v, line 317 syntax error   |   Warning: message
    "opensta": re.compile(r"^(?P<severity>Error|Warning):\s*(?:(?P<file>[^,\s]+), line (?P<line>\d+)\s*)?"
                          r"(?P<message>.*)$"),
}
_PATTERNS["openroad"] = _PATTERNS["opensta"]


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" or "warning"
    message: str
    file: str | None = None
    line: int | None = None
    code: str | None = None

    def one_line(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file and self.line else ""
        return f"{where}{self.message}"


def parse_diagnostics(tool: str, output: str) -> list[Diagnostic]:
    """Every error and warning head of a Verilator, Icarus or Yosys log, in order."""
    pattern = _PATTERNS[tool]
    found = []
    for raw_line in output.splitlines():
        match = pattern.match(raw_line.strip())
        if not match:
            continue
        groups = match.groupdict()
        severity = "warning" if (groups.get("severity") or "error").lower() == "warning" else "error"
        found.append(Diagnostic(severity, groups["message"].strip(), groups.get("file"),
                                int(groups["line"]) if groups.get("line") else None, groups.get("code")))
    return found


def first_error(tool: str, output: str, fallback: str) -> str:
    """The first error as one line, or `fallback` when the tool printed none we recognise."""
    errors = [diagnostic for diagnostic in parse_diagnostics(tool, output) if diagnostic.severity == "error"]
    return errors[0].one_line() if errors else fallback


def emit_warnings(tool: str, diagnostics: list[Diagnostic], ignore: tuple[str, ...] = (), limit: int = 20) -> list[str]:
    """Raise each warning as a Python `ToolWarning` (so callers can filter or escalate them);
    return their texts, less those containing an `ignore` fragment."""
    texts = [d.one_line() for d in diagnostics
             if d.severity == "warning" and not any(fragment in d.message for fragment in ignore)]
    for text in texts[:limit]:
        warnings.warn(f"{tool}: {text}", ToolWarning, stacklevel=3)
    return texts
