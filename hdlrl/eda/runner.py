"""Run one EDA tool on untrusted input: scratch directory, CPU limit, memory limit, sandbox.

Candidate RTL comes from language models, so every tool invocation is treated as running
hostile code. The runner
- works only inside a scratch directory it is given;
- limits the CPU seconds of the tool and of the processes it starts, not wall-clock time,
  so a verdict does not depend on the machine's load: the measured total decides, RLIMIT_CPU
  stops each process; wall-clock time only ends stalls: a tool whose processes used no CPU
  for a while (a sleep, a deadlock: load slows a tool but never stops it), or one still
  running after a generous backstop;
- says what ended a tool that did not end by itself (a limit, a stall, a crash), and counts
  such faults per thread, so that no cache keeps a result that rests on one;
- kills the whole process group when the tool ends or stalls, so nothing it started outlives it;
- caps the address space (RLIMIT_AS) so a huge memory declaration fails instead of swapping,
  and the size of a written file (RLIMIT_FSIZE); `prlimit` sets the limits where it is
  installed, as forking the interpreter to set them costs more than a small tool's run;
- keeps only the start and the end of a huge output, so a candidate printing gigabytes
  cannot exhaust the parent's memory;
- wraps the command in bubblewrap where it is installed: no network, the file system
  read-only except the scratch directory and a private /tmp.
"""

from __future__ import annotations

import math
import os
import re
import resource
import select
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.config import Count, Positive
from typing import IO

from hdlrl.eda.toolchain import find_tool

# The kernel charges RLIMIT_CPU by timer ticks, which run a few percent ahead of the precise
# CPU time measured at exit. A process is stopped only this far past the limit, so whichever
# one is stopped (a compiler's child too, whose signal the tool may hide) has overrun the limit
# by any measure, and the measured total says so.
RLIMIT_CPU_FACTOR = 1.2
CPU_KILL_MARGIN_S = 1  # SIGXCPU at the soft limit; SIGKILL this much later for a process that ignores it
FILE_SIZE_LIMIT_BYTES = 2 * 1024 ** 3
OUTPUT_KEPT_BYTES = 4 * 1024 * 1024  # of each stream, from its start and from its end
POLL_S = 1.0  # how often the CPU use of a running tool is read, to find it idle

# Inside bubblewrap the tool is not the runner's child, and bwrap exits before reaping the
# sandbox's init, so wait4 would see only bwrap's own CPU time. A shell inside waits for the
# tool and writes `times` (its children's CPU) to a descriptor that the tool does not inherit.
_MEASURE_SCRIPT = '"$@" {fd}>&-; status=$?; times >&{fd}; exit $status'
_TIMES = re.compile(rb"(\d+)m([\d.,]+)s")
_PRLIMIT_NAMES = {resource.RLIMIT_AS: "as", resource.RLIMIT_CORE: "core", resource.RLIMIT_CPU: "cpu",
                  resource.RLIMIT_FSIZE: "fsize"}


@dataclass(frozen=True)
class Limits:
    """Resource limits of one tool invocation.

    `time_s` is the CPU-second limit of one invocation: the CPU seconds of the tool and of the
    processes it starts, not wall-clock seconds, so the same candidate gets the same verdict
    on an idle machine and on a loaded one. Wall-clock time only ends stalls, never decides a
    verdict: `idle_s` without any CPU used (load slows a tool, it never stops it), or `stall_s`
    in all.
    """

    time_s: Positive = 120.0
    memory_mb: Count(1 << 20, minimum=16) = 4096
    idle_s: Positive = 30.0  # wall-clock seconds a tool may use no CPU at all before it is taken as stalled

    @property
    def stall_s(self) -> float:
        """Wall-clock seconds after which the tool is taken as stalled: loose enough that load never reaches it."""
        return 4 * self.time_s + 60


