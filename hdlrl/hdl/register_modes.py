"""What a register does under each setting of the inputs that steer it: holds, loads an input,
rotates, shifts, or becomes a constant ("`q` takes `data` when `load` is high, else rotates right
by one bit when `ena` is 01, else holds its value").

Read from the gate-level netlist whose flip-flops keep their enables and synchronous resets in
their D logic (`netlist_facts.GATE_MAPPINGS["simplemap"]`). The steering inputs (controls) are the
input ports that reach a multiplexer's select in the register's D logic. For each of their
settings, with every reset inactive, each D bit's truth table over the other leaves of its cone
(bits of registers and inputs) is computed exhaustively (`truth_table.evaluate`): a D bit equal
to one leaf or to a constant is that leaf, exactly; the register's bits together make one mode.
A register any of whose settings reads otherwise (an adder, a select computed from state) has none.
The claim is checked again on Icarus (`hdlrl.summarize.mode_evidence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from hdlrl.hdl.truth_table import cell_drivers, cone, evaluate, gate_cone, pattern

MAX_CONTROL_BITS = 4  # at most 16 settings
MAX_WIDTH = 64
MAX_LEAVES = 12  # a D bit's table has at most 4,096 rows
_MUXES = ("$_MUX_", "$_NMUX_")
_MOVES = ("load", "rotate", "shift")
_CONSTANT = ""  # the signal of a leaf that is a constant; its position is the bit


@dataclass(frozen=True)
class Mode:
    """One thing a register does on a clock edge."""

    kind: str  # hold, load, rotate, shift or constant
    direction: str | None = None  # rotate, shift: "left" is toward the most significant bit
    source: str | None = None  # load: the input loaded whole; shift: the one-bit input filling the free end
    value: int | None = None  # constant: the value; shift: the constant filling the free end

    def phrase(self) -> str:
        if self.kind == "hold":
            return "holds its value"
        if self.kind == "load":
            return f"takes `{self.source}`"
        if self.kind == "rotate":
            return f"rotates {self.direction} by one bit"
        if self.kind == "shift":
            fill = f"by `{self.source}`" if self.source is not None else f"with {self.value}"
            return f"shifts {self.direction} by one bit, filled {fill}"
        return f"becomes {self.value}"

    def next_value(self, current: int, inputs: dict[str, int], width: int) -> int:
        """The register after a clock edge in this mode, from its value and the inputs' before the edge."""
        mask = (1 << width) - 1
        if self.kind == "hold":
            return current
        if self.kind == "load":
            return inputs[self.source] & mask
        if self.kind == "constant":
            return self.value
        if self.kind == "rotate":  # the bit that leaves one end enters the other
            end = current >> (width - 1) if self.direction == "left" else current & 1
        else:
            end = self.value if self.source is None else inputs[self.source] & 1
        if self.direction == "left":
            return ((current << 1) | end) & mask
        return (current >> 1) | (end << (width - 1))


@dataclass(frozen=True)
class RegisterModes:
    """A register's mode under each setting of its controls; `modes[i]` is the setting packed in `i`,
    the first control in the least significant bits. `clauses` is worked out once: every check of
    the register's claim writes its description."""

    register: str
    width: int
    controls: tuple[tuple[str, int], ...]  # (input port, width), in port order
    modes: tuple[Mode, ...]

    def setting(self, index: int) -> dict[str, int]:
        values, shift = {}, 0
        for name, width in self.controls:
            values[name] = (index >> shift) & ((1 << width) - 1)
            shift += width
        return values

    @cached_property
    def clauses(self) -> list[tuple[Mode, tuple[str, int, int] | None]] | None:
        """The modes as a priority chain of one control each: [(mode, (control, width, value)), ...,
        (mode, None)], each condition read with the earlier ones false; None when no such chain exists.
        Greedy: the condition covering the most settings left first; among equals, one whose mode is not
        the last clause's (the commonest mode left, holding where that ties), then in control and value order."""
        left = dict(enumerate(self.modes))
        chain: list[tuple[Mode, tuple[str, int, int] | None]] = []
        while len(set(left.values())) > 1:
            modes = list(left.values())
            default = max(modes, key=lambda mode: (modes.count(mode), mode.kind == "hold"))
            best: tuple[tuple[int, bool], tuple[str, int, int], list[int]] | None = None
            for name, width in self.controls:
                for value in range(1 << width):
                    group = [index for index in left if self.setting(index)[name] == value]
                    rank = (len(group), left[group[0]] != default) if group else (0, False)
                    if 0 < len(group) < len(left) and len({left[index] for index in group}) == 1 and (
                            best is None or rank > best[0]):
                        best = (rank, (name, width, value), group)
            if best is None:
                return None
            chain.append((left[best[2][0]], best[1]))
            for index in best[2]:
                del left[index]
        chain.append((next(iter(left.values())), None))
        return chain

    def description(self) -> str:
        """"takes `data` when `load` is high, else ..., else holds its value"."""
        parts = []
        for mode, condition in self.clauses or ():
            if condition is None:
                parts.append(mode.phrase())
                continue
            name, width, value = condition
            level = ("high" if value else "low") if width == 1 else format(value, f"0{width}b")
            parts.append(f"{mode.phrase()} when `{name}` is {level}")
        return ", else ".join(parts)


