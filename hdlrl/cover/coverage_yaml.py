"""coverage.yaml: the covergroups a design declares for `hdlrl cover`, read and validated.

`load_covergroups` reads `designs/NAME/coverage.yaml` against the schema below (`CoverageFile`)
and returns the bin model of `hdlrl.cover.functional`, which says what the bins count and when
a sample is taken; every error names its field path in the file.

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
targets:                      # optional: per metric, over flows/cover.yaml's (what --grade checks)
  line: 1.0
  functional: 1.0
waivers:                      # optional: code points left out of the reachable figures, unproven
  - point: "rtl/top.v:42"     # FILE:LINE (every line, branch and toggle point there), or a point id
    reason: spare state, unreachable by the bus protocol   # required, not blank
```

A waived point is reported apart from the points proven unreachable (`hdlrl.cover.exclusions`).

Names are identifiers (bin names may also be plain numbers, quoted in the YAML: `name: "3"`), so
the bin ids are unambiguous. Every list and number in the file has a cap (`MAX_*` below). A
coverpoint's signal and a group's condition are Verilog expressions over DUT signals that only
compute (`_expression`), since the harness evaluates them at every sample.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import Annotated, Any, Protocol

from pydantic import AfterValidator, BeforeValidator, Field

from hdlrl.config import Count, Fraction, Identifier, Text, load_config, schema
from hdlrl.cover.cover_flow import CoverMetric
from hdlrl.cover.functional import Bin, Covergroup, Coverpoint, Cross
from hdlrl.design import DESIGN_FILE, load_design
from hdlrl.hdl.design_files import relative_name
from hdlrl.hdl.lexer import tokenize
from hdlrl.yamlfile import LocatedYaml

COVERAGE_FILE = "coverage.yaml"
MAX_AUTO_WIDTH = 8
_BIN_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_BIN_KINDS = ("value", "values", "range", "transition")
_POINT_ID = re.compile(r"^(line|branch|toggle)\|[^|]+\|\d+\|\d+\|[^|]*\|[^|]+\|[^|]*$")
_FILE_LINE = re.compile(r"^(?P<file>[^|:]+):(?P<line>\d+)$")
# Pure system functions an expression may call: they compute, they do not act.
_EXPRESSION_FUNCTIONS = frozenset({"$signed", "$unsigned", "$countones", "$onehot", "$onehot0", "$clog2"})

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
MAX_WAIVERS = 10_000  # a design's waived points


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


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("a waiver needs a reason: say why the point need not be covered")
    return text


def _point_spec(text: str) -> str:
    """`FILE:LINE` or a point id (`metric|file|line|column|range|kind|instance`, as coverage.json lists them)."""
    if _POINT_ID.match(text) or _FILE_LINE.match(text):
        return text
    raise ValueError(f"{text!r} is neither FILE:LINE (rtl/top.v:42) nor a coverage point id "
                     "(metric|file|line|column|range|kind|instance, from coverage.json)")


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
class Waiver:
    """A code point the user leaves out of the reachable figures, and why."""

    point: Annotated[Text, AfterValidator(_point_spec)]
    reason: Annotated[Text, AfterValidator(_not_blank)]

    def matches(self, point_id: str) -> bool:
        """Whether this waiver names the point `point_id`."""
        spec = _FILE_LINE.match(self.point)
        if spec is None:
            return point_id == self.point
        _, file, line, *_ = point_id.split("|")
        return (file, line) == (spec["file"], spec["line"])


@schema
@dataclass(frozen=True)
class CoverageFile:
    """coverage.yaml as written."""

    covergroups: Annotated[list[CovergroupFile], Field(max_length=MAX_GROUPS)] = field(default_factory=list)
    targets: dict[CoverMetric, Fraction] = field(default_factory=dict)
    waivers: Annotated[list[Waiver], Field(max_length=MAX_WAIVERS)] = field(default_factory=list)


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


def load_coverage_targets(design_root: Path) -> dict[str, float]:
    """The per-metric targets of `design_root/coverage.yaml` (`hdlrl cover --grade`); {} without the file."""
    path = Path(design_root) / COVERAGE_FILE
    return dict(load_config(path, CoverageFile)[0].targets) if path.is_file() else {}


def load_waivers(design_root: Path) -> list[Waiver]:
    """The waivers of `design_root/coverage.yaml`; [] without the file. Where design.yaml exists, a
    waiver's file must be one of the design's RTL files (a typo would waive nothing, silently)."""
    path = Path(design_root) / COVERAGE_FILE
    if not path.is_file():
        return []
    written, document = load_config(path, CoverageFile)
    if (Path(design_root) / DESIGN_FILE).is_file():
        design = load_design(design_root)
        files = {relative_name(design, rtl) for rtl in design.rtl}
        for index, waiver in enumerate(written.waivers):
            spec = _FILE_LINE.match(waiver.point)
            file = spec["file"] if spec else waiver.point.split("|")[1]
            if file not in files:
                raise document.error(f"waivers[{index}].point", f"{file!r} is not an RTL file of the design "
                                     f"({', '.join(sorted(files))})")
    return list(written.waivers)


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
