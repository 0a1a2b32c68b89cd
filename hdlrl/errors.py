"""One exception type for bad input, so every front end can print it as a single line.

A user who feeds hdlrl a broken design.yaml or an unsafe source needs to know which file and
line to fix, not a traceback. Anything raised as `HdlrlError` is reported as `file:line: message`.
"""

from __future__ import annotations

from pathlib import Path


class HdlrlError(Exception):
    """Bad input or a missing tool: the message is for the user, one line, with a location."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


def first_line(error: BaseException) -> str:
    """The first line of a third-party exception's message (its type when it has none), for a
    one-line `HdlrlError` that wraps it."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


class ToolMissingError(HdlrlError):
    """An EDA tool that the requested step needs is not installed (or fails its version check)."""
