"""Functional coverage for `hdlrl cover`: covergroups declared in `designs/NAME/coverage.yaml`.

Code coverage says which lines ran, not whether the design did the interesting things (an
add that overflows, a write to a full FIFO, every legal FSM transition). Covergroups name
those, as SystemVerilog covergroups do, but in YAML so no simulator needs SystemVerilog
coverage support: the harness only prints the sampled expressions in binary each sampling
point, and `FunctionalCoverage` evaluates the bins here, in Python.

```yaml
covergroups:
  - name: operations          # identifier, unique in the file
    clock: clk                # optional: a clock of the design (design.yaml); omit for combinational
    condition: "rst_n"        # optional Verilog expression: a sample counts only when it is 1
    coverpoints:
      - name: op              # identifier, unique in the group (with the crosses)
        signal: op            # a DUT signal (port, internal, `u_core.state`) or an expression over them
        width: 3              # optional (required with `bins: auto`): values must fit in it
        bins:                 # a list, each with a name and exactly one of value/values/range/transition
          - {name: add, value: 0}
          - {name: logic, values: [2, 3, 4, 5]}
          - {name: low_half, range: [0, 3]}         # inclusive
          - {name: wrap, transition: [7, 0]}        # consecutive samples; a step may be a list (any of)
      - name: zero
        signal: zero
        width: 1
        bins: auto            # one bin per value 0 .. 2**width - 1, named by the value; width <= 8
    crosses:                  # optional
      - name: op_by_zero
        coverpoints: [op, zero]   # two or more coverpoints of this group
```

Sampling. The harness samples once per cycle (for a clocked design, at its first clock) and
prints every expression of `sampled_expressions`; `FunctionalCoverage.record(clock, values)`
feeds one such point to the groups with that clock (None: the unclocked groups). As
`hdlrl.cover.harness` samples today, a clocked sample holds the cycle's inputs and the state
after the rising edge that took them, so the state before that edge is the previous
sample's: a transition bin names it (see designs/sync_fifo/coverage.yaml). The project
designs' bins are reachable with this sampling and with sampling before the edge.

A value with an x or z bit is unknown and hits no bin. A condition that is 0 or unknown
skips the sample for the whole group, as a SystemVerilog `iff` does: nothing counts, and
the transition history is kept, so a transition may span skipped samples (in the project
designs only a reset in the middle of one does that). An unknown value, by contrast, is a
sample: it enters the history and breaks any transition through it. `start_run` forgets
the history, so transitions never span stimulus runs.

Bins. A value bin counts each sample whose value it holds (bins may overlap: one sample can
hit several). A transition bin counts each time its last step is reached by consecutive
samples matching every step. A cross bin counts each sample that hits one value bin of
every crossed coverpoint: the crosses are the cartesian product of the crossed coverpoints'
value bins (transition bins take no part), so declare only crosses whose every combination
is reachable.

Bin ids: `GROUP.COVERPOINT.BIN` (`operations.op.add`, auto bins `operations.zero.1`) and
`GROUP.CROSS.BIN1*BIN2...` in the cross's coverpoint order (`operations.op_by_zero.add*1`).
Names are identifiers (bin names may also be plain numbers), so the ids are unambiguous.

Expressions are written in the DUT's scope; `scoped` rewrites them for the harness, where
the DUT is an instance (`op == 3'd1` -> `hdlrl_dut.op == 3'd1`).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

from hdlrl.design import DESIGN_FILE, FieldReader, load_design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import tokenize
from hdlrl.yamlfile import LocatedYaml, load_yaml

COVERAGE_FILE = "coverage.yaml"
MAX_AUTO_WIDTH = 8
_BIN_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_BIN_KINDS = ("value", "values", "range", "transition")
# Pure system functions an expression may call: they compute, they do not act.
_EXPRESSION_FUNCTIONS = frozenset({"$signed", "$unsigned", "$countones", "$onehot", "$onehot0", "$clog2"})
# IEEE 1364-2005 reserved words plus the SystemVerilog ones that can stand in an expression:
# none of them names a DUT signal, so `scoped` leaves them alone.
_KEYWORDS = frozenset("""
    always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config deassign default
    defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule endprimitive
    endspecify endtable endtask event for force forever fork function generate genvar highz0 highz1 if
    ifnone incdir include initial inout input instance integer join large liblist library localparam
    macromodule medium module nand negedge nmos nor noshowcancelled not notif0 notif1 or output parameter
    pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent rcmos real
    realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled signed small
    specify specparam strong0 strong1 supply0 supply1 table task time tran tranif0 tranif1 tri tri0 tri1
    triand trior trireg unsigned use uwire vectored wait wand weak0 weak1 while wire wor xnor xor
    inside null this type
