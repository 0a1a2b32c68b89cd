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
Names are identifiers (bin names may also be plain numbers, quoted in the YAML: `name: "3"`), so
the ids are unambiguous. Every list and number in the file has a cap (`MAX_*` below).

Expressions are written in the DUT's scope; `scoped` rewrites them for the harness, where
the DUT is an instance (`op == 3'd1` -> `hdlrl_dut.op == 3'd1`).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from math import prod
from pathlib import Path
from typing import Annotated, Any, Protocol

from pydantic import AfterValidator, BeforeValidator, Field

from hdlrl.config import Count, Identifier, Text, load_config, schema
from hdlrl.design import DESIGN_FILE, load_design
from hdlrl.hdl.lexer import tokenize
from hdlrl.yamlfile import LocatedYaml

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

# Caps on what coverage.yaml may declare. The project's files have at most 2 groups, 5 coverpoints
# a group, 13 bins a coverpoint and 8-bit widths; the caps leave a wide margin (an 8-bit `auto`
# coverpoint alone has 256 bins) and keep a mistaken or hostile file from asking for millions of
# counters, each of which is updated at every sample.
MAX_GROUPS = 100
MAX_COVERPOINTS = 100  # a group's coverpoints, and its crosses
MAX_BINS = 1000  # a coverpoint's bins
MAX_VALUES = 1000  # a bin's values, or a transition step's
MAX_STEPS = 100  # a transition's steps
MAX_WIDTH = 64  # bits of a coverpoint, and so of a bin's values (the project's widest: 8)
MAX_CROSS_BINS = 1 << 16  # combinations of a cross: two 8-bit auto coverpoints
MAX_NAME = 1024  # characters of a bin name, as of an identifier


def _bin_name(name: str) -> str:
    if not _BIN_NAME.match(name):
        raise ValueError(f"{name!r}: a bin name is letters, digits and _")
    return name


def _expression(text: str) -> str:
    """A Verilog expression over DUT signals: identifiers, numbers, operators, pure functions;
    nothing that acts when the harness evaluates it."""
    text = text.strip()
    tokens = tokenize(text, keep_comments=True)
    if not tokens:
        raise ValueError("empty expression")
    for token in tokens:
        if token.kind == "system" and token.text not in _EXPRESSION_FUNCTIONS:
            raise ValueError(f"{token.text} is not allowed (allowed: {', '.join(sorted(_EXPRESSION_FUNCTIONS))})")
        if token.kind in ("comment", "string", "directive") or token.text == ";" or token.text.startswith("\\"):
            raise ValueError(f"{token.text!r} has no place in a sampled expression")
    return text


def _one_or_more(step: Any) -> Any:
    """A transition step is a value or a list of values (any of them): a list either way (a union
    of the two would name its types in the error path)."""
    return step if isinstance(step, list) else [step]


def _auto_is_none(bins: Any) -> Any:
    """`bins: auto` as None: its bins depend on the width, a sibling field."""
    if bins == "auto":
        return None
    if isinstance(bins, list):
        return bins
    raise ValueError("must be a list of bins or auto")


# Bin names become part of the bin ids; a YAML number is refused (quote it: `name: "3"`), since
# YAML would read `010` as 8 and `1_0` as 10.
BinName = Annotated[str, Field(max_length=MAX_NAME), AfterValidator(_bin_name)]
Expression = Annotated[Text, AfterValidator(_expression)]
Value = Annotated[int, Field(ge=0, lt=1 << MAX_WIDTH)]
Values = Annotated[list[Value], Field(min_length=1, max_length=MAX_VALUES)]


# Lists, not tuples: below a BeforeValidator (`bins`, a transition step) pydantic validates the
# Python objects the JSON became, and strict mode takes only a tuple as a tuple.
@schema
@dataclass(frozen=True)
class BinFile:
    """A bin as written: a name and exactly one of value, values, range and transition."""

    name: BinName
    value: Value | None = None
    values: Values | None = None
    range: Annotated[list[Value], Field(min_length=2, max_length=2)] | None = None  # [low, high], inclusive
    transition: Annotated[list[Annotated[Values, BeforeValidator(_one_or_more)]],
                          Field(min_length=2, max_length=MAX_STEPS)] | None = None


@schema
@dataclass(frozen=True)
class CoverpointFile:
    name: Identifier
    signal: Expression
    bins: Annotated[Annotated[list[BinFile], Field(min_length=1, max_length=MAX_BINS)] | None,
                    BeforeValidator(_auto_is_none)]  # None: `bins: auto`
    width: Count(MAX_WIDTH) | None = None


@schema
@dataclass(frozen=True)
class CrossFile:
    name: Identifier
    coverpoints: Annotated[list[Identifier], Field(min_length=2, max_length=MAX_COVERPOINTS)]


@schema
@dataclass(frozen=True)
class CovergroupFile:
    name: Identifier
    coverpoints: Annotated[list[CoverpointFile], Field(min_length=1, max_length=MAX_COVERPOINTS)]
    clock: Identifier | None = None
    condition: Expression | None = None
    crosses: Annotated[list[CrossFile], Field(max_length=MAX_COVERPOINTS)] = field(default_factory=list)


@schema
@dataclass(frozen=True)
class CoverageFile:
    """coverage.yaml as written."""

    covergroups: Annotated[list[CovergroupFile], Field(min_length=1, max_length=MAX_GROUPS)]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


