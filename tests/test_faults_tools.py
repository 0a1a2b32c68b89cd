"""Injected tool crashes and hangs never stop a run, and each is recorded with its reason.

Shell scripts written here stand in for yosys, sta and vvp (through HDLRL_YOSYS, HDLRL_STA and
HDLRL_VVP): the version query and every unmarked run reach the real tool; a marked run crashes
(SIGSEGV), spins (a busy loop: the CPU limit stops it) or sleeps (no CPU burned: the runner
finds it idle). The mark is what the run reads, so it picks one candidate or one program: a
candidate's synthesis recipe in the Yosys script, a program's stimulus file name. `hdlrl
summarize` runs no tools: a `sitecustomize` faults its per-module processing instead.

The runs pass --no-sandbox: the stand-ins live in the test's folder under /tmp, which the
sandbox's private /tmp hides. The runner names a fault the same way in the sandbox
(`test_the_runner_names_each_fault`).
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.eda.runner import Limits, ToolRunner, tool_faults
from hdlrl.eda.toolchain import find_tool, tool_specs
from hdlrl.evaluate.cache import CACHE_FILE, ResultCache, cached_result
from hdlrl.evaluate.result import EvalResult

FLOWS = Path(__file__).resolve().parents[1] / "flows"
CRASH, SPIN, SLEEP = "kill -SEGV $$", "while :; do :; done", "exec sleep 3600"
SANDBOX_CASES = [
    pytest.param(False, id="plain"),
    pytest.param(True, id="sandboxed", marks=pytest.mark.skipif(
        not find_tool("bwrap").usable, reason=f"bwrap is unusable: {find_tool('bwrap').problem}")),
]


def _stand_in(folder: Path, tool: str, faults: str) -> Path:
    """A script in place of `tool`: its version query and every run `faults` (shell) lets
    through exec the real tool."""
    found = find_tool(tool)
    if not found.usable:
        pytest.skip(f"{tool}: {found.problem}")
    real = shlex.quote(found.path)
    version = " ".join(tool_specs()[tool].version_args)
    path = folder / tool
    path.write_text(f'#!/bin/sh\n[ "$*" = "{version}" ] && exec {real} "$@"\n{faults}\nexec {real} "$@"\n')
    path.chmod(0o755)
    return path


def _flow(folder: Path, name: str, edits: dict[str, str]) -> Path:
    """flows/NAME with each `edits` key replaced by its value, in `folder`."""
    text = (FLOWS / name).read_text()
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    path = folder / name
    path.write_text(text)
    return path


def _cli(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hdlrl.cli", *arguments], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=600)


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("sandbox", SANDBOX_CASES)
def test_the_runner_names_each_fault(tmp_path: Path, sandbox: bool) -> None:
    runner = ToolRunner(tmp_path / "scratch", Limits(time_s=1, idle_s=2), sandbox=sandbox)
    faults = tool_faults()
    assert runner.run(["sh", "-c", CRASH]).fault == "crashed (signal 11, SIGSEGV)"
    assert runner.run(["sh", "-c", SPIN]).fault == "ran out of its 1 s CPU time limit"
    stalled = runner.run(["sleep", "60"])
    assert stalled.fault == "stalled: used no CPU for 2 s" and stalled.timed_out and stalled.wall_s < 10
    assert runner.run(["sh", "-c", "exit 3"]).fault == ""
    assert tool_faults() == faults + 3


def test_a_result_computed_beside_a_crash_is_not_cached(tmp_path: Path) -> None:
    cache_path = tmp_path / "cache.sqlite"
    runner = ToolRunner(tmp_path / "scratch", sandbox=False)

    def compute(command: str) -> EvalResult:
        run = runner.run(["sh", "-c", command])
        return EvalResult("d", "d", "generic", run.ok, "synthesize", f"yosys {run.fault}" if run.fault else "")

    for _ in range(2):
        assert not cached_result(cache_path, lambda: "crashed", EvalResult, lambda: compute(CRASH)).cached
    assert len(ResultCache(cache_path)) == 0
    for cached in (False, True):
        assert cached_result(cache_path, lambda: "ran", EvalResult, lambda: compute("exit 0")).cached == cached


def test_optimize_records_each_tool_fault_and_judges_the_candidates_after_it(tmp_path: Path) -> None:
    """One step of four candidates (seed 11): three recipe sequences whose runs the stand-ins
    fault (&nf mapping: yosys crashes; gate sizing: the timer spins; area mapping: yosys
    sleeps) and, between them, an adder rewrite the whole gate judges."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    # A sequence recipe's mapper is written into the `abc -script` line of its synthesis script.
    yosys = _stand_in(bin_folder, "yosys", 'case "$*" in *"-s synth.ys"*)\n'
                      f"  grep -q -- '&nf' synth.ys && {CRASH}\n"
                      f"  grep -q -- 'amap' synth.ys && {SLEEP} ;;\nesac")
    # The timer runs beside the synthesis script.
    sta = _stand_in(bin_folder, "sta", f"grep -qs 'upsize' synth.ys && {SPIN}")
    flows = tmp_path / "flows"
    flows.mkdir()
    _flow(flows, "gate.yaml", {})
    _flow(flows, "eval.yaml", {"  time_s: 120 ": "  time_s: 3 ", "  idle_s: 30 ": "  idle_s: 5 "})
    flow = _flow(flows, "optimize.yaml", {})
    out, cache = tmp_path / "run", tmp_path / "cache"
    result = _cli("optimize", str(DESIGNS_DIR / "alu8"), "--out", str(out), "--flow", str(flow), "--budget", "4",
                  "--seed", "11", "--no-sandbox", "--json",
                  env={"HDLRL_YOSYS": str(yosys), "HDLRL_STA": str(sta), "HDLRL_CACHE_DIR": str(cache)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["verified"]
    candidates = [row for row in _rows(out / "history.jsonl") if row["kind"] == "candidate"]
    assert [row["recipe"].split()[-1] for row in candidates] == ["map=nf", "map=sized", "flow", "map=amap"]
    assert [(row["action"], row["accepted"], row["stage"], row["reason"]) for row in candidates] == [
        ("synthesis:sequence", False, "ppa", "yosys crashed (signal 11, SIGSEGV)"),
        ("synthesis:sequence", False, "ppa", "opensta ran out of its 3 s CPU time limit"),
        ("prefix_adder:brent_kung", True, "done",
         "proven equivalent by equiv-induct: every name-matched signal proven equivalent"),
        ("synthesis:sequence", False, "ppa", "yosys stalled: used no CPU for 5 s"),
    ]
    assert candidates[2]["level"] == "proven"
    with sqlite3.connect(cache / CACHE_FILE) as connection:
        stored = [text for (text,) in connection.execute("SELECT result FROM results")]
    assert stored and not any(fault in text for text in stored for fault in ("stalled", "crashed", "ran out of"))


def test_cover_records_a_crashed_and_a_stalled_simulation(tmp_path: Path) -> None:
    """Icarus runs each program as `vvp ... +stimulus=<run>_s<step>_<sample>.hex`: program 1 of
    step 0 crashes, program 2 of step 1 sleeps until the runner finds it idle, and the replay of
    the final set's first program (`<run>_final_0.hex`) crashes too."""
    vvp = _stand_in(tmp_path, "vvp", f'case "$*" in\n  *_s0_1.hex*) {CRASH} ;;\n  *_s1_2.hex*) {SLEEP} ;;\n'
                    f'  *_final_0.hex*) {CRASH} ;;\nesac')
    flow = _flow(tmp_path, "cover.yaml", {"group_size: 8 ": "group_size: 4 ", "mutants: 30 ": "mutants: 0 ",
                                          "simulator: verilator": "simulator: icarus",
                                          "stop_at_targets: true": "stop_at_targets: false",
                                          # no solved sequences: one of them covers alu8 alone, and the
                                          # final set must keep a program beside the one that crashes
                                          "solves_per_step: 64 ": "solves_per_step: 0 "})
    out = tmp_path / "run"
    result = _cli("cover", str(DESIGNS_DIR / "alu8"), "--out", str(out), "--flow", str(flow), "--budget", "8",
                  "--seed", "2", "--no-sandbox", "--json",
                  env={"HDLRL_VVP": str(vvp), "HDLRL_CACHE_DIR": str(tmp_path / "cache")})
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["simulations"] == 6
    assert [entry["reason"] for entry in summary["final_dropped"]] == ["the harness run crashed (signal 11, SIGSEGV)"]
    assert summary["final_programs"] >= 1 and summary["replay_check"]["passes_on_reference"]
    programs = {(row["step"], row["sample"]): row for row in _rows(out / "history.jsonl") if row["kind"] == "program"}
    assert programs.pop((0, 1))["reason"] == "the harness run crashed (signal 11, SIGSEGV)"
    assert programs.pop((1, 2))["reason"] == "the harness run stalled: used no CPU for 30 s"
    assert len(programs) == 6 and all("new_items" in row for row in programs.values())


def test_summarize_turns_hung_and_crashed_modules_into_rows(tmp_path: Path) -> None:
    """Modules whose processing spins, sleeps or raises each get a row with status and error,
    and the batch goes on to the module after them."""
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(
        "import time\n"
        "import hdlrl.hdl.facts\n"
        "module_facts = hdlrl.hdl.facts.module_facts\n"
        "\n"
        "def faulty_module_facts(module):\n"
        "    if module.name == 'fault_spin':\n"
        "        while True:\n"
        "            pass\n"
        "    if module.name == 'fault_sleep':\n"
        "        time.sleep(3600)\n"
        "    if module.name == 'fault_crash':\n"
        "        raise RuntimeError('injected crash')\n"
        "    return module_facts(module)\n"
        "\n"
        "hdlrl.hdl.facts.module_facts = faulty_module_facts\n")
    sources = tmp_path / "rtl"
    sources.mkdir()
    for fault in ("spin", "sleep", "crash"):
        (sources / f"1_{fault}.v").write_text(f"module fault_{fault}(input a, output b);\n  assign b = a;\nendmodule\n")
    (sources / "2_alu8.v").write_text((DESIGNS_DIR / "alu8" / "rtl" / "alu8.v").read_text())
    flow = _flow(tmp_path, "summarize.yaml", {"item_time_limit_s: 30 ": "item_time_limit_s: 2 "})
    out = tmp_path / "rows.jsonl"
    result = _cli("summarize", str(sources), "--flow", str(flow), "--out", str(out), "--json",
                  env={"PYTHONPATH": os.pathsep.join(filter(None, [str(inject), os.environ.get("PYTHONPATH")]))})
    assert result.returncode == 0, result.stderr[-2000:]
    totals = json.loads(result.stdout)
    assert (totals["ok"], totals["errors"], totals["timeouts"]) == (1, 1, 2)
    rows = {row["module"]: row for row in _rows(out)}
    for name in ("fault_spin", "fault_sleep"):
        row = rows[name]
        assert (row["status"], row["error"]) == ("timeout", "no summary within the item time limit of 2 s")
    assert (rows["fault_crash"]["status"], rows["fault_crash"]["error"]) == (
        "error", "internal error: RuntimeError: injected crash")
    assert rows["alu8"]["status"] == "ok" and rows["alu8"]["summary"]
