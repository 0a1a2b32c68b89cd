"""Structural checks: RTL that simulates fine but is not the hardware it pretends to be.

A testbench passes RTL with `initial` blocks or `#` delays (ignored by synthesis), inferred
latches, multiply-driven nets, combinational loops, an output left undriven or a
hierarchical reference into the testbench; none of them is a sound optimisation. Tokens find delays and `initial` blocks that do more than give
registers or memories their initial values (those are Yosys `init` attributes, used by
reference designs); Verilator's LATCH warning finds latches from a path that assigns
nothing (Yosys `proc_dlatch` would also flag a `case` that misses only unreachable states,
as in reference FSMs); Yosys after `proc; flatten` finds the rest: `check` reports each
conflicting driver and logic loop (bit-level, so a ripple-carry vector is no loop), and
the flattened netlist shows which top-level output bits no cell, input or constant drives.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.diagnostics import parse_diagnostics
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.lexer import Token, tokenize
from hdlrl.hdl.view import LineMap
from hdlrl.verify.interface import yosys_error

LOG = "structure.log"
NETLIST = "structure.json"

# Yosys names a cell or process after its source: `$and$rtl/a.v:9$3`, `$proc$rtl/a.v:5$1`.
_SOURCE_IN_NAME = re.compile(r"\$(?P<file>[^$:\s]+):(?P<line>\d+)\$")
# The `src` attribute of a wire: "rtl/a.v:12.5-12.9".
_SOURCE_ATTRIBUTE = re.compile(r"^(?P<file>[^:|]+):(?P<line>\d+)")
_MULTIPLE_DRIVERS = re.compile(r"^Warning: multiple conflicting drivers for (?P<module>[^.]+)\.\\?(?P<signal>\S+?):?$")
_LOGIC_LOOP = re.compile(r"^Warning: found logic loop in module (?P<module>\S+?):?$")


@dataclass(frozen=True)
class StructureIssue:
    kind: str  # multiple-drivers, latch, combinational-loop, initial-block, delay, undriven-output,
    #            hierarchical-reference
    message: str
    file: str | None = None
    line: int | None = None

    def one_line(self) -> str:
        where = f"{self.file}:{self.line}: " if self.file and self.line else (f"{self.file}: " if self.file else "")
        return f"{where}{self.kind}: {self.message}"


@dataclass
class StructureResult:
    ok: bool
    issues: list[StructureIssue]
    reason: str  # the first issue, "file:line: kind: message"; empty when ok


def _is_delay(tokens: list[Token], index: int) -> bool:
    """`#` starts a delay unless it opens a parameter list (`#(` after a module or instance name)
    or is part of `##` (SystemVerilog cycle delay in assertions, not RTL)."""
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is None or following.text == "#":
        return False
    if following.text != "(":
        return following.kind in ("number", "identifier")
    previous = tokens[index - 1] if index else None
    return previous is None or previous.kind != "identifier" or previous.text in ("assign", "begin", "else")


_BLOCK_OPEN = {"begin", "fork", "case", "casex", "casez"}
_BLOCK_CLOSE = {"end", "join", "join_any", "join_none", "endcase"}
_INITIAL_VALUE_TASKS = {"$readmemh", "$readmemb"}


def _statement_end(tokens: list[Token], start: int) -> int:
    """Index just past the statement starting at `start` (a `begin ... end` block or up to `;`)."""
    depth = 0
    for index in range(start, len(tokens)):
        text = tokens[index].text
        depth += (text in _BLOCK_OPEN) - (text in _BLOCK_CLOSE)
        if depth <= 0 and (text == ";" or text in _BLOCK_CLOSE):
            return index + 1
    return len(tokens)


def _only_initial_values(statement: list[Token]) -> bool:
    """No timing (`#`, `@`, `wait`, `forever`) and no system task but `$readmem*`: just init values."""
    return not any(token.text in ("#", "@", "wait", "forever")
                   or token.kind == "system" and token.text not in _INITIAL_VALUE_TASKS for token in statement)


def _is_hierarchical(tokens: list[Token], index: int) -> bool:
    """`name.name`: a hierarchical reference (a named port connection is `.name` after `(` or `,`)."""
    return (0 < index < len(tokens) - 1 and tokens[index].text == "."
            and tokens[index - 1].kind == "identifier" and tokens[index + 1].kind == "identifier")


def token_issues(source: Path, text: str) -> list[StructureIssue]:
    """Delays, behavioural `initial` blocks and hierarchical references, from tokens so comments
    and strings never count. A hierarchical reference lets a candidate read the testbench's
    expected values (or the reference's signals) instead of computing them. Issues are located
    in the original file and line through the view's `line directives."""
    tokens = tokenize(text)
    line_map = LineMap.of(text, str(source))
    issues = []

    def issue(kind: str, message: str, token: Token) -> StructureIssue:
        file, line = line_map.locate(token.line)
        return StructureIssue(kind, message, file, line)

    for index, token in enumerate(tokens):
        if _is_hierarchical(tokens, index):
            issues.append(issue("hierarchical-reference", f"{tokens[index - 1].text}.{tokens[index + 1].text} "
                                "reaches into another scope; RTL may use only its own ports and signals", token))
        elif token.kind == "identifier" and token.text == "initial":
            if not _only_initial_values(tokens[index + 1:_statement_end(tokens, index + 1)]):
                issues.append(issue("initial-block", "initial block with timing or tasks is not hardware", token))
        elif token.text == "#" and _is_delay(tokens, index):
            issues.append(issue("delay", "# delay is ignored by synthesis", token))
    return issues


def _latches(runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path]) -> list[StructureIssue]:
    """Verilator LATCH warnings: a combinational block with a path that assigns nothing."""
    argv = [require_tool("verilator").path, "--lint-only", "-Wall", "-Wno-fatal", "--top-module", top,
            *(f"-I{directory}" for directory in include_dirs), *map(str, sources)]
    run = runner.run(argv)
    return [StructureIssue("latch", diagnostic.message, diagnostic.file, diagnostic.line)
            for diagnostic in parse_diagnostics("verilator", run.output) if diagnostic.code == "LATCH"]


