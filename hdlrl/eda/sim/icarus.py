"""Icarus Verilog: `iverilog -g2012` to a vvp program, then `vvp -n` to run it."""

from __future__ import annotations

import shlex
from pathlib import Path

from hdlrl.design import Testbench
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import Limits, ToolRun, ToolRunner
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


def compile_and_run(runner: ToolRunner, sources: list[Path], top: str) -> ToolRun:
    """Compile `sources` with `top` as the simulation's top and run the program: for a generated
    bench whose output the caller reads itself (it follows the compiler's warnings). One sandboxed
    shell does both, as a run's start costs as much as a small bench's simulation; the program
    runs only when the compile succeeds, and the limits bound both together."""
    program = f"{top}.vvp"
    # sources in the scratch folder are named from it, so that no message carries its random name
    names = [str(path.relative_to(runner.scratch)) if path.is_relative_to(runner.scratch) else str(path)
             for path in map(Path.resolve, sources)]
    compile_command = shlex.join([require_tool("iverilog").path, "-g2012", "-o", program, "-s", top, *names])
    run_command = shlex.join([require_tool("vvp").path, "-n", program])
    return runner.run(["sh", "-c", f"{compile_command} && exec {run_command}"])
