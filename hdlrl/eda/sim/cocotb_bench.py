"""cocotb testbenches: Python test modules driving the design on Icarus, through cocotb 2.x's runner.

The tests run in a driver process (`python -m hdlrl.eda.sim.cocotb_bench`, `main` below) started by
`ToolRunner.run`, so the CPU and memory limits and the sandbox hold for the Python tests as for any
tool: the driver builds the design with iverilog and runs vvp with cocotb's VPI library, which embeds
this interpreter and imports the test module. The JUnit file cocotb writes decides the verdict:
passed when at least one test ran and none failed. The random seed is fixed, so a test drawing
random stimulus judges every candidate on the same stimulus and a cached verdict stays true.

Icarus only: cocotb 2.x needs Verilator >= 5.036, and the toolchain (Debian 12) has Verilator 5.006.
cocotb is imported only by the driver, so hdlrl needs it only for designs with a cocotb testbench.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from xml.etree import ElementTree

from hdlrl.design import COCOTB_ON_ICARUS_ONLY, Testbench
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import Limits, ToolRun, ToolRunner
from hdlrl.eda.sim.base import SimResult, Simulator, stopped_result
from hdlrl.eda.toolchain import require_tool

BUILD_DIR = "cocotb_build"
RESULTS_FILE = f"{BUILD_DIR}/results.xml"
RESULTS_MAX_BYTES = 16 * 1024 * 1024  # far beyond any real test count; a bigger file is no cocotb report
BUILD_FAILED_STATUS = 3  # the driver's exit status when iverilog could not build the design
SEED = 1
VERILOG_SUFFIXES = (".v", ".sv")  # compiled with the design; other testbench files (data, helpers) are only staged
TIMESCALE = ("1ns", "1ps")  # for modules without `timescale: cocotb's Clock needs sub-ns precision
REASON_MAX_CHARS = 300
# Outside settings the driver drops, so the run depends on its arguments only: cocotb's own variables,
# pytest's (the runner then names the results file after the test and exits on failures), waves.
_OUTSIDE_SETTINGS = ("PYTEST_CURRENT_TEST", "WAVES", "GUI")


class CocotbSimulator(Simulator):
    """A cocotb test module on `hdl_simulator`, with the design's top as the HDL toplevel (`testbench.top`)."""

    name = "cocotb"

    def __init__(self, hdl_simulator: str = "icarus"):
        self.hdl_simulator = hdl_simulator

    def simulate(self, runner: ToolRunner, sources: list[Path], testbench: Testbench,
                 include_dirs: list[Path], limits: Limits) -> SimResult:
        label = f"cocotb-{self.hdl_simulator}"
        if self.hdl_simulator != "icarus":
            return SimResult(label, False, False, COCOTB_ON_ICARUS_ONLY)
        if importlib.util.find_spec("cocotb_tools") is None:
            return SimResult(label, False, False, "cocotb is not installed: pip install cocotb==2.1.0")
        tests = [source for source in sources if source.suffix == ".py"]
        python_path = dict.fromkeys(str(runner.scratch / test.parent) for test in tests)
        argv = [sys.executable, "-m", __name__, "--top", testbench.top, "--module", testbench.module,
                *[argument for folder in python_path for argument in ("--python-path", folder)],
                *[argument for folder in include_dirs for argument in ("--include", str(folder))],
                "--", *[str(source) for source in sources if source.suffix in VERILOG_SUFFIXES]]
        iverilog = Path(require_tool("iverilog").path)
        results = runner.scratch / RESULTS_FILE
        results.unlink(missing_ok=True)
        run = runner.run(argv, limits=limits, readable=_interpreter_folders(),
                         env={"PATH": f"{iverilog.parent}{os.pathsep}{os.environ.get('PATH', '')}"})
        return _judge(label, run, testbench, results, runner.scratch)


def _interpreter_folders() -> tuple[Path, ...]:
    """What the driver reads besides the scratch folder: this interpreter, its packages, hdlrl itself."""
    cocotb = importlib.util.find_spec("cocotb_tools")
    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parents[3]}
    if cocotb is not None and cocotb.origin:
        folders.add(Path(cocotb.origin).resolve().parents[1])
    return tuple(sorted(folder for folder in folders if folder.is_dir()))