@dataclass
class ToolRun:
    """What one invocation did: enough to report a failure and to replay it without hdlrl."""

    argv: list[str]
    cwd: str
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float  # of the tool and of the processes it started and reaped
    # "cpu" (over `limits.time_s`), "idle" (no CPU used for `limits.idle_s`), "wall" (still running
    # after `limits.stall_s`) or None
    limit_hit: str | None = None
    sandboxed: bool = False
    limits: Limits = field(default_factory=Limits)

    @property
    def timed_out(self) -> bool:
        return self.limit_hit is not None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def signal_number(self) -> int | None:
        """The signal that ended the tool: Popen reports it negative, a shell (the sandbox's, or a
        tool that is a wrapper script) as 128 + it."""
        if self.returncode < 0:
            return -self.returncode
        return self.returncode - 128 if 128 < self.returncode <= 128 + signal.SIGRTMAX else None

    @property
    def fault(self) -> str:
        """What ended the tool if not the tool itself, "" when it exited by itself: its CPU limit,
        a stall or a crash. A result resting on such a run is no verdict on the tool's input."""
        if self.limit_hit == "cpu":
            return f"ran out of its {self.limits.time_s:g} s CPU time limit"
        if self.limit_hit == "idle":
            return f"stalled: used no CPU for {self.limits.idle_s:g} s"
        if self.limit_hit == "wall":
            return f"stalled: still running after {self.limits.stall_s:g} s"
        if self.signal_number is not None:
            return f"crashed (signal {self.signal_number}, {_signal_name(self.signal_number)})"
        return ""

    @property
    def memory_exceeded(self) -> bool:
        """Heuristic: allocation failures under RLIMIT_AS show up as these messages or SIGABRT/SIGKILL."""
        text = self.output.lower()
        return not self.timed_out and (
            "out of memory" in text or "bad_alloc" in text or "cannot allocate" in text
            or "memory allocation" in text or self.returncode in (-signal.SIGKILL, -signal.SIGABRT, 134, 137)
        )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return signal.strsignal(number) or "unknown signal"


_faults = threading.local()


def tool_faults() -> int:
    """Tool runs of this thread so far that did not end by themselves (`ToolRun.fault`).

    A result computed while this count rose rests on the machine or on a tool's bug, not only
    on its inputs: `hdlrl.evaluate.cache.cached_result` does not keep it. Per thread, as the
    tools of one computation run in the thread that computes it.
    """
    return getattr(_faults, "count", 0)


def _bwrap_prefix(bwrap: str, scratch: Path, readable: tuple[Path, ...], writable: tuple[Path, ...] = ()) -> list[str]:
    """Host read-only, private /tmp, no network; only `scratch` (and `writable`) writable,
    `readable` re-exposed (a liberty under /tmp would otherwise be hidden by the private /tmp)."""
    binds = [argument for path in readable for argument in ("--ro-bind", str(path), str(path))]
    binds += [argument for path in (scratch, *writable) for argument in ("--bind", str(path), str(path))]
    return [
        bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *binds,
        "--unshare-all", "--die-with-parent",
        "--new-session", "--chdir", str(scratch), "--",
    ]


def _tree_cpu_ticks(root: int) -> int:
    """CPU clock ticks of `root` and of its descendants, the reaped ones included: a total that
    grows while any of them computes. Read from /proc, since a sandboxed tool is no child of ours."""
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()  # from the state on: the name may hold spaces
        except OSError:  # gone meanwhile
            continue
        pid = int(entry.name)
        children.setdefault(int(fields[1]), []).append(pid)
        ticks[pid] = sum(map(int, fields[11:15]))  # utime, stime, cutime, cstime
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += ticks.get(pid, 0)
        stack += children.get(pid, [])
    return total


