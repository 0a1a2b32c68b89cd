"""A module's evidence benches in one sandboxed run, each printing what it prints alone.

Each simulated claim (a reset, a count range, a function, ...) has its own generated bench,
and starting a sandboxed run costs about as much as compiling and simulating a small bench.
So before its search, a module's salient claims are planned: every evidence class asks for its
bench through `run_bench` as usual, which records the bench and defers the claim
(`BenchDeferred`); the recorded benches then run in one shell, each compiled and simulated by
itself in its own folder (`compile_and_run_each`). A bench asked for later runs alone.

No verdict depends on the batching: the batch runs under the limits of one bench (the tightest
CPU time), so a batch that finishes stayed within every bench's own limits; a batch that does
not finish, for any reason, is run again bench by bench under each bench's own limits.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

from hdlrl.eda.runner import Limits, ToolRun, ToolRunner
from hdlrl.eda.sim.icarus import BenchOutput, compile_and_run, compile_and_run_each

DESIGN, BENCH = "module.v", "bench.v"  # a bench's two files, named so in its folder
_planned: ContextVar[EvidenceBenches | None] = ContextVar("planned_evidence_benches", default=None)


class _Bench(NamedTuple):
    """One bench as asked for: what `run_bench` was given, the key of what it printed."""

    design: str  # the module's text
    bench: str  # the bench's text
    top: str
    limits: Limits
    sandbox: bool | None


class BenchDeferred(Exception):
    """Raised by `run_bench` while benches are planned: the bench is recorded, its claim waits."""


@dataclass
class EvidenceBenches:
    """The benches of one module's planned claims, and what each printed."""

    planning: bool = False
    wanted: list[_Bench] = field(default_factory=list)
    printed: dict[_Bench, ToolRun | BenchOutput] = field(default_factory=dict)

    @contextmanager
    def active(self) -> Iterator[EvidenceBenches]:
        """`run_bench` answers from these benches within the block."""
        token = _planned.set(self)
        try:
            yield self
        finally:
            _planned.reset(token)

    def plan(self, asks: Iterable[Callable[[], object]]) -> None:
        """Call each ask, deferring those that need a bench; then run every bench asked for."""
        self.planning = True
        try:
            for ask in asks:
                try:
                    ask()
                except BenchDeferred:
                    pass
        finally:
            self.planning = False
        groups: dict[tuple[bool | None, int], list[_Bench]] = {}  # one run per sandbox setting and memory limit
        for bench in dict.fromkeys(self.wanted):
            groups.setdefault((bench.sandbox, bench.limits.memory_mb), []).append(bench)
        for benches in groups.values():
            self.printed.update(zip(benches, _run_together(benches)))


def run_bench(design: str, bench: str, top: str, limits: Limits, sandbox: bool | None) -> ToolRun | BenchOutput:
    """`bench` (its top module `top`) compiled with `design` and run under `limits`, in a
    scratch folder of its own unless the module's planned benches hold it."""
    asked = _Bench(design, bench, top, limits, sandbox)
    planned = _planned.get()
    if planned is not None and asked in planned.printed:
        return planned.printed[asked]
    if planned is not None and planned.planning:
        planned.wanted.append(asked)
        raise BenchDeferred
    return _run_alone(asked)


def _write(folder: Path, bench: _Bench) -> list[Path]:
    """The bench's two files in `folder`, the bench first."""
    folder.mkdir(exist_ok=True)
    (folder / DESIGN).write_text(bench.design)
    (folder / BENCH).write_text(bench.bench)
    return [folder / BENCH, folder / DESIGN]


def _run_alone(bench: _Bench) -> ToolRun:
    with tempfile.TemporaryDirectory(prefix="hdlrl-evidence-") as scratch:
        runner = ToolRunner(Path(scratch), bench.limits, sandbox=bench.sandbox)
        return compile_and_run(runner, _write(runner.scratch, bench), bench.top)


def _run_together(benches: list[_Bench]) -> list[ToolRun | BenchOutput]:
    """The benches (of one sandbox setting and memory limit) in one run, or one by one where that fails."""
    if len(benches) == 1:
        return [_run_alone(benches[0])]
    limits = [bench.limits for bench in benches]
    tightest = replace(limits[0], time_s=min(each.time_s for each in limits),
                       idle_s=min(each.idle_s for each in limits))
    with tempfile.TemporaryDirectory(prefix="hdlrl-evidence-") as scratch:
        runner = ToolRunner(Path(scratch), tightest, sandbox=benches[0].sandbox)
        for index, bench in enumerate(benches):
            _write(runner.scratch / f"bench{index}", bench)
        printed = compile_and_run_each(runner, [(f"bench{index}", [BENCH, DESIGN], bench.top)
                                                for index, bench in enumerate(benches)])
    return list(printed) if printed is not None else [_run_alone(bench) for bench in benches]
