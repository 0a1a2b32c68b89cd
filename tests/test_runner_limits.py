"""The runner's limits count CPU seconds, not wall-clock time: verdicts do not depend on load.

Real processes and real tools, no mocks: a CPU burner, a sleeper, a flood of output, an
Icarus simulation that never ends on an idle and on a loaded machine.
"""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from hdlrl import design
from hdlrl.eda.runner import (CPU_KILL_MARGIN_S, FILE_SIZE_LIMIT_BYTES, OUTPUT_KEPT_BYTES, RLIMIT_CPU_FACTOR,
                               Limits, ToolRunner)
from hdlrl.eda.sim import simulator
from hdlrl.eda.toolchain import find_tool
from hdlrl.evaluate.cache import ResultCache, cached_result
from hdlrl.evaluate.result import EvalResult

# Shell loops, not this Python: the sandbox hides /tmp, where a checkout (and its venv) may live.
BURN = ["sh", "-c", "while :; do :; done"]
SANDBOX_CASES = [
    pytest.param(False, id="plain"),
    pytest.param(True, id="sandboxed", marks=pytest.mark.skipif(
        not find_tool("bwrap").usable, reason=f"bwrap is unusable: {find_tool('bwrap').problem}")),
]


@pytest.mark.parametrize("sandbox", SANDBOX_CASES)
@pytest.mark.parametrize("command", [
    pytest.param(BURN, id="burner"),
    # A tool whose child is stopped by its RLIMIT_CPU, and which exits 0 all the same.
    pytest.param(["sh", "-c", f"{shlex.join(BURN)}; exit 0"], id="burner-in-a-tool-that-hides-it"),
])
def test_cpu_burner_is_stopped_by_the_cpu_limit(tmp_path: Path, sandbox: bool, command: list[str]) -> None:
    runner = ToolRunner(tmp_path / "scratch", Limits(time_s=2), sandbox=sandbox)
    run = runner.run(command)
    assert run.timed_out and run.limit_hit == "cpu" and not run.ok
    # Stopped just past the limit (its RLIMIT_CPU is 20 % above it), so it overran by any measure.
    assert 2 < run.cpu_s <= math.ceil(2 * RLIMIT_CPU_FACTOR) + 0.5, run.cpu_s


def test_sleeping_uses_no_cpu_so_it_is_not_stopped(tmp_path: Path) -> None:
    run = ToolRunner(tmp_path / "scratch", Limits(time_s=1)).run(["sleep", "3"])
    assert run.ok and run.limit_hit is None and not run.timed_out
    assert run.wall_s >= 3 and run.cpu_s < 0.5


def test_huge_output_is_cut_to_its_start_and_end(tmp_path: Path) -> None:
    flood = "echo first; head -c 50000000 /dev/zero | tr '\\0' x; echo last"
    run = ToolRunner(tmp_path / "scratch").run(["sh", "-c", flood])
    assert run.ok
    assert len(run.stdout) <= 2 * OUTPUT_KEPT_BYTES + 100
    assert run.stdout.startswith("first\n") and run.stdout.endswith("last\n")
    assert "bytes of output cut here" in run.stdout


def _running(pid: int) -> bool:
    """The process exists and is not a zombie waiting for its new parent to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_nothing_the_tool_started_outlives_it(tmp_path: Path) -> None:
    run = ToolRunner(tmp_path / "scratch", sandbox=False).run(["sh", "-c", "sleep 30 & echo $!"])
    background = int(run.stdout)
    deadline = time.monotonic() + 5
    while _running(background) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(background)


def test_endless_simulation_gets_the_same_verdict_idle_and_under_load(tmp_path: Path) -> None:
    """A simulation that never finishes is stopped after the same CPU seconds on a loaded
    machine as on an idle one: same verdict, only a longer wall-clock time."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "spin.v").write_text("module spin; reg x = 1'b0; always #1 x = ~x; endmodule\n")
    testbench = design.Testbench("verilog", (Path("spin.v"),), "spin", None, "PASS", None)
    runner = ToolRunner(scratch)

    def simulate():
        result = simulator("icarus").simulate(runner, [Path("spin.v")], testbench, [], Limits(time_s=3))
        return result, runner.history[-1]

    idle, idle_run = simulate()
    # One per core, each in a session of its own: the scheduler shares the cores between
    # sessions, and the tools run in sessions of their own too.
    burners = [subprocess.Popen(BURN, start_new_session=True) for _ in range(os.cpu_count() or 1)]
    try:
        loaded, loaded_run = simulate()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert idle_run.limit_hit == loaded_run.limit_hit == "cpu"
    assert idle.timed_out and loaded.timed_out and idle.reason == loaded.reason
    assert "counted in CPU seconds" in idle.reason
    assert loaded_run.wall_s > idle_run.wall_s


def test_time_out_is_never_cached(tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    computed: list[bool] = []

    def compute(timed_out: bool) -> EvalResult:
        computed.append(timed_out)
        return EvalResult("spin", "spin", "generic", False, "simulate", "simulation exceeded 3 s", timed_out=timed_out)

    for _ in range(2):
        result = cached_result(cache_path, lambda: "timed-out", EvalResult, lambda: compute(True))
        assert result.timed_out and not result.cached
    assert computed == [True, True] and len(ResultCache(cache_path)) == 0
    for _ in range(2):
        cached_result(cache_path, lambda: "verdict", EvalResult, lambda: compute(False))
    assert computed == [True, True, False] and len(ResultCache(cache_path)) == 1


@pytest.mark.parametrize("sandbox", SANDBOX_CASES)
@pytest.mark.parametrize("prlimit", [pytest.param(True, id="prlimit"), pytest.param(False, id="fork")])
def test_the_tool_runs_under_the_same_limits_with_and_without_prlimit(
        tmp_path: Path, sandbox: bool, prlimit: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """prlimit sets them where installed, a fork of the interpreter where not: the tool sees the same."""
    if prlimit and not find_tool("prlimit").usable:
        pytest.skip(f"prlimit is unusable: {find_tool('prlimit').problem}")
    if not prlimit:
        monkeypatch.setenv("HDLRL_PRLIMIT", str(tmp_path / "no-prlimit-here"))
        assert not find_tool("prlimit").usable
    limits = Limits(time_s=7.0, memory_mb=512)
    run = ToolRunner(tmp_path / "scratch", limits, sandbox=sandbox).run(["cat", "/proc/self/limits"])
    assert run.ok, run.output
    seen = {line[:26].strip(): line[26:].split()[:2] for line in run.stdout.splitlines()[1:]}
    soft_cpu_s = math.ceil(7.0 * RLIMIT_CPU_FACTOR)
    assert seen["Max cpu time"] == [str(soft_cpu_s), str(soft_cpu_s + CPU_KILL_MARGIN_S)]
    assert seen["Max address space"] == [str(512 * 1024 * 1024)] * 2
    assert seen["Max core file size"] == ["0", "0"]
    assert seen["Max file size"] == [str(FILE_SIZE_LIMIT_BYTES)] * 2
