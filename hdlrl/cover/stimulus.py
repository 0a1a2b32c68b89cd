"""Stimulus programs: what a stimulus policy writes, checked, then rendered to input vectors.

A program is a short list of segments, each a generator run for some cycles over the design's
driven inputs (every input but the clocks). It is data, not code: an LLM writes it as JSON,
the embedded policies build it directly, and `render` turns it into the per-cycle rows the
harness reads, deterministically from the program's seed. Every rendered stimulus starts
with the reset asserted (when the design has one), so runs are independent.

```json
{"segments": [
  {"generator": "random", "cycles": 64},
  {"generator": "hold", "cycles": 40, "values": {"wr_en": 1, "rd_en": 0}},
  {"generator": "corner", "cycles": 16, "ports": ["a", "b"]},
  {"generator": "vectors", "vectors": [{"op": 7, "a": 128}, {"op": 1}]}
]}
```

Generators (ports a segment does not name, or pin in `values`, get uniform random values):

- `random`: uniform random values;
- `corner`: 0, all ones, the sign bit, the largest positive value, one hot bit;
- `hold`: one value per port held for the whole segment (`values` pins it);
- `sparse` / `dense`: each bit 1 with probability 1/8 / 7/8 (rare and frequent enables);
- `burst`: the 1- and 2-bit inputs (controls) alternate between all-ones and zero in phases of
  4 to 64 cycles, the rest random: fill-then-drain, start-then-wait, the shapes of protocols;
- `reset`: the reset asserted;
- `vectors`: explicit per-cycle values (unnamed ports keep their previous value).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from hdlrl.design import Design
from hdlrl.verify.diffsim import Stimulus, corner_values
from hdlrl.verify.interface import Interface, Port

GENERATORS = ("random", "corner", "hold", "sparse", "dense", "burst", "reset", "vectors")
CONTROL_WIDTH = 2  # inputs this narrow are controls (enables, selects, starts)
_SEGMENT_FIELDS = {"generator", "cycles", "ports", "values", "vectors"}
MAX_SEGMENTS = 64


class ProgramError(ValueError):
    """A stimulus program a policy wrote is malformed; the message says why, in one line."""

    def __init__(self, message: str, read_json: bool = True):
        super().__init__(message)
        self.read_json = read_json  # False: the text held no JSON object at all


@dataclass(frozen=True)
class StimulusSpace:
    """The inputs a stimulus drives: the reset first (where there is one), then the data inputs."""

    ports: tuple[Port, ...]
    reset: Port | None
    reset_active: int  # the reset's value while asserted
    reset_cycles: int = 3
    max_cycles: int = 4096

    @classmethod
    def of(cls, design: Design, interface: Interface, reset_cycles: int = 3, max_cycles: int = 4096) -> "StimulusSpace":
        clocks = {clock.name for clock in design.clocks}
        reset = interface.port(design.reset.name) if design.reset else None
        reset = reset if reset is not None and reset.direction == "input" else None
        data = tuple(port for port in interface.inputs if port.name not in clocks and port is not reset)
        active = ((1 << reset.width) - 1 if design.reset.polarity == "high" else 0) if reset else 0
        return cls(((reset,) if reset else ()) + data, reset, active, reset_cycles, max_cycles)

    @property
    def data_ports(self) -> tuple[Port, ...]:
        return self.ports[1:] if self.reset else self.ports

    @property
    def program_cycles(self) -> int:
        """The most cycles a program's segments may span: the stimulus memory after the reset."""
        return self.max_cycles - self.reset_cycles

    @property
    def reset_inactive(self) -> int:
        return ((1 << self.reset.width) - 1) ^ self.reset_active if self.reset else 0

    def port(self, name: str) -> Port | None:
        return next((port for port in self.ports if port.name == name), None)


@dataclass(frozen=True)
class Segment:
    generator: str
    cycles: int
    ports: tuple[str, ...] = ()  # the ports the generator shapes; empty: every data port
    values: tuple[tuple[str, int], ...] = ()  # ports pinned for the whole segment
    vectors: tuple[tuple[tuple[str, int], ...], ...] = ()  # per cycle, for `vectors`

    def to_json(self) -> dict:
        entry: dict = {"generator": self.generator}
        if self.generator == "vectors":
            entry["vectors"] = [dict(vector) for vector in self.vectors]
        else:
            entry["cycles"] = self.cycles
        if self.ports:
            entry["ports"] = list(self.ports)
        if self.values:
            entry["values"] = dict(self.values)
        return entry


@dataclass(frozen=True)
class StimulusProgram:
    segments: tuple[Segment, ...]
    seed: int = 0
    origin: str = ""  # which policy or generator wrote it, for reports
    steer: tuple[str, ...] = ()  # coverage points it was steered toward

    @property
    def cycles(self) -> int:
        return sum(segment.cycles for segment in self.segments)

    def to_json(self) -> str:
        return json.dumps({"segments": [segment.to_json() for segment in self.segments]}, separators=(",", ":"))