def _refuse_repeated_names(document: LocatedYaml, *scopes: tuple[str, Sequence[_Named]]) -> None:
    """Names make the bin ids, so each is declared once among the lists (field path, items) of one scope."""
    taken: set[str] = set()
    for where, items in scopes:
        for index, item in enumerate(items):
            if item.name in taken:
                raise document.error(f"{where}[{index}].name", f"{item.name!r} is declared twice")
            taken.add(item.name)


def _fits(document: LocatedYaml, value: int, where: str, width: int | None) -> int:
    """`value` when the coverpoint's width can hold it: otherwise its bin could never be hit."""
    if width is not None and value >= 1 << width:
        raise document.error(where, f"{value} does not fit in {width} bits")
    return value


def _all_fit(document: LocatedYaml, values: Sequence[int], where: str, width: int | None) -> tuple[int, ...]:
    return tuple(_fits(document, value, f"{where}[{index}]", width) for index, value in enumerate(values))


def _bin(document: LocatedYaml, written: BinFile, where: str, width: int | None) -> Bin:
    kinds = [kind for kind in _BIN_KINDS if getattr(written, kind) is not None]
    if len(kinds) != 1:
        raise document.error(where, f"give exactly one of {', '.join(_BIN_KINDS)}")
    at = f"{where}.{kinds[0]}"
    if written.value is not None:
        value = _fits(document, written.value, at, width)
        return Bin(written.name, ranges=((value, value),))
    if written.values is not None:
        values = _all_fit(document, written.values, at, width)
        return Bin(written.name, ranges=tuple((value, value) for value in values))
    if written.range is not None:
        low, high = _all_fit(document, written.range, at, width)
        if low > high:
            raise document.error(at, f"expected [low, high] with low <= high, got [{low}, {high}]")
        return Bin(written.name, ranges=((low, high),))
    # A step's values are checked at the step: a lone value has no path of its own below it.
    return Bin(written.name, transition=tuple(
        frozenset(_fits(document, value, f"{at}[{index}]", width) for value in step)
        for index, step in enumerate(written.transition)))


def _coverpoint(document: LocatedYaml, written: CoverpointFile, where: str) -> Coverpoint:
    width, at = written.width, f"{where}.bins"
    if written.bins is not None:
        _refuse_repeated_names(document, (at, written.bins))
        bins = tuple(_bin(document, item, f"{at}[{index}]", width) for index, item in enumerate(written.bins))
        return Coverpoint(written.name, written.signal, width, bins)
    if width is None:
        raise document.error(at, "bins: auto needs the coverpoint's width (width: N)")
    if width > MAX_AUTO_WIDTH:
        raise document.error(at, f"bins: auto is for at most {MAX_AUTO_WIDTH} bits, not {width}")
    return Coverpoint(written.name, written.signal, width,
                      tuple(Bin(str(value), ((value, value),)) for value in range(1 << width)))


def _cross(document: LocatedYaml, written: CrossFile, where: str, points: dict[str, Coverpoint]) -> Cross:
    for index, name in enumerate(written.coverpoints):
        at = f"{where}.coverpoints[{index}]"
        if name in written.coverpoints[:index]:
            raise document.error(at, f"{name!r} is crossed twice")
        if name not in points:
            raise document.error(at, f"{name!r} is not a coverpoint of this group "
                                 f"(coverpoints: {', '.join(points)})")
        if not points[name].value_bins:
            raise document.error(at, f"{name!r} has only transition bins, which take no part in crosses")
    combinations = prod(len(points[name].value_bins) for name in written.coverpoints)
    if combinations > MAX_CROSS_BINS:
        raise document.error(f"{where}.coverpoints", f"{combinations} combinations: a cross may have at most "
                             f"{MAX_CROSS_BINS}")
    return Cross(written.name, tuple(written.coverpoints))


def _group(document: LocatedYaml, written: CovergroupFile, where: str, clocks: tuple[str, ...] | None) -> Covergroup:
    if written.clock is not None and clocks is not None and written.clock not in clocks:
        raise document.error(f"{where}.clock", f"{written.clock!r} is not a clock of the design "
                             f"({', '.join(clocks) if clocks else 'it is combinational: omit clock'})")
    _refuse_repeated_names(document, (f"{where}.coverpoints", written.coverpoints),
                           (f"{where}.crosses", written.crosses))
    points = {point.name: _coverpoint(document, point, f"{where}.coverpoints[{index}]")
              for index, point in enumerate(written.coverpoints)}
    crosses = tuple(_cross(document, cross, f"{where}.crosses[{index}]", points)
                    for index, cross in enumerate(written.crosses))
    return Covergroup(written.name, written.clock, written.condition, tuple(points.values()), crosses)


def load_covergroups(design_root: Path) -> list[Covergroup]:
    """The covergroups of `design_root/coverage.yaml`, validated; [] when there is no such file.

    Where `design_root/design.yaml` exists, a group's clock must be one of the design's clocks."""
    path = Path(design_root) / COVERAGE_FILE
    if not path.is_file():
        return []
    written, document = load_config(path, CoverageFile)
    clocks = None
    if (Path(design_root) / DESIGN_FILE).is_file():
        clocks = tuple(clock.name for clock in load_design(design_root).clocks)
    _refuse_repeated_names(document, ("covergroups", written.covergroups))
    return [_group(document, group, f"covergroups[{index}]", clocks)
            for index, group in enumerate(written.covergroups)]


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
