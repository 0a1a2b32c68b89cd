"""A memory's write and read ports, read from Yosys's memory cells: what a RAM's spec says first.

A datasheet of a RAM says how a word is written (on which clock edge, under which enable, at
which address, from which data) and how it is read (at once, or one clock later and then with
the old or the new word when a write hits the same address). Yosys's `memory -nomap` gathers
each memory into one `$mem_v2` cell whose ports say exactly that: `WR_EN`, `WR_ADDR`,
`WR_DATA`, `WR_CLK` with its polarity; `RD_ADDR`, `RD_DATA`, and for a read register merged
into the port (`memory_dff`), its clock and the transparency of each write port. A port is kept
only when every one of its signals is one port of the module taken whole (`we`, `addr`,
`wdata`, `rdata`), since only then can a summary name it and a bench drive and watch it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hdlrl.eda.runner import ToolRunner
from hdlrl.hdl.netlist_index import NetlistIndex, number, read_sources, yosys_module


@dataclass(frozen=True)
class WritePort:
    """On each `edge` of `clock`, while `enable` is at its level (always, for None), the word at
    `address` takes `data`."""

    clock: str
    edge: str  # posedge or negedge
    address: str
    data: str
    enable: str | None
    enable_high: bool = True


@dataclass(frozen=True)
class ReadPort:
    """`output` shows the word at `address`: at once (`clock` None), or one `edge` of `clock`
    later, with the new word during a write to it when `new_on_write`, else the old one."""

    output: str
    address: str
    clock: str | None = None
    edge: str = "posedge"
    new_on_write: bool = False


@dataclass(frozen=True)
class MemoryPorts:
    """One memory: its size, its ports (those a summary can name), and its initial words where the
    source gives them (a ROM's table; None for an undefined word)."""

    name: str
    depth: int
    width: int
    writes: tuple[WritePort, ...]
    reads: tuple[ReadPort, ...]
    initial: tuple[int | None, ...]


def _whole(index: NetlistIndex, bits: Iterable, direction: str) -> str | None:
    """The port of `direction` whose bits these are, all of them in order; None for anything else."""
    bits = list(bits)
    return next((name for name in sorted(index.ports) if (name in index.inputs) == (direction == "input")
                 and index.nets.get(name, {}).get("bits") == bits), None)


def _enable(index: NetlistIndex, bits: list) -> tuple[str | None, bool] | None:
    """The write enable: (None, True) when always on, (input, active high) when every bit is a 1-bit
    input or its `$mux` between all zeros and all ones; None for other logic."""
    if set(bits) == {"1"}:
        return None, True
    if len(set(bits)) == 1 and (name := _whole(index, bits[:1], "input")):
        return name, True
    cell = index.drivers.get(bits[0])
    if cell is None or cell["type"] != "$mux" or any(index.drivers.get(bit) is not cell for bit in bits):
        return None
    low, high = set(cell["connections"]["A"]), set(cell["connections"]["B"])
    select = _whole(index, cell["connections"]["S"], "input")
    if select is None or {frozenset(low), frozenset(high)} != {frozenset({"0"}), frozenset({"1"})}:
        return None
    return select, high == {"1"}


def _split(bits: list, count: int) -> list[list]:
    size = len(bits) // count if count else 0
    return [bits[index * size:(index + 1) * size] for index in range(count)]


def _memory(cell: dict, netlist: NetlistIndex) -> MemoryPorts:
    parameters, connections = cell["parameters"], cell["connections"]
    depth, width = number(parameters["SIZE"]), number(parameters["WIDTH"])
    writes_count, reads_count = number(parameters["WR_PORTS"]), number(parameters["RD_PORTS"])
    flags = {key: str(parameters[key])[::-1] for key in ("WR_CLK_ENABLE", "WR_CLK_POLARITY", "RD_CLK_ENABLE",
                                                         "RD_CLK_POLARITY", "RD_TRANSPARENCY_MASK")}
    writes = []
    for index, (enable, address, data, clock) in enumerate(zip(
            *(_split(connections[key], writes_count) for key in ("WR_EN", "WR_ADDR", "WR_DATA", "WR_CLK")))):
        names = (_whole(netlist, clock, "input"), _whole(netlist, address, "input"), _whole(netlist, data, "input"))
        found = _enable(netlist, enable)
        if flags["WR_CLK_ENABLE"][index] == "1" and None not in names and found is not None:
            edge = "posedge" if flags["WR_CLK_POLARITY"][index] == "1" else "negedge"
            writes.append(WritePort(names[0], edge, names[1], names[2], *found))
    reads = []
    for index, (address, data, clock, enable, resets) in enumerate(zip(
            *(_split(connections[key], reads_count) for key in ("RD_ADDR", "RD_DATA", "RD_CLK", "RD_EN")),
            zip(connections["RD_ARST"], connections["RD_SRST"]))):
        names = (_whole(netlist, data, "output"), _whole(netlist, address, "input"))
        if None in names or set(enable) != {"1"} or set(resets) != {"0"}:
            continue
        if flags["RD_CLK_ENABLE"][index] != "1":
            reads.append(ReadPort(*names))
        elif (read_clock := _whole(netlist, clock, "input")) is not None:
            transparent = flags["RD_TRANSPARENCY_MASK"][index * writes_count:(index + 1) * writes_count]
            if len(set(transparent)) <= 1:  # the same for every write port, else no one sentence says it
                edge = "posedge" if flags["RD_CLK_POLARITY"][index] == "1" else "negedge"
                reads.append(ReadPort(*names, read_clock, edge, transparent == "1" * writes_count))
    text = str(parameters["INIT"])
    initial = tuple(int(word, 2) if set(word) <= {"0", "1"} else None
                    for word in (text[len(text) - (index + 1) * width:][:width] for index in range(depth)))
    name = str(parameters["MEMID"]).lstrip("\\")
    return MemoryPorts(name, depth, width, tuple(writes), tuple(reads), initial)


def memory_ports(sources: list[Path], top: str, runner: ToolRunner, include_dirs: Iterable[Path] = ()
                 ) -> tuple[MemoryPorts, ...]:
    """Every memory of `top` (flattened) with the ports a summary can name."""
    commands = [*read_sources(runner, sources, include_dirs), f"hierarchy -check -top {top}", "proc", "flatten",
                "opt_clean", "memory -nomap", "opt_expr -mux_undef", "opt_clean"]
    module = yosys_module(runner, sources, commands, top, "netlist_memories.json")
    index = NetlistIndex(module)
    return tuple(_memory(cell, index) for cell in module["cells"].values() if cell["type"] == "$mem_v2")