def _location(source_text: str | None) -> tuple[str | None, int | None]:
    """(file, line) from a Yosys object name or a `src` attribute."""
    match = _SOURCE_IN_NAME.search(source_text or "") or _SOURCE_ATTRIBUTE.match(source_text or "")
    return (match["file"], int(match["line"])) if match else (None, None)


def _wire_sources(module: dict) -> dict[str, str]:
    return {name: entry.get("attributes", {}).get("src", "") for name, entry in module.get("netnames", {}).items()}


def _log_issues(log: str, top_module: dict) -> list[StructureIssue]:
    """Conflicting drivers and logic loops from a Yosys log, located through names and `src`."""
    sources = _wire_sources(top_module)
    issues = []
    lines = log.splitlines()
    for index, line in enumerate(lines):
        if match := _MULTIPLE_DRIVERS.match(line):
            file, line_number = _location(sources.get(match["signal"]))
            issues.append(StructureIssue("multiple-drivers", f"{match['signal']} has conflicting drivers",
                                         file, line_number))
        elif _LOGIC_LOOP.match(line):
            members = itertools.takewhile(lambda member: member.startswith("    "), lines[index + 1:])
            located = [_location(member) for member in members if _SOURCE_IN_NAME.search(member)]
            file, line_number = located[0] if located else (None, None)
            issues.append(StructureIssue("combinational-loop", "combinational logic loop", file, line_number))
    return issues


def _undriven_outputs(top_module: dict) -> list[StructureIssue]:
    """Output port bits driven by no cell output, no input port and no constant."""
    driven: set[int | str] = set()
    for cell in top_module.get("cells", {}).values():
        for port, bits in cell.get("connections", {}).items():
            if cell.get("port_directions", {}).get(port) != "input":
                driven.update(bits)
    for port in top_module["ports"].values():
        if port["direction"] != "output":
            driven.update(port["bits"])
    sources = _wire_sources(top_module)
    issues = []
    for name, port in top_module["ports"].items():
        undriven = [bit for bit in port["bits"] if isinstance(bit, int) and bit not in driven]
        if port["direction"] == "output" and undriven:
            file, line_number = _location(sources.get(name))
            issues.append(StructureIssue("undriven-output", f"output {name}: {len(undriven)} of "
                                         f"{len(port['bits'])} bits have no driver", file, line_number))
    return issues


def check_structure(runner: ToolRunner, sources: list[Path], top: str,
                    include_dirs: list[Path] = ()) -> StructureResult:
    """Every structural issue of `sources` (paths relative to `runner.scratch`) under `top`."""
    issues = [issue for source in sources
              for issue in token_issues(source, (runner.scratch / source).read_text(errors="replace"))]
    script = "; ".join([*read_commands(sources, include_dirs),
                        f"hierarchy -check -top {top}", "proc", "flatten", "check", f"write_json {NETLIST}"])
    run = runner.run([require_tool("yosys").path, "-q", "-l", LOG, "-p", script])
    if not run.ok:
        reason = (f"yosys {run.fault} checking the structure" if run.fault
                  else yosys_error(runner, run, sources, f"yosys could not elaborate {top}"))
        return StructureResult(False, issues, reason)
    top_module = json.loads((runner.scratch / NETLIST).read_text())["modules"][top]
    issues += _log_issues((runner.scratch / LOG).read_text(errors="replace"), top_module)
    issues += _undriven_outputs(top_module)
    issues += _latches(runner, sources, top, list(include_dirs))
    return StructureResult(not issues, issues, issues[0].one_line() if issues else "")
