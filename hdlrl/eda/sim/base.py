"""What every simulator backend is and returns: `Simulator`, `SimResult`, and `judge`, which
reads a finished run's output into a `SimResult` the same way for every backend."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import Testbench
from hdlrl.eda.runner import Limits, ToolRun, ToolRunner


@dataclass
class SimResult:
    simulator: str
    compiled: bool
    passed: bool
    reason: str = ""
    fail_lines: list[str] = field(default_factory=list)
    output_tail: str = ""
    wall_s: float = 0.0
    timed_out: bool = False
    stopped: bool = False  # a limit or a crash ended the run, not the testbench: `reason` says which


class Simulator(ABC):
    """One simulator backend; `name` is its key in `hdlrl.eda.sim.SIMULATORS`."""

    name: str

    @abstractmethod
    def simulate(self, runner: ToolRunner, sources: list[Path], testbench: Testbench,
                 include_dirs: list[Path], limits: Limits) -> SimResult:
        """Compile `sources` (testbench and design) with `testbench.top` as the top and run it."""


def stopped_result(simulator: str, run: ToolRun, tail: str, wall: float) -> SimResult | None:
    """The result of a run that a limit or a crash ended, not the testbench; None for one that ended by itself."""
    if run.limit_hit == "cpu":
        return SimResult(simulator, True, False, f"simulation exceeded {run.limits.time_s:g} s "
                         "(a loop without delay, or a testbench without $finish), counted in CPU seconds",
                         [], tail, wall, timed_out=True, stopped=True)
    if run.memory_exceeded:
        return SimResult(simulator, True, False, f"simulation exceeded the {run.limits.memory_mb} MiB memory limit",
                         [], tail, wall, stopped=True)
    if run.fault:
        return SimResult(simulator, True, False, f"simulation {run.fault}", [], tail, wall,
                         timed_out=run.timed_out, stopped=True)
    return None


def judge(simulator: str, run: ToolRun, testbench: Testbench, compile_wall_s: float) -> SimResult:
    """Decide pass or fail from a finished run: exit status, the pass pattern, the fail pattern."""
    output = run.output
    lines = output.splitlines()
    tail = "\n".join(lines[-40:])
    wall = compile_wall_s + run.wall_s
    stopped = stopped_result(simulator, run, tail, wall)
    if stopped:
        return stopped
    fail_lines = [line.strip() for line in lines
                  if testbench.fail_pattern and re.search(testbench.fail_pattern, line)]
    passed = bool(re.search(testbench.pass_pattern, output)) and not fail_lines
    if passed:
        return SimResult(simulator, True, True, "", [], tail, wall)
    if fail_lines:
        reason = f"testbench failed: {fail_lines[0]}"
    elif run.returncode != 0:
        reason = f"simulation exited with status {run.returncode}: {lines[-1].strip() if lines else 'no output'}"
    else:
        reason = f"testbench finished without printing the pass pattern {testbench.pass_pattern!r}"
    return SimResult(simulator, True, False, reason, fail_lines[:20], tail, wall)