def _reap(process: subprocess.Popen, limits: Limits) -> tuple[resource.struct_rusage, str | None]:
    """Wait for `process` until it exits or stalls, kill its process group, reap it.

    Returns its resource usage, which includes the descendants it reaped (Popen keeps none),
    and its stall: "idle" when it and its descendants used no CPU for `limits.idle_s`, "wall"
    when it still ran after `limits.stall_s`, None when it exited. The group is killed while
    the leader is still unreaped, so its id cannot have been reused by then.
    """
    pidfd = os.pidfd_open(process.pid)
    stall = None
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        started = last_progress = time.monotonic()
        last_ticks = -1
        while not poller.poll(POLL_S * 1000):
            now = time.monotonic()
            ticks = _tree_cpu_ticks(process.pid)
            if ticks != last_ticks:
                last_ticks, last_progress = ticks, now
            if now - last_progress >= limits.idle_s:
                stall = "idle"
                break
            if now - started >= limits.stall_s:
                stall = "wall"
                break
    finally:
        os.close(pidfd)
    os.killpg(process.pid, signal.SIGKILL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage, stall


def _reported_cpu_s(report: IO[bytes]) -> float | None:
    """CPU seconds of the measuring shell's children from its `times` report; None when it wrote none."""
    report.seek(0)
    values = [int(minutes) * 60 + float(seconds.replace(b",", b"."))
              for minutes, seconds in _TIMES.findall(report.read())]
    return sum(values[2:]) if len(values) == 4 else None


def read_bounded(stream: IO[bytes]) -> str:
    """The first and the last OUTPUT_KEPT_BYTES of `stream`, with a note of what was cut between them."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(0)
    if size <= 2 * OUTPUT_KEPT_BYTES:
        data = stream.read(size)
    else:
        head = stream.read(OUTPUT_KEPT_BYTES)
        stream.seek(size - OUTPUT_KEPT_BYTES)
        cut = f"\n[hdlrl: {size - 2 * OUTPUT_KEPT_BYTES} bytes of output cut here]\n".encode()
        data = head + cut + stream.read(OUTPUT_KEPT_BYTES)
    # Decoded as Popen's text mode did: invalid bytes replaced, universal newlines.
    return data.decode(errors="replace").replace("\r\n", "\n").replace("\r", "\n")


class ToolRunner:
    """Runs commands inside one scratch directory under fixed limits."""

    def __init__(self, scratch: Path, limits: Limits | None = None, sandbox: bool | None = None,
                 readable: tuple[Path, ...] = ()):
        self.scratch = Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.limits = limits or Limits()
        bwrap = find_tool("bwrap")
        use_sandbox = bwrap.usable if sandbox is None else sandbox
        if use_sandbox and not bwrap.usable:
            raise RuntimeError(f"sandbox requested but bwrap is unusable: {bwrap.problem}")
        self._readable = tuple(Path(path).resolve() for path in readable)
        self._bwrap = bwrap.path if use_sandbox else None
        prlimit = find_tool("prlimit")
        self._prlimit = prlimit.path if prlimit.usable else None
        self.history: list[ToolRun] = []

    @property
    def sandboxed(self) -> bool:
        return self._bwrap is not None

    def run(self, argv: list[str], limits: Limits | None = None, env: dict[str, str] | None = None,
            writable: tuple[Path, ...] = (), readable: tuple[Path, ...] = ()) -> ToolRun:
        """Run `argv` in the scratch directory; never raises for tool failure or time-out.

        The run timed out ("cpu") when the tool and the processes it reaped used more than
        `limits.time_s` CPU seconds, or its RLIMIT_CPU killed it (SIGXCPU, which bwrap and a
        shell report as 128 + the signal); it stalled ("idle", "wall") as `_reap` says.
        `writable` folders stay writable inside the sandbox (a compiler cache shared by runs), and
        `readable` ones are re-exposed besides the runner's own (an interpreter under /tmp).
        """
        limits = limits or self.limits
        memory_bytes = limits.memory_mb * 1024 * 1024
        soft_cpu_s = max(1, math.ceil(limits.time_s * RLIMIT_CPU_FACTOR))

        limits_set = {resource.RLIMIT_AS: (memory_bytes, memory_bytes), resource.RLIMIT_CORE: (0, 0),
                      resource.RLIMIT_CPU: (soft_cpu_s, soft_cpu_s + CPU_KILL_MARGIN_S),
                      resource.RLIMIT_FSIZE: (FILE_SIZE_LIMIT_BYTES, FILE_SIZE_LIMIT_BYTES)}

        def limit_child() -> None:
            for which, soft_and_hard in limits_set.items():
                resource.setrlimit(which, soft_and_hard)

        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr, \
                tempfile.TemporaryFile() as report:
            command = list(argv)
            if self._bwrap:
                exposed = (*self._readable, *(Path(path).resolve() for path in readable))
                command = [*_bwrap_prefix(self._bwrap, self.scratch, exposed, writable),
                           "bash", "-c", _MEASURE_SCRIPT.format(fd=report.fileno()), "bash", *argv]
            # prlimit sets the limits and execs the command, so Popen can spawn it without forking
            # the whole interpreter (which a `preexec_fn` forces: about 15 ms a run); the same limits either way
            if self._prlimit:
                command = [self._prlimit, *(f"--{_PRLIMIT_NAMES[which]}={soft}:{hard}"
                                            for which, (soft, hard) in limits_set.items()), "--", *command]
            started = time.perf_counter()
            process = subprocess.Popen(
                command, cwd=self.scratch, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                start_new_session=True, preexec_fn=None if self._prlimit else limit_child,
                # temporary files in the scratch folder: writable inside the sandbox, gone with it
                env={**os.environ, "TMPDIR": str(self.scratch), **(env or {})},
                pass_fds=(report.fileno(),) if self._bwrap else (),
            )
            usage, stall = _reap(process, limits)
            wall_s = time.perf_counter() - started
            reported = _reported_cpu_s(report) if self._bwrap else None
            used_cpu_s = usage.ru_utime + usage.ru_stime if reported is None else reported
            killed_by_cpu_limit = process.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU)
            limit_hit = stall or ("cpu" if killed_by_cpu_limit or used_cpu_s > limits.time_s else None)
            run = ToolRun(argv=list(argv), cwd=str(self.scratch), returncode=process.returncode,
                          stdout=read_bounded(stdout), stderr=read_bounded(stderr), wall_s=wall_s,
                          cpu_s=used_cpu_s, limit_hit=limit_hit, sandboxed=self.sandboxed, limits=limits)
        self.history.append(run)
        if run.fault:
            _faults.count = tool_faults() + 1
        return run
