"""Icarus Verilog: `iverilog -g2012` to a vvp program, then `vvp -n` to run it."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from hdlrl.design import Testbench
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import Limits, ToolRun, ToolRunner, read_bounded
from hdlrl.eda.sim.base import SimResult, Simulator, judge
from hdlrl.eda.toolchain import require_tool

# Constructs of SystemVerilog testbenches that Icarus 11 rejects, and how to say so in one line.
_UNSUPPORTED_HINTS = (
    ("break", "testbench uses `break`, unsupported by Icarus 11"),
    ("continue", "testbench uses `continue`, unsupported by Icarus 11"),
)


class IcarusSimulator(Simulator):
    name = "icarus"

    def simulate(self, runner: ToolRunner, sources: list[Path], testbench: Testbench,
                 include_dirs: list[Path], limits: Limits) -> SimResult:
        program = "simulation.vvp"
        compile_run = runner.run([require_tool("iverilog").path, "-g2012", "-o", program, "-s", testbench.top,
                                  *[f"-I{directory}" for directory in include_dirs], *map(str, sources)])
        if not compile_run.ok:
            reason = (f"iverilog {compile_run.fault}" if compile_run.fault else
                      first_error("icarus", compile_run.output, f"iverilog failed (exit {compile_run.returncode})"))
            source_text = "\n".join(Path(runner.scratch, source).read_text(errors="replace") for source in sources)
            for keyword, hint in _UNSUPPORTED_HINTS:
                if "syntax error" in reason and f"{keyword};" in source_text.replace(" ;", ";"):
                    reason = f"{hint} ({reason})"
                    break
            return SimResult(self.name, False, False, reason, [], compile_run.output[-2000:], compile_run.wall_s)
        run = runner.run([require_tool("vvp").path, "-n", program], limits=limits)
        return judge(self.name, run, testbench, compile_run.wall_s)


def _compile_then_run(sources: list[str], top: str) -> str:
    """The shell line that compiles `sources` with `top` as the simulation's top and, when that
    succeeds, runs the program in the shell's place."""
    program = f"{top}.vvp"
    compile_command = shlex.join([require_tool("iverilog").path, "-g2012", "-o", program, "-s", top, *sources])
    return f"{compile_command} && exec {shlex.join([require_tool('vvp').path, '-n', program])}"


def compile_and_run(runner: ToolRunner, sources: list[Path], top: str) -> ToolRun:
    """Compile `sources` with `top` as the simulation's top and run the program: for a generated
    bench whose output the caller reads itself (it follows the compiler's warnings). One sandboxed
    shell does both, as a run's start costs as much as a small bench's simulation; the program
    runs only when the compile succeeds, and the limits bound both together."""
    # sources in the scratch folder are named from it, so that no message carries its random name
    names = [str(path.relative_to(runner.scratch)) if path.is_relative_to(runner.scratch) else str(path)
             for path in map(Path.resolve, sources)]
    return runner.run(["sh", "-c", _compile_then_run(names, top)])


@dataclass(frozen=True)
class BenchOutput:
    """What one bench of `compile_and_run_each` printed, and its exit status (0: compiled and ran)."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:  # as `ToolRun.ok`: a bench ended by a limit or a signal has no BenchOutput
        return self.returncode == 0

    @property
    def output(self) -> str:  # as `ToolRun.output`
        return self.stdout + self.stderr

    @property
    def fault(self) -> str:  # as `ToolRun.fault`
        return ""


def compile_and_run_each(runner: ToolRunner, benches: list[tuple[str, list[str], str]]) -> list[BenchOutput] | None:
    """`compile_and_run` for several benches in one sandboxed shell: each (folder in the scratch
    folder, its sources named from that folder, top) is compiled and run in its folder by its own
    shell, so it prints what it would print alone. None when the shell did not end by itself (a
    limit, a stall) or a bench's shell was killed by a signal: its benches' outputs are no verdict."""
    lines = [f"(cd {shlex.quote(folder)} && {_compile_then_run(sources, top)}) > {shlex.quote(folder)}/stdout "
             f"2> {shlex.quote(folder)}/stderr; echo $? > {shlex.quote(folder)}/status"
             for folder, sources, top in benches]
    run = runner.run(["sh", "-c", "\n".join(lines)])
    if not run.ok:
        return None
    outputs = []
    for folder, _, _ in benches:
        status = (runner.scratch / folder / "status").read_text().strip()
        if not status.isdigit() or int(status) > 128:
            return None
        streams = []
        for name in ("stdout", "stderr"):
            with open(runner.scratch / folder / name, "rb") as stream:
                streams.append(read_bounded(stream))
        outputs.append(BenchOutput(int(status), *streams))
    return outputs
