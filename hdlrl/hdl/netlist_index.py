"""One module of a Yosys `write_json` netlist, indexed by bit, and the Yosys runs that write one.

Every reader of the netlist (`netlist_facts` for registers and resets, `state_machines`,
`memory_ports`) names bits the same way: an input port first, then the narrowest signal.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from hdlrl.eda.diagnostics import parse_diagnostics
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.errors import HdlrlError
from hdlrl.hdl.truth_table import cell_drivers, operand_bits

COPIES_FOLDER = "netlist_sources"
_SOURCE_LINE = re.compile(r":(\d+)\.")  # the line of a `src` attribute


class NetlistIndex:
    """One module of a `write_json` netlist, indexed by bit: the names it carries and the cell driving it."""

    def __init__(self, module: dict):
        self.cells: list[dict] = list(module["cells"].values())
        self.inputs = {name for name, port in module["ports"].items() if port["direction"] == "input"}
        self.ports = set(module["ports"])
        self.nets = {name: net for name, net in module["netnames"].items()
                     if not net.get("hide_name") and not name.startswith("$")}
        self.names: dict[int, list[tuple[str, int]]] = {}  # bit -> [(name, position)]
        for name, net in self.nets.items():
            for position, bit in enumerate(net["bits"]):
                if isinstance(bit, int):
                    self.names.setdefault(bit, []).append((name, position))
        self.drivers = cell_drivers(module)

    def signal(self, bit: int | str) -> str | None:
        """The name of a control bit, an input port first: `rst`, or `ctrl[2]` for a bit of a vector."""
        named = sorted(self.names.get(bit, []), key=lambda item: (item[0] not in self.inputs,
                                                                  len(self.nets[item[0]]["bits"]) > 1, item[0]))
        if not named:
            return None
        (name, position), net = named[0], self.nets[named[0][0]]
        index = net.get("offset", 0) + (len(net["bits"]) - 1 - position if net.get("upto") else position)
        return name if len(net["bits"]) == 1 else f"{name}[{index}]"

    def owner(self, bit: int | str, stored: Iterable[int] = ()) -> tuple[str, int] | None:
        """(signal, position) of a bit: the narrowest signal holding all of `stored` (its cell's bits, so a bus
        concatenating registers is none of them), an internal one before a port (`assign out = count;`)."""
        return min(self.names.get(bit, []), default=None, key=lambda item: (
            not set(stored) <= set(self.nets[item[0]]["bits"]), len(self.nets[item[0]]["bits"]), item[0] in self.ports,
            item[0]))

    def reads(self, bit: int) -> tuple[str, ...]:
        """The named signals an unnamed bit is computed from, in the order they are reached."""
        found, stack = {}, operand_bits(self.drivers[bit]) if bit in self.drivers else []
        seen = {bit, *stack}
        while stack:
            current = stack.pop(0)
            if (owner := self.owner(current)) is not None:
                found.setdefault(owner[0])
            elif current in self.drivers:
                stack += [each for each in operand_bits(self.drivers[current]) if each not in seen]
                seen.update(stack)
        return tuple(found)

    def declared(self, name: str) -> tuple[int, str]:
        """Where `name` is declared, to list facts in source order."""
        match = _SOURCE_LINE.search(str(self.nets[name].get("attributes", {}).get("src", "")))
        return (int(match.group(1)) if match else 1 << 30), name


def number(parameter: str) -> int:
    return int(parameter, 2) if parameter and set(parameter) <= {"0", "1"} else 0


def _copies(sources: list[Path]) -> list[Path]:
    return [Path(COPIES_FOLDER) / f"source{index}{Path(source).suffix or '.v'}" for index, source in enumerate(sources)]


def read_sources(runner: ToolRunner, sources: list[Path], include_dirs: Iterable[Path]) -> list[str]:
    """Copy the sources into the scratch folder and return the commands that read the copies; each
    original's folder joins the include path, so an `include next to it is still found."""
    (runner.scratch / COPIES_FOLDER).mkdir(parents=True, exist_ok=True)
    for source, copy in zip(sources, _copies(sources)):
        try:
            shutil.copyfile(source, runner.scratch / copy)
        except OSError as error:
            raise HdlrlError(f"cannot read the source: {error.strerror}", source) from None
    folders = [*map(Path, include_dirs), *dict.fromkeys(Path(source).resolve().parent for source in sources)]
    return read_commands(_copies(sources), folders)


def yosys_module(runner: ToolRunner, sources: list[Path], commands: list[str], top: str, json_name: str) -> dict:
    """Run one Yosys script and read the module `top` of the netlist it wrote; an error becomes an
    HdlrlError at the original file and line."""
    run = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join([*commands, f"write_json {json_name}"])])
    errors = [each for each in parse_diagnostics("yosys", run.output) if each.severity == "error"]
    if run.ok and not errors:
        return json.loads((runner.scratch / json_name).read_text())["modules"][top]
    error = errors[0] if errors and not run.fault else None
    reason = error.message if error else f"yosys {run.fault or f'exit status {run.returncode}'}"
    for copy, source in zip(_copies(sources), sources):
        reason = reason.replace(str(copy), str(source))
    where = next((source for copy, source in zip(_copies(sources), sources) if error and str(copy) == error.file), None)
    raise HdlrlError(f"{reason} (reading the netlist of {top})", where or next(iter(sources), None),
                     error.line if where else None)
