"""Functional coverage for `hdlrl cover`: the covergroup bin model, and counting its bins.

Code coverage says which lines ran, not whether the design did the interesting things (an
add that overflows, a write to a full FIFO, every legal FSM transition). Covergroups name
those, as SystemVerilog covergroups do, but in YAML so no simulator needs SystemVerilog
coverage support: the harness only prints the sampled expressions in binary each sampling
point, and `FunctionalCoverage` evaluates the bins here, in Python.

The groups are declared in `designs/NAME/coverage.yaml` and read by `load_covergroups` of
`hdlrl.cover.coverage_yaml`, which documents the file format.

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

Bin ids, for the example file in `hdlrl.cover.coverage_yaml`: `GROUP.COVERPOINT.BIN`
(`operations.op.add`, auto bins `operations.zero.1`) and `GROUP.CROSS.BIN1*BIN2...` in the
cross's coverpoint order (`operations.op_by_zero.add*1`).
Names are identifiers (bin names may also be plain numbers), so the ids are unambiguous.

Expressions are written in the DUT's scope; `scoped` rewrites them for the harness, where
the DUT is an instance (`op == 3'd1` -> `hdlrl_dut.op == 3'd1`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from itertools import product

from hdlrl.hdl.lexer import tokenize

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


def run_hits(groups: list[Covergroup], clock: str | None, samples: list[list[str]]) -> dict[str, int]:
    """The bins one simulation hit: each sampling point recorded for the groups on `clock` and,
    where the design has a clock, for the unclocked groups too."""
    model = FunctionalCoverage(groups)
    for values in samples:
        model.record(clock, values)
        if clock is not None:
            model.record(None, values)
    return model.hits()


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