""".split())


@dataclass(frozen=True)
class Bin:
    """A value bin (`ranges`: the inclusive ranges of the values it counts) or a transition
    bin (`transition`: per consecutive sample, the values that step accepts)."""

    name: str
    ranges: tuple[tuple[int, int], ...] = ()
    transition: tuple[frozenset[int], ...] = ()

    def holds(self, value: int) -> bool:
        return any(low <= value <= high for low, high in self.ranges)

    def completed_by(self, history: deque[int | None]) -> bool:
        """Whether the latest samples (oldest first, None: unknown) end with this transition."""
        steps = len(self.transition)
        if len(history) < steps:
            return False
        recent = list(history)[-steps:]
        return all(value is not None and value in step for value, step in zip(recent, self.transition))


@dataclass(frozen=True)
class Coverpoint:
    name: str
    signal: str  # Verilog expression in the DUT's scope, usually one signal
    width: int | None
    bins: tuple[Bin, ...]

    @property
    def value_bins(self) -> tuple[Bin, ...]:
        return tuple(item for item in self.bins if not item.transition)

    @property
    def transition_bins(self) -> tuple[Bin, ...]:
        return tuple(item for item in self.bins if item.transition)


@dataclass(frozen=True)
class Cross:
    name: str
    coverpoints: tuple[str, ...]  # names of coverpoints of the same group, in bin-id order


@dataclass(frozen=True)
class Covergroup:
    name: str
    clock: str | None  # None: sampled at every sampling point, with the unclocked groups
    condition: str | None  # Verilog expression; None: every sample counts
    coverpoints: tuple[Coverpoint, ...]
    crosses: tuple[Cross, ...] = ()

    def coverpoint(self, name: str) -> Coverpoint:
        return next(point for point in self.coverpoints if point.name == name)

    def cross_bins(self, cross: Cross) -> list[tuple[str, ...]]:
        """The bin-name combinations of `cross`: the product of its coverpoints' value bins."""
        return list(product(*([item.name for item in self.coverpoint(name).value_bins]
                              for name in cross.coverpoints)))

    def bin_ids(self) -> list[str]:
        """Every bin of the group, coverpoints first, in declaration order."""
        ids = [f"{self.name}.{point.name}.{item.name}" for point in self.coverpoints for item in point.bins]
        return ids + [f"{self.name}.{cross.name}.{'*'.join(names)}"
                      for cross in self.crosses for names in self.cross_bins(cross)]


@dataclass(frozen=True)
class GroupTally:
    """Bins hit and declared in one covergroup, for reports."""

    hit: int
    total: int

    @property
    def fraction(self) -> float | None:
        return self.hit / self.total if self.total else None


# ---------------------------------------------------------------------------------- loading


def _refuse_unknown(document: LocatedYaml, data: dict, where: str, known: tuple[str, ...]) -> None:
    for key in data:
        if key not in known:
            field_path = f"{where}.{key}" if where else str(key)
            raise document.error(field_path, f"unknown field (known: {', '.join(known)})")


def _name(document: LocatedYaml, read: FieldReader, data: dict, where: str, taken: set[str]) -> str:
    name = read.identifier(data, f"{where}.name")
    if name in taken:
        raise document.error(f"{where}.name", f"{name!r} is declared twice")
    taken.add(name)
    return name


def _expression(document: LocatedYaml, read: FieldReader, data: dict, where: str) -> str:
    """A Verilog expression over DUT signals: identifiers, numbers, operators, pure functions."""
    text = read.get(data, where, str).strip()
    tokens = tokenize(text, keep_comments=True)
    if not tokens:
        raise document.error(where, "empty expression")
    for token in tokens:
        if token.kind == "system" and token.text not in _EXPRESSION_FUNCTIONS:
            raise document.error(where, f"{token.text} is not allowed (allowed: "
                                 f"{', '.join(sorted(_EXPRESSION_FUNCTIONS))})")
        if token.kind in ("comment", "string", "directive") or token.text == ";" or token.text.startswith("\\"):
            raise document.error(where, f"{token.text!r} has no place in a sampled expression")
    return text


