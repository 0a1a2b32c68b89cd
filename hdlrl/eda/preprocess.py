"""Verilator `-E`: the real preprocessor behind the one view of a design (`hdlrl/hdl/view.py`).

Includes, macros (token pasting with ``` `` ``` included) and conditional compilation are
expanded by a real preprocessor, not by regular expressions, and in the sandbox under the
runner's limits, since the text is untrusted. Verilator predefines its own macros
(`VERILATOR`, `verilator`, `SYSTEMVERILOG`, `coverage_block_off`, ...); every one of them is
undefined, so the view has exactly the documented macro set and no tool's name in it.
"""

from __future__ import annotations

import functools
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import OUTPUT_KEPT_BYTES, ToolRunner
from hdlrl.eda.toolchain import require_tool

_DEFINE = re.compile(r"^`define\s+(\S+)", re.MULTILINE)


@dataclass
class Preprocessed:
    ok: bool
    text: str  # the expanded source, with `line directives; empty when not ok
    reason: str  # Verilator's first error, one line; empty when ok
    undefined: tuple[str, ...]


@functools.cache
def predefined_macros(verilator: str) -> tuple[str, ...]:
    """The macros this Verilator defines before reading any source (`--dump-defines`)."""
    with tempfile.TemporaryDirectory(prefix="hdlrl-defines-") as folder:
        empty = Path(folder) / "empty.v"
        empty.write_text("")
        output = subprocess.run([verilator, "-E", "--dump-defines", str(empty)], capture_output=True,
                                text=True, timeout=60).stdout
    return tuple(sorted(set(_DEFINE.findall(output))))


def preprocess(runner: ToolRunner, sources: list[Path], include_dirs: list[Path], defines: dict[str, str]) -> Preprocessed:
    """`sources` (relative to the scratch folder) expanded as one compilation unit, in order."""
    verilator = require_tool("verilator").path
    undefined = tuple(name for name in predefined_macros(verilator) if name not in defines)
    argv = [verilator, "-E", *(f"-U{name}" for name in undefined),
            *(f"-D{name}={value}" for name, value in defines.items()),
            *(f"-I{directory}" for directory in include_dirs), *map(str, sources)]
    run = runner.run(argv)
    if run.ok and len(run.stdout) >= 2 * OUTPUT_KEPT_BYTES:
        return Preprocessed(False, "", f"the preprocessed text exceeds {2 * OUTPUT_KEPT_BYTES >> 20} MiB", undefined)
    if not run.ok:
        reason = (f"the preprocessor (verilator -E) {run.fault}" if run.fault
                  else first_error("verilator", run.stderr, f"verilator -E failed (exit {run.returncode})"))
        return Preprocessed(False, "", reason, undefined)
    return Preprocessed(True, run.stdout, "", undefined)