def register_modes(module: dict, inactive: dict[str, int]) -> tuple[RegisterModes, ...]:
    """The modes of each named register of a `simplemap` netlist (`write_json` module) that does at least
    two things besides holding, one of them moving data (a register set to a constant per setting is
    decoding logic, not a mode), said as a chain of conditions (`RegisterModes.clauses`); `inactive`
    gives each reset input its inactive value."""
    drivers = cell_drivers(module)
    next_bits = {cell["connections"]["Q"][0]: cell["connections"]["D"][0] for cell in module["cells"].values()
                 if cell["type"].startswith("$_DFF_")}
    port_bits = {bit: (name, index) for name, port in module["ports"].items() if port["direction"] == "input"
                 for index, bit in enumerate(port["bits"])}
    found = []
    for name, entry in module["netnames"].items():
        bits = entry["bits"]
        if entry.get("hide_name") or not 2 <= len(bits) <= MAX_WIDTH or not all(bit in next_bits for bit in bits):
            continue
        modes = _modes(module, drivers, next_bits, port_bits, name, bits, inactive)
        if modes is not None and len({mode for mode in modes.modes if mode.kind != "hold"}) >= 2 \
                and any(mode.kind in _MOVES for mode in modes.modes) and modes.clauses is not None:
            found.append(modes)
    return tuple(found)


def _modes(module: dict, drivers: dict[int, dict], next_bits: dict[int, int | str],
           port_bits: dict[int, tuple[str, int]], name: str, bits: list[int], inactive: dict[str, int],
           ) -> RegisterModes | None:
    targets = [next_bits[bit] for bit in bits]
    stops = frozenset(next_bits)
    reached = gate_cone(drivers, targets, stops)
    if reached is None:
        return None
    selects = [drivers[bit]["connections"]["S"][0] for bit in reached - stops
               if bit in drivers and drivers[bit]["type"] in _MUXES]
    steering = cone(drivers, selects, stops)
    if steering & stops:
        return None  # what it does depends on a register's value: a state machine's logic, not a mode
    steered = {port_bits[bit][0] for bit in steering if bit in port_bits} - set(inactive)
    controls = tuple((port, len(module["ports"][port]["bits"])) for port in module["ports"] if port in steered)
    if not 0 < sum(width for _, width in controls) <= MAX_CONTROL_BITS:
        return None
    fixed = {bit: (inactive[port] >> index) & 1 for bit, (port, index) in port_bits.items() if port in inactive}
    control_bits = [bit for port, _ in controls for bit in module["ports"][port]["bits"]]
    owners = {bit: (name, bits.index(bit)) if bit in bits else port_bits.get(bit) for bit in reached}
    cone_leaves = [sorted(bit for bit in cone(drivers, [target], stops) if bit not in drivers or bit in stops)
                   if isinstance(target, int) else [] for target in targets]
    port_widths = {port: len(entry["bits"]) for port, entry in module["ports"].items()}
    modes = []
    for index in range(1 << len(control_bits)):
        settled = {**fixed, **{bit: (index >> position) & 1 for position, bit in enumerate(control_bits)}}
        leaves = [_leaf(drivers, target, leaves_of, settled, owners) for target, leaves_of in zip(targets, cone_leaves)]
        mode = None if None in leaves else _classify(port_widths, name, leaves)
        if mode is None:
            return None
        modes.append(mode)
    return RegisterModes(name, len(bits), controls, tuple(modes))


def _leaf(drivers: dict[int, dict], target: int | str, leaves: list[int], settled: dict[int, int],
          owners: dict[int, tuple[str, int] | None]) -> tuple[str, int] | None:
    """(signal, position) of the one leaf that D bit `target` equals with the bits in `settled` at their
    values, (`_CONSTANT`, value) for a constant; None when it is another function of `leaves` (those of its cone)."""
    if isinstance(target, str):
        return (_CONSTANT, int(target)) if target in "01" else None
    free = [bit for bit in leaves if bit not in settled]
    if len(free) > MAX_LEAVES:
        return None
    size = 1 << len(free)
    mask = (1 << size) - 1
    values = {bit: pattern(position, size) for position, bit in enumerate(free)}
    values |= {bit: mask * settled[bit] for bit in leaves if bit in settled}
    (vector,) = evaluate(drivers, [target], values, mask) or (None,)
    if vector in (0, mask):
        return _CONSTANT, int(vector == mask)
    return next((owners.get(bit) for bit in free if values[bit] == vector), None)


def _classify(port_widths: dict[str, int], name: str, leaves: list[tuple[str, int]]) -> Mode | None:
    """The mode of register `name` whose D bits read `leaves`, or None."""
    width = len(leaves)
    if all(signal == _CONSTANT for signal, _ in leaves):
        return Mode("constant", value=sum(bit << position for position, (_, bit) in enumerate(leaves)))
    if leaves == [(name, position) for position in range(width)]:
        return Mode("hold")
    source = leaves[0][0]
    if source != name and port_widths.get(source) == width and leaves == [(source, position)
                                                                          for position in range(width)]:
        return Mode("load", source=source)
    for direction, step in (("left", -1), ("right", 1)):
        if leaves == [(name, (position + step) % width) for position in range(width)]:
            return Mode("rotate", direction)
    for direction, free in (("left", 0), ("right", width - 1)):
        moved = [(name, position - 1) for position in range(1, width)] if direction == "left" else [
            (name, position + 1) for position in range(width - 1)]
        signal, position = leaves[free]
        if (leaves[1:] if direction == "left" else leaves[:-1]) != moved or signal == name:
            continue
        if signal == _CONSTANT:
            return Mode("shift", direction, value=position)
        if port_widths.get(signal) == 1:
            return Mode("shift", direction, source=signal)
    return None