def _value(document: LocatedYaml, value: Any, where: str, width: int | None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise document.error(where, f"expected a non-negative integer, got {value!r}")
    if width is not None and value >= 1 << width:
        raise document.error(where, f"{value} does not fit in {width} bits")
    return value


def _values(document: LocatedYaml, value: Any, where: str, width: int | None, at_least: int = 1) -> list[int]:
    if not isinstance(value, list) or len(value) < at_least:
        raise document.error(where, f"expected a list of at least {at_least} value{'s' * (at_least > 1)}")
    return [_value(document, item, f"{where}[{index}]", width) for index, item in enumerate(value)]


def _bin(document: LocatedYaml, read: FieldReader, item: Any, where: str, width: int | None) -> Bin:
    if not isinstance(item, dict):
        raise document.error(where, f"expected a mapping with a name and one of {', '.join(_BIN_KINDS)}")
    _refuse_unknown(document, item, where, ("name", *_BIN_KINDS))
    name = read.get(item, f"{where}.name", str)
    if not _BIN_NAME.match(name):
        raise document.error(f"{where}.name", f"{name!r}: a bin name is letters, digits and _")
    kinds = [kind for kind in _BIN_KINDS if kind in item]
    if len(kinds) != 1:
        raise document.error(where, f"give exactly one of {', '.join(_BIN_KINDS)}")
    kind = kinds[0]
    spec, at = item[kind], f"{where}.{kind}"
    if kind == "value":
        value = _value(document, spec, at, width)
        return Bin(name, ranges=((value, value),))
    if kind == "values":
        return Bin(name, ranges=tuple((value, value) for value in _values(document, spec, at, width)))
    if kind == "range":
        bounds = _values(document, spec, at, width, 2)
        if len(bounds) != 2 or bounds[0] > bounds[1]:
            raise document.error(at, "expected [low, high] with low <= high")
        return Bin(name, ranges=((bounds[0], bounds[1]),))
    if not isinstance(spec, list) or len(spec) < 2:
        raise document.error(at, "expected a list of two or more steps (a value or a list of values each)")
    steps = []
    for index, step in enumerate(spec):
        step_at = f"{at}[{index}]"
        steps.append(frozenset(_values(document, step, step_at, width) if isinstance(step, list)
                               else [_value(document, step, step_at, width)]))
    return Bin(name, transition=tuple(steps))


def _coverpoint(document: LocatedYaml, read: FieldReader, item: Any, where: str, taken: set[str]) -> Coverpoint:
    if not isinstance(item, dict):
        raise document.error(where, "expected a mapping with name, signal and bins")
    _refuse_unknown(document, item, where, ("name", "signal", "width", "bins"))
    name = _name(document, read, item, where, taken)
    signal = _expression(document, read, item, f"{where}.signal")
    width = read.get(item, f"{where}.width", int, None)
    if width is not None and width < 1:
        raise document.error(f"{where}.width", "must be a positive number of bits")
    spec = read.get(item, f"{where}.bins", (list, str))
    if isinstance(spec, str):
        if spec != "auto":
            raise document.error(f"{where}.bins", f"expected a list of bins or auto, got {spec!r}")
        if width is None:
            raise document.error(f"{where}.bins", "bins: auto needs the coverpoint's width (width: N)")
        if width > MAX_AUTO_WIDTH:
            raise document.error(f"{where}.bins", f"bins: auto is for at most {MAX_AUTO_WIDTH} bits, not {width}")
        return Coverpoint(name, signal, width, tuple(Bin(str(value), ((value, value),))
                                                     for value in range(1 << width)))
    if not spec:
        raise document.error(f"{where}.bins", "declare at least one bin")
    bins, names = [], set()
    for index, bin_item in enumerate(spec):
        parsed = _bin(document, read, bin_item, f"{where}.bins[{index}]", width)
        if parsed.name in names:
            raise document.error(f"{where}.bins[{index}].name", f"bin {parsed.name!r} is declared twice")
        names.add(parsed.name)
        bins.append(parsed)
    return Coverpoint(name, signal, width, tuple(bins))


def _cross(document: LocatedYaml, read: FieldReader, item: Any, where: str, taken: set[str],
           points: dict[str, Coverpoint]) -> Cross:
    if not isinstance(item, dict):
        raise document.error(where, "expected a mapping with name and coverpoints")
    _refuse_unknown(document, item, where, ("name", "coverpoints"))
    name = _name(document, read, item, where, taken)
    names = read.get(item, f"{where}.coverpoints", list)
    if len(names) < 2 or len(set(map(str, names))) != len(names):
        raise document.error(f"{where}.coverpoints", "cross two or more distinct coverpoints")
    for index, point in enumerate(names):
        at = f"{where}.coverpoints[{index}]"
        if point not in points:
            raise document.error(at, f"{point!r} is not a coverpoint of this group "
                                 f"(coverpoints: {', '.join(points) or 'none'})")
        if not points[point].value_bins:
            raise document.error(at, f"{point!r} has only transition bins, which take no part in crosses")
    return Cross(name, tuple(names))


def _group(document: LocatedYaml, read: FieldReader, item: Any, where: str, taken: set[str],
           clocks: tuple[str, ...] | None) -> Covergroup:
    if not isinstance(item, dict):
        raise document.error(where, "expected a mapping with name and coverpoints")
    _refuse_unknown(document, item, where, ("name", "clock", "condition", "coverpoints", "crosses"))
    name = _name(document, read, item, where, taken)
    clock = read.identifier(item, f"{where}.clock") if item.get("clock") is not None else None
    if clock is not None and clocks is not None and clock not in clocks:
        raise document.error(f"{where}.clock", f"{clock!r} is not a clock of the design "
                             f"({', '.join(clocks) if clocks else 'it is combinational: omit clock'})")
    condition = _expression(document, read, item, f"{where}.condition") if item.get("condition") is not None \
        else None
    members: set[str] = set()
    point_items = read.get(item, f"{where}.coverpoints", list)
    if not point_items:
        raise document.error(f"{where}.coverpoints", "declare at least one coverpoint")
    points = {point.name: point for point in (
        _coverpoint(document, read, point_item, f"{where}.coverpoints[{index}]", members)
        for index, point_item in enumerate(point_items))}
    crosses = tuple(_cross(document, read, cross_item, f"{where}.crosses[{index}]", members, points)
                    for index, cross_item in enumerate(read.get(item, f"{where}.crosses", list, [])))
    return Covergroup(name, clock, condition, tuple(points.values()), crosses)


def load_covergroups(design_root: Path) -> list[Covergroup]:
    """The covergroups of `design_root/coverage.yaml`, validated; [] when there is no such file.

    Where `design_root/design.yaml` exists, a group's clock must be one of the design's clocks."""
    path = Path(design_root) / COVERAGE_FILE
    if not path.is_file():
        return []
    document = load_yaml(path)
    if not isinstance(document.data, dict):
        raise HdlrlError("coverage.yaml must be a mapping with covergroups", path, 1)
    _refuse_unknown(document, document.data, "", ("covergroups",))
    read = FieldReader(document)
    items = read.get(document.data, "covergroups", list)
    if not items:
        raise document.error("covergroups", "declare at least one covergroup (or remove the file)")
    clocks = None
    if (Path(design_root) / DESIGN_FILE).is_file():
        clocks = tuple(clock.name for clock in load_design(design_root).clocks)
    names: set[str] = set()
    return [_group(document, read, item, f"covergroups[{index}]", names, clocks) for index, item in enumerate(items)]


# ---------------------------------------------------------------------------------- expressions


def sampled_expressions(groups: list[Covergroup]) -> list[str]:
    """What the harness prints at each sampling point, in this order: per group, its
    coverpoints' signals, then its condition; each expression once (its first place)."""
    expressions = []
    for group in groups:
        expressions += [point.signal for point in group.coverpoints]
        expressions += [group.condition] if group.condition is not None else []
    return list(dict.fromkeys(expressions))


def scoped(expression: str, instance: str) -> str:
    """`expression` with every DUT identifier prefixed by `instance.`; keywords, system
    functions, numbers (`4'd8`, `1e3`) and the later parts of dotted paths are kept as written."""
    tokens = tokenize(expression)
    pieces, written = [], 0
    for index, token in enumerate(tokens):
        previous = tokens[index - 1] if index else None
        if token.kind != "identifier" or token.text in _KEYWORDS:
            continue
        if previous is not None and previous.kind == "other" and previous.text == ".":
            continue  # u_core.state: only u_core is in the DUT's scope
        if previous is not None and previous.kind == "number" and previous.start + len(previous.text) == token.start:
            continue  # an exponent or unit the lexer split off a number
        pieces += [expression[written:token.start], f"{instance}."]
        written = token.start
    return "".join(pieces) + expression[written:]


# ---------------------------------------------------------------------------------- evaluation


def _known(bits: str) -> int | None:
    """A `%b` value as an integer; None when it has an x or z bit (or is empty)."""
    return int(bits, 2) if bits and set(bits) <= {"0", "1"} else None


@dataclass
class FunctionalCoverage:
    """Bin hit counts of `groups`, fed one sampling point at a time by `record`."""

    groups: list[Covergroup]
    counts: dict[str, int] = field(init=False)
    _slots: dict[str, int] = field(init=False, repr=False)  # expression -> place in a sampling point
    _history: dict[tuple[str, str], deque[int | None]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.counts = {bin_id: 0 for group in self.groups for bin_id in group.bin_ids()}
        self._slots = {expression: index for index, expression in enumerate(sampled_expressions(self.groups))}
        self._history = {
            (group.name, point.name): deque(maxlen=max((len(item.transition) for item in point.transition_bins),
                                                       default=0))
            for group in self.groups for point in group.coverpoints}

    def start_run(self) -> None:
        """A new stimulus run begins: transitions must not join samples of two runs."""
        for history in self._history.values():
            history.clear()

    def record(self, clock: str | None, values: list[str]) -> None:
        """One sampling point of the groups whose clock is `clock`: `values` are the `%b`
        strings of `sampled_expressions(groups)`, in that order."""
        if len(values) != len(self._slots):
            raise ValueError(f"a sampling point has {len(self._slots)} values, got {len(values)}")
        for group in self.groups:
            if group.clock != clock:
                continue
            if group.condition is not None and not _known(values[self._slots[group.condition]]):
                continue
            hit: dict[str, list[str]] = {}
            for point in group.coverpoints:
                value = _known(values[self._slots[point.signal]])
                history = self._history[(group.name, point.name)]
                history.append(value)
                hit[point.name] = [item.name for item in point.value_bins if value is not None and item.holds(value)]
                completed = [item.name for item in point.transition_bins if item.completed_by(history)]
                for name in hit[point.name] + completed:
                    self.counts[f"{group.name}.{point.name}.{name}"] += 1
            for cross in group.crosses:
                for names in product(*(hit[name] for name in cross.coverpoints)):
                    self.counts[f"{group.name}.{cross.name}.{'*'.join(names)}"] += 1

    def hits(self) -> dict[str, int]:
        """Bin id -> hit count, every bin of every group included."""
        return dict(self.counts)


def merge_hits(first: dict[str, int], second: dict[str, int]) -> dict[str, int]:
    """Hit counts of two runs (or a run and the total so far) added bin by bin."""
    return {bin_id: first.get(bin_id, 0) + second.get(bin_id, 0) for bin_id in {**first, **second}}


def fraction(hits: dict[str, int]) -> float | None:
    """Bins hit over bins declared (crosses included); None when there are no bins."""
    return sum(1 for count in hits.values() if count) / len(hits) if hits else None


def group_tallies(hits: dict[str, int]) -> dict[str, GroupTally]:
    """Per covergroup (the id's first part), bins hit and declared."""
    tallies: dict[str, list[int]] = {}
    for bin_id, count in hits.items():
        tally = tallies.setdefault(bin_id.partition(".")[0], [0, 0])
        tally[0] += bool(count)
        tally[1] += 1
    return {group: GroupTally(hit, total) for group, (hit, total) in tallies.items()}
