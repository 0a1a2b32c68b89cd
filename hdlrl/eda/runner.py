"""Run one EDA tool on untrusted input: scratch directory, time limit, memory limit, sandbox.

Candidate RTL comes from language models, so every tool invocation is treated as running
hostile code. The runner
- works only inside a scratch directory it is given;
- kills the whole process group when the wall-clock limit passes;
- caps the address space (RLIMIT_AS) so a huge memory declaration fails instead of swapping;
- wraps the command in bubblewrap where it is installed: no network, the file system
  read-only except the scratch directory and a private /tmp.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.eda.toolchain import find_tool


@dataclass
class Limits:
    """Resource limits of one tool invocation."""

    time_s: float = 120.0
    memory_mb: int = 4096


@dataclass
class ToolRun:
    """What one invocation did: enough to report a failure and to replay it without hdlrl."""

    argv: list[str]
    cwd: str
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    sandboxed: bool = False
    limits: Limits = field(default_factory=Limits)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def memory_exceeded(self) -> bool:
        """Heuristic: allocation failures under RLIMIT_AS show up as these messages or SIGABRT/SIGKILL."""
        text = self.output.lower()
        return not self.timed_out and (
            "out of memory" in text or "bad_alloc" in text or "cannot allocate" in text
            or "memory allocation" in text or self.returncode in (-signal.SIGKILL, -signal.SIGABRT, 134, 137)
        )


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
        self.history: list[ToolRun] = []

    @property
    def sandboxed(self) -> bool:
        return self._bwrap is not None

    def run(self, argv: list[str], limits: Limits | None = None, env: dict[str, str] | None = None,
            writable: tuple[Path, ...] = ()) -> ToolRun:
        """Run `argv` in the scratch directory; never raises for tool failure or time-out.

        `writable` folders stay writable inside the sandbox (a compiler cache shared by runs).
        """
        limits = limits or self.limits
        prefix = _bwrap_prefix(self._bwrap, self.scratch, self._readable, writable) if self._bwrap else []
        memory_bytes = limits.memory_mb * 1024 * 1024

        def limit_memory() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        started = time.perf_counter()
        process = subprocess.Popen(
            prefix + argv, cwd=self.scratch, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, errors="replace", start_new_session=True,
            preexec_fn=limit_memory, env={**os.environ, **(env or {})},
        )
        timed_out = False
        try:
            stdout, stderr = process.communicate(timeout=limits.time_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
        run = ToolRun(argv=list(argv), cwd=str(self.scratch), returncode=process.returncode,
                      stdout=stdout, stderr=stderr, wall_s=time.perf_counter() - started,
                      timed_out=timed_out, sandboxed=self.sandboxed, limits=limits)
        self.history.append(run)
        return run