def _port_values(raw: object, space: StimulusSpace, where: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, dict):
        raise ProgramError(f"{where}: expected an object of port: value")
    values = []
    for name, value in raw.items():
        port = space.port(name)
        if port is None:
            raise ProgramError(f"{where}: {name!r} is not a driven input (known: "
                               f"{', '.join(port.name for port in space.ports)})")
        if isinstance(value, str):
            try:
                value = int(value, 0)
            except ValueError:
                raise ProgramError(f"{where}: {name}={value!r} is not a number") from None
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << port.width:
            raise ProgramError(f"{where}: {name}={value!r} does not fit {port.width} bits")
        values.append((name, value))
    return tuple(values)


def _segment(raw: object, index: int, space: StimulusSpace) -> Segment:
    where = f"segment {index}"
    if not isinstance(raw, dict):
        raise ProgramError(f"{where}: expected an object")
    unknown = set(raw) - _SEGMENT_FIELDS
    if unknown:
        raise ProgramError(f"{where}: unknown field {sorted(unknown)[0]!r} (known: {', '.join(sorted(_SEGMENT_FIELDS))})")
    generator = raw.get("generator")
    if generator not in GENERATORS:
        raise ProgramError(f"{where}: generator {generator!r} is not one of {', '.join(GENERATORS)}")
    ports = raw.get("ports", [])
    if not isinstance(ports, list) or not all(isinstance(name, str) and space.port(name) for name in ports):
        raise ProgramError(f"{where}: ports must be a list of driven input names")
    values = _port_values(raw.get("values", {}), space, f"{where} values")
    if generator == "vectors":
        vectors = raw.get("vectors")
        if not isinstance(vectors, list) or not vectors:
            raise ProgramError(f"{where}: vectors must be a non-empty list of objects")
        rows = tuple(_port_values(vector, space, f"{where} vector {number}") for number, vector in enumerate(vectors))
        return Segment(generator, len(rows), tuple(ports), values, rows)
    cycles = raw.get("cycles")
    if not isinstance(cycles, int) or isinstance(cycles, bool) or not 1 <= cycles <= space.max_cycles:
        raise ProgramError(f"{where}: cycles must be an integer from 1 to {space.max_cycles}")
    return Segment(generator, cycles, tuple(ports), values)


def parse_program(text: str, space: StimulusSpace, seed: int = 0, origin: str = "") -> StimulusProgram:
    """A program from its JSON (the first JSON object in `text`); ProgramError says what is wrong."""
    start = text.find("{")
    if start < 0:
        raise ProgramError("no JSON object in the text", read_json=False)
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as error:
        raise ProgramError(f"invalid JSON: {error.msg} at character {error.pos}", read_json=False) from None
    segments = data.get("segments") if isinstance(data, dict) else None
    if not isinstance(segments, list) or not segments:
        raise ProgramError("expected {\"segments\": [...]} with at least one segment")
    if len(segments) > MAX_SEGMENTS:
        raise ProgramError(f"{len(segments)} segments, at most {MAX_SEGMENTS}")
    program = StimulusProgram(tuple(_segment(raw, index, space) for index, raw in enumerate(segments)), seed, origin)
    if program.cycles > space.program_cycles:
        raise ProgramError(f"{program.cycles} cycles, at most {space.program_cycles}")
    return program


def _column(segment: Segment, port: Port, rng: random.Random, previous: int) -> list[int]:
    """One port's values over a segment."""
    pinned = dict(segment.values)
    if port.name in pinned:
        return [pinned[port.name]] * segment.cycles
    if segment.generator == "vectors":
        values = []
        for vector in segment.vectors:
            previous = dict(vector).get(port.name, previous)
            values.append(previous)
        return values
    shaped = not segment.ports or port.name in segment.ports
    generator = segment.generator if shaped else "random"
    width = port.width
    if generator == "corner":
        return [rng.choice(corner_values(width, rng)) for _ in range(segment.cycles)]
    if generator == "hold":
        return [rng.getrandbits(width)] * segment.cycles
    if generator in ("sparse", "dense"):
        chance = 1 / 8 if generator == "sparse" else 7 / 8
        return [sum(1 << bit for bit in range(width) if rng.random() < chance) for _ in range(segment.cycles)]
    if generator == "burst" and width <= CONTROL_WIDTH:
        values, level = [], rng.random() < 0.5
        while len(values) < segment.cycles:
            values += [(1 << width) - 1 if level else 0] * rng.randint(4, 64)
            level = not level
        return values[:segment.cycles]
    return [rng.getrandbits(width) for _ in range(segment.cycles)]


def render(program: StimulusProgram, space: StimulusSpace) -> Stimulus:
    """The program's rows: `reset_cycles` of reset, then each segment, the reset inactive
    except in `reset` segments; outputs are compared after the first reset."""
    rng = random.Random(program.seed)
    prefix = space.reset_cycles if space.reset else 0
    reset_column = [space.reset_active] * prefix
    columns: list[list[int]] = [[0] * prefix for _ in space.data_ports]
    for segment in program.segments:
        level = space.reset_active if segment.generator == "reset" else space.reset_inactive
        reset_column += [dict(segment.values).get(space.reset.name, level) if space.reset else level] * segment.cycles
        for column, port in zip(columns, space.data_ports):
            column += _column(segment, port, rng, column[-1] if column else 0)
    cycles = min(prefix + program.cycles, space.max_cycles)
    all_columns = ([reset_column] if space.reset else []) + columns
    rows = tuple(zip(*(column[:cycles] for column in all_columns))) if all_columns else ((),) * cycles
    return Stimulus(space.ports, rows, min(prefix, cycles))
