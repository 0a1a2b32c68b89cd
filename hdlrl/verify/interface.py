"""The interface lock: a candidate keeps the reference's top module, ports and header parameters.

A policy that narrows a RAM's address bus or changes a subtractor's port to signed can pass
a weak testbench; reading the elaborated interface (Yosys `write_json`, after `hierarchy`)
and comparing it field by field catches both, with the exact difference as the reason.

Parameters count only when declared in the header (`module m #(parameter W = 8) (...)`): a
`parameter` in the body is a constant of the implementation, which every check instantiates
at its default like the rest of the body. Yosys lists both alike, so the header is read from
the source text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import ToolRun, ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.lexer import Token, iter_tokens
from hdlrl.hdl.view import LineMap

# Yosys reports a system task it cannot elaborate at line 0 (`x.v:0: ERROR: System task
# `$finish' executed.`), which leaves the one-line reason without a location.
_UNLOCATED_TASK = re.compile(r"(?:System task|Can't resolve task name) `(?P<task>\$\w+)'")


@dataclass(frozen=True)
class Port:
    name: str
    direction: str  # input, output, inout
    width: int
    signed: bool = False


@dataclass(frozen=True)
class Interface:
    top: str
    ports: tuple[Port, ...]
    parameters: tuple[tuple[str, int | str], ...]  # header parameters: (name, default value), sorted by name

    @property
    def inputs(self) -> tuple[Port, ...]:
        return tuple(port for port in self.ports if port.direction == "input")

    @property
    def outputs(self) -> tuple[Port, ...]:
        return tuple(port for port in self.ports if port.direction == "output")

    def port(self, name: str) -> Port | None:
        return next((port for port in self.ports if port.name == name), None)


class InterfaceError(Exception):
    """The sources do not elaborate with the given top module; the message is one line.
    `fault` is set when Yosys crashed or ran out of time instead: no fact about the sources."""

    def __init__(self, message: str, fault: str = ""):
        super().__init__(message)
        self.fault = fault


def yosys_error(runner: ToolRunner, run: ToolRun, sources: list[Path], fallback: str) -> str:
    """Yosys's first error as one line; one about a system task that Yosys leaves unlocated is
    located at the task's first call in `sources` (relative to the scratch folder), in the
    original file and line."""
    reason = first_error("yosys", run.output, fallback)
    unlocated = _UNLOCATED_TASK.match(reason)
    if unlocated is None:
        return reason
    for source in sources:
        text = (runner.scratch / source).read_text(errors="replace")
        call = next((token for token in iter_tokens(text) if token.text == unlocated["task"]), None)
        if call is not None:
            file, line = LineMap.of(text, str(source)).locate(call.line)
            return f"{file}:{line}: {reason}"
    return reason


def _parameter_value(bits: str) -> int | str:
    """Yosys writes parameter values as bit strings; keep non-binary ones (strings, x) as text."""
    return int(bits, 2) if bits and set(bits) <= {"0", "1"} else bits


def _header_list_names(tokens: list[Token], start: int) -> set[str]:
    """The names declared in a parameter port list whose `(` is `tokens[start]`: in each
    comma-separated item, the last identifier before its `=` (`parameter [7:0] W = 8` -> W)."""
    names: set[str] = set()
    declared, depth, assigned = "", 0, False
    for token in tokens[start + 1:]:
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}") and depth:
            depth -= 1
        elif depth == 0 and token.text in (",", ")"):
            if declared:
                names.add(declared)
            if token.text == ")":
                break
            declared, assigned = "", False
        elif depth == 0 and token.text == "=":
            assigned = True
        elif depth == 0 and token.kind == "identifier" and not assigned:
            declared = token.text
    return names


def header_parameters(text: str, top: str) -> set[str] | None:
    """The parameters `top` declares in its header (`module top #(...)`), or None when `text`
    does not define `top`."""
    tokens = list(iter_tokens(text))
    starts = [index for index, token in enumerate(tokens[:-1])
              if token.text in ("module", "macromodule") and tokens[index + 1].text == top]
    if not starts:
        return None
    index = starts[0] + 2
    while index + 1 < len(tokens):
        if tokens[index].text == "#" and tokens[index + 1].text == "(":
            return _header_list_names(tokens, index + 1)
        if tokens[index].text in ("(", ";"):
            break  # the port list, or the end of a header without lists
        if tokens[index].text == "import":  # a package import before the lists ends with its own `;`
            index = next((after for after in range(index, len(tokens)) if tokens[after].text == ";"), len(tokens))
        index += 1
    return set()


def _header_parameter_names(runner: ToolRunner, sources: list[Path], top: str) -> set[str] | None:
    """The header parameters of `top` in whichever source defines it; None when no source
    visibly does (a macro made the header), and then every parameter counts."""
    for source in sources:
        names = header_parameters((runner.scratch / source).read_text(errors="replace"), top)
        if names is not None:
            return names
    return None


def read_interface(runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path] = (),
                   json_name: str = "interface.json") -> Interface:
    """Elaborate `top` with Yosys in `runner`'s scratch directory and read its interface."""
    reads = "; ".join(read_commands(sources, include_dirs))
    script = f"{reads}; hierarchy -check -top {top}; proc; write_json {json_name}"
    run = runner.run([require_tool("yosys").path, "-q", "-p", script])
    if not run.ok:
        raise InterfaceError(f"yosys {run.fault} reading the interface" if run.fault
                             else yosys_error(runner, run, sources, f"yosys could not elaborate {top}"), run.fault)
    module = json.loads((runner.scratch / json_name).read_text())["modules"][top]
    ports = tuple(Port(name, entry["direction"], len(entry["bits"]), bool(entry.get("signed")))
                  for name, entry in module["ports"].items())
    header = _header_parameter_names(runner, sources, top)
    parameters = tuple(sorted((name, _parameter_value(value))
                              for name, value in module.get("parameter_default_values", {}).items()
                              if header is None or name in header))
    return Interface(top, ports, parameters)


def _describe(port: Port) -> str:
    """`input [2:0] addr`: as a declaration reads (a bare `[3]` would read as a bit index)."""
    vector = f"[{port.width - 1}:0] " if port.width > 1 else ""
    return f"{port.direction} {'signed ' if port.signed else ''}{vector}{port.name}"


def interface_differences(reference: Interface, candidate: Interface) -> list[str]:
    """Every way `candidate` departs from `reference`, one line each; empty when locked."""
    differences = []
    if candidate.top != reference.top:
        differences.append(f"top module is {candidate.top!r}, expected {reference.top!r}")
    for port in reference.ports:
        other = candidate.port(port.name)
        if other is None:
            differences.append(f"port {port.name} removed (reference: {_describe(port)})")
        elif other != port:
            differences.append(f"port {port.name} is {_describe(other)}, reference {_describe(port)}")
    for port in candidate.ports:
        if reference.port(port.name) is None:
            differences.append(f"port {port.name} added ({_describe(port)})")
    reference_parameters, candidate_parameters = dict(reference.parameters), dict(candidate.parameters)
    for name, value in reference_parameters.items():
        if name not in candidate_parameters:
            differences.append(f"parameter {name} removed (reference default {value})")
        elif candidate_parameters[name] != value:
            differences.append(f"parameter {name} defaults to {candidate_parameters[name]}, reference {value}")
    for name in candidate_parameters.keys() - reference_parameters.keys():
        differences.append(f"parameter {name} added")
    return differences