def _judge(label: str, run: ToolRun, testbench: Testbench, results: Path, scratch: Path) -> SimResult:
    """Pass or fail from the driver's run and the JUnit file cocotb wrote."""
    output = run.output.replace(f"{scratch}/", "")
    lines = output.splitlines()
    tail = "\n".join(lines[-40:])
    stopped = stopped_result(label, run, tail, run.wall_s)
    if stopped:
        return stopped
    if run.returncode == BUILD_FAILED_STATUS:
        reason = first_error("icarus", output, f"iverilog failed under cocotb (exit {run.returncode})")
        return SimResult(label, False, False, reason, [], output[-2000:], run.wall_s)
    report = _read_results(results)
    if report is None:
        last = next((line.strip() for line in reversed(lines) if "Error" in line), lines[-1] if lines else "no output")
        return SimResult(label, True, False, f"cocotb wrote no test results: {_one_line(last)}", [], tail, run.wall_s)
    ran, failures = report
    if not failures and ran == 0:
        return SimResult(label, True, False, f"cocotb module {testbench.module} ran no test", [], tail, run.wall_s)
    if failures:
        fail_lines = [f"{test}: {message}" for test, message in failures]
        reason = f"cocotb test {failures[0][0]} failed: {failures[0][1]}"
        return SimResult(label, True, False, reason, fail_lines[:20], tail, run.wall_s)
    return SimResult(label, True, True, "", [], tail, run.wall_s)


def _read_results(path: Path) -> tuple[int, list[tuple[str, str]]] | None:
    """Tests that ran and the failed ones (name, first line of the message) from a JUnit file;
    None when there is none or it does not parse (the run ended before cocotb wrote it)."""
    if not path.is_file() or path.stat().st_size > RESULTS_MAX_BYTES:
        return None
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError:
        return None
    ran, failures = 0, []
    for case in root.iter("testcase"):
        if case.find("skipped") is not None:
            continue
        ran += 1
        problem = next((element for element in case if element.tag in ("failure", "error")), None)
        if problem is not None:
            message = problem.get("message") or problem.get("type") or problem.tag
            failures.append((f"{case.get('classname')}.{case.get('name')}", _one_line(message)))
    return ran, failures


def _one_line(text: str) -> str:
    """The first non-blank line of a message, capped: a reason is one line."""
    first = text.strip().splitlines()[0].strip() if text.strip() else ""
    return first if len(first) <= REASON_MAX_CHARS else first[:REASON_MAX_CHARS] + "..."


def main(argv: list[str] | None = None) -> int:
    """The driver: build the Verilog sources with iverilog, run the test module, write the JUnit file."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--top", required=True, help="HDL toplevel")
    parser.add_argument("--module", required=True, help="Python test module")
    parser.add_argument("--python-path", action="append", default=[], help="folder holding the test module")
    parser.add_argument("--include", action="append", default=[], help="Verilog include folder")
    parser.add_argument("sources", nargs="+", help="Verilog sources")
    arguments = parser.parse_args(argv)
    for name in [name for name in os.environ if name.startswith("COCOTB_") or name in _OUTSIDE_SETTINGS]:
        del os.environ[name]
    sys.path[:0] = arguments.python_path  # cocotb hands sys.path to the simulator's Python as PYTHONPATH
    from cocotb_tools.runner import get_runner

    runner = get_runner("icarus")
    try:
        runner.build(sources=arguments.sources, includes=arguments.include, hdl_toplevel=arguments.top,
                     build_dir=BUILD_DIR, timescale=TIMESCALE)
    except RuntimeError:  # iverilog failed; its messages are in the output already
        return BUILD_FAILED_STATUS
    runner.test(test_module=arguments.module, hdl_toplevel=arguments.top, build_dir=BUILD_DIR,
                results_xml=str(Path(RESULTS_FILE).resolve()), seed=SEED)
    return 0


if __name__ == "__main__":
    sys.exit(main())
