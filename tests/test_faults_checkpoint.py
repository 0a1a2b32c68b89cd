"""Fault injection on the resumable jobs: kill -9 mid-step loses at most one step of `hdlrl optimize`,
`hdlrl cover` and `hdlrl summarize`; a damaged, foreign or missing checkpoint and a corrupt history
or rows file are refused with one line naming the file; a full disk stops a run with one line
and leaves its last checkpoint usable.

The kill tests print the steps they measured lost to the terminal, with or without `-s`: steps
finished before the kill whose rows the resumed run had to write again. Killed while a finished
step is being checkpointed, that step is lost; killed mid-step, none.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.bench.summarize import replicated_corpus
from hdlrl.checkpoint import CHECKPOINT_POINTER, HISTORY, complete_lines, open_run
from hdlrl.cli import main
from hdlrl.eda.toolchain import has_tool
from hdlrl.summarize.batch import read_written

FLOWS = Path(__file__).resolve().parents[1] / "flows"
needs_tools = pytest.mark.skipif(not (has_tool("verilator") and has_tool("iverilog") and has_tool("yosys")),
                                 reason="needs verilator, iverilog and yosys")


def _edited_flow(folder: Path, name: str, edits: tuple[tuple[str, str], ...]) -> Path:
    """flows/NAME with `edits` made (each must apply), beside copies of the flows it includes."""
    for included in ("gate.yaml", "eval.yaml"):
        shutil.copyfile(FLOWS / included, folder / included)
    text = (FLOWS / name).read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    (folder / name).write_text(text)
    return folder / name


@pytest.fixture(scope="module")
def flows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small flows: optimize judges one candidate a step, cover simulates four programs a step
    against eight mutants and never stops early."""
    folder = tmp_path_factory.mktemp("flows")
    return {"optimize": _edited_flow(folder, "optimize.yaml", (("group_size: 4 ", "group_size: 1 "),)),
            "cover": _edited_flow(folder, "cover.yaml", (("group_size: 8 ", "group_size: 4 "),
                                                         ("mutants: 30 ", "mutants: 8 "),
                                                         ("stop_at_targets: true", "stop_at_targets: false")))}


def _hdlrl(*arguments: str | Path) -> list[str]:
    return [sys.executable, "-m", "hdlrl.cli", *map(str, arguments)]


def _cover(out: Path, flows: dict[str, Path], budget: int, *extra: str) -> list[str]:
    return _hdlrl("cover", DESIGNS_DIR / "updown_counter8", "--out", out, "--flow", flows["cover"],
                  "--budget", str(budget), "--seed", "2", *extra)


def _succeed(argv: list[str]) -> None:
    result = subprocess.run(argv, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def _complete_lines(path: Path) -> list[bytes]:
    return complete_lines(path.read_bytes()).splitlines() if path.is_file() else []


def _step_lines(history: Path) -> dict[int, bytes]:
    """The `step` row of each finished step, as written."""
    rows = ((json.loads(line), line) for line in _complete_lines(history))
    return {row["step"]: line for row, line in rows if row["kind"] == "step"}


def _pointer(run_dir: Path) -> dict:
    return json.loads((run_dir / CHECKPOINT_POINTER).read_text())


def _kill_mid_run(argv: list[str], started: Callable[[], bool], timeout_s: float) -> None:
    """Start `argv` in its own process group, wait until `started()`, then SIGKILL the whole group."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + timeout_s
    try:
        while not started() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)  # soon after a step's rows: often while that step is being checkpointed
        assert process.poll() is None, "the run ended before the kill"
        assert started(), f"nothing finished within {timeout_s} s"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _lost(before: dict, after: dict) -> int:
    """Steps (rows) finished before the kill that the resumed run did not keep as they were."""
    return sum(after.get(key) != line for key, line in before.items())


def _checkpointed(out: Path) -> int:
    return _pointer(out)["step"] + 1 if (out / CHECKPOINT_POINTER).is_file() else 0


def _killed_and_resumed(job: str, argv: Callable[..., list[str]], out: Path, finished: int, moment: str,
                        capsys: pytest.CaptureFixture) -> list[dict]:
    """Kill -9 the run once its history shows `finished` steps ("checkpointing": the last of them is
    most likely being checkpointed then) or once they are checkpointed ("mid-step": the kill lands
    in the next step), resume it to the end, print and check the steps lost; returns the final history."""
    started = {"checkpointing": lambda: len(_step_lines(out / HISTORY)) >= finished,
               "mid-step": lambda: _checkpointed(out) >= finished}[moment]
    _kill_mid_run(argv(), started, timeout_s=300)
    before = _step_lines(out / HISTORY)
    checkpointed = _checkpointed(out)
    _succeed(argv("--resume"))
    lost = _lost(before, _step_lines(out / HISTORY))
    with capsys.disabled():
        print(f"\n[faults] {job}, killed {moment}: {len(before)} steps finished, {checkpointed} checkpointed, "
              f"{lost} lost")
    assert lost <= 1
    return [json.loads(line) for line in _complete_lines(out / HISTORY)]


# ---------------------------------------------------------------------- kill -9


@needs_tools
@pytest.mark.parametrize("moment", ["checkpointing", "mid-step"])
def test_optimize_killed_mid_run_loses_at_most_one_step(flows: dict[str, Path], tmp_path: Path, moment: str,
                                                        capsys: pytest.CaptureFixture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """tick_div10, one candidate a step; a cache of its own, so that no verdict of another test
    makes the steps too quick to kill one mid-way."""
    monkeypatch.setenv("HDLRL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"

    def optimize(*extra: str) -> list[str]:
        return _hdlrl("optimize", DESIGNS_DIR / "tick_div10", "--out", out, "--flow", flows["optimize"],
                      "--budget", "3", "--seed", "3", "--json", *extra)

    rows = _killed_and_resumed("optimize", optimize, out, 2, moment, capsys)
    assert [row["step"] for row in rows if row["kind"] == "step"] == [0, 1, 2]
    assert [(row["step"], row["group"], row["sample"]) for row in rows if row["kind"] == "candidate"] == [
        (0, 0, 0), (1, 0, 0), (2, 0, 0)]


@needs_tools
@pytest.mark.parametrize("moment", ["checkpointing", "mid-step"])
def test_cover_killed_mid_run_loses_at_most_one_step(flows: dict[str, Path], tmp_path: Path, moment: str,
                                                     capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    rows = _killed_and_resumed("cover", lambda *extra: _cover(out, flows, 40, "--json", *extra), out, 3, moment,
                               capsys)
    assert [row["step"] for row in rows if row["kind"] == "step"] == list(range(10))
    programs = [(row["step"], row["sample"]) for row in rows if row["kind"] == "program"]
    assert len(programs) == len(set(programs)) == 40


def test_summarize_killed_mid_batch_loses_at_most_one_row(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    corpus = tmp_path / "corpus"
    replicated_corpus(sorted(DESIGNS_DIR.glob("*/rtl/*.v")), 3, corpus)
    out = tmp_path / "rows.jsonl"

    def rows_by_id() -> dict[str, bytes]:
        return {json.loads(line)["id"]: line for line in _complete_lines(out)}

    _kill_mid_run(_hdlrl("summarize", corpus, "--out", out), lambda: len(_complete_lines(out)) >= 5, timeout_s=120)
    before = rows_by_id()
    _succeed(_hdlrl("summarize", corpus, "--out", out, "--resume"))
    ids = [json.loads(line)["id"] for line in _complete_lines(out)]
    assert len(ids) == len(set(ids)) > len(before)
    lost = _lost(before, rows_by_id())
    with capsys.disabled():
        print(f"\n[faults] summarize, killed mid-batch: {len(before)} rows written, {lost} lost")
    assert lost <= 1


# ---------------------------------------------------------------------- refusals


@pytest.fixture(scope="module")
def cover_run(flows: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-step cover run; tests damage copies of it."""
    out = tmp_path_factory.mktemp("cover") / "run"
    _succeed(_cover(out, flows, 8, "--json"))
    return out


@pytest.fixture
def run_copy(cover_run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(cover_run, tmp_path / "run"))


def _resume_error(run_dir: Path, flows: dict[str, Path], capsys: pytest.CaptureFixture) -> str:
    """The one line `hdlrl cover --resume` prints when it refuses `run_dir` (exit status 2)."""
    argv = _cover(run_dir, flows, 12, "--resume")[3:]  # past python -m hdlrl.cli
    capsys.readouterr()
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    return error.strip()


@needs_tools
def test_truncated_checkpoint_file_is_refused(run_copy: Path, flows: dict[str, Path],
                                              capsys: pytest.CaptureFixture) -> None:
    pointer = _pointer(run_copy)
    state = run_copy / pointer["folder"] / "run_state.json"
    size = pointer["files"]["run_state.json"]["size"]
    with state.open("r+b") as handle:
        handle.truncate(120)
    assert _resume_error(run_copy, flows, capsys) == (
        f"hdlrl: error: {run_copy / CHECKPOINT_POINTER}: checkpoint is damaged ({pointer['folder']}/run_state.json: "
        f"120 bytes, expected {size}); start a new run with another --out")


@needs_tools
def test_altered_checkpoint_file_and_pointer_are_refused(run_copy: Path, flows: dict[str, Path],
                                                         capsys: pytest.CaptureFixture) -> None:
    pointer = _pointer(run_copy)
    state = run_copy / pointer["folder"] / "loop_state.json"
    original = state.read_bytes()
    state.write_bytes(original.replace(b'"step": ', b'"step":_', 1))
    error = _resume_error(run_copy, flows, capsys)
    assert f"({pointer['folder']}/loop_state.json: altered, its sha256 differs)" in error
    state.write_bytes(original)
    (run_copy / CHECKPOINT_POINTER).write_text(json.dumps({**pointer, "step": pointer["step"] + 1}))
    assert "checkpoint is damaged (its checksum does not match its content)" in _resume_error(run_copy, flows, capsys)


@needs_tools
def test_foreign_or_junk_pointer_is_refused(run_copy: Path, flows: dict[str, Path],
                                            capsys: pytest.CaptureFixture) -> None:
    capsys.readouterr()
    assert main(["optimize", str(DESIGNS_DIR / "updown_counter8"), "--out", str(run_copy), "--flow",
                 str(flows["optimize"]), "--budget", "2", "--resume"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hdlrl: error: {run_copy / CHECKPOINT_POINTER}: --resume: this run directory holds a run of hdlrl cover, "
        "not of hdlrl optimize; give another --out")
    (run_copy / CHECKPOINT_POINTER).write_text('{"folder": "checkpoint-0001", "st')
    assert _resume_error(run_copy, flows, capsys).endswith(
        "checkpoint.json: checkpoint is damaged (not JSON); start a new run with another --out")
    (run_copy / CHECKPOINT_POINTER).write_text('{"folder": "checkpoint-0001", "step": 1, "settings": {}}')
    assert "not a checkpoint this hdlrl reads (it lacks version, kind, history_bytes, files, checksum)" in (
        _resume_error(run_copy, flows, capsys))


@needs_tools
def test_corrupt_history_line_is_reported_with_its_number(run_copy: Path, flows: dict[str, Path],
                                                          capsys: pytest.CaptureFixture) -> None:
    history = run_copy / HISTORY
    lines = history.read_bytes().splitlines(keepends=True)
    lines[2] = b"[" + lines[2][1:]  # same length: only the third line is wrong
    history.write_bytes(b"".join(lines))
    assert _resume_error(run_copy, flows, capsys) == (
        f"hdlrl: error: {history}:3: corrupt row (not a JSON object with 'step'): mend or delete the line, "
        "or start a new run with another --out")


@needs_tools
def test_missing_pointer_and_unfinished_runs_are_never_started_over(run_copy: Path, flows: dict[str, Path],
                                                                    capsys: pytest.CaptureFixture) -> None:
    (run_copy / "summary.json").unlink()  # as if killed after its last checkpoint
    capsys.readouterr()
    assert main(_cover(run_copy, flows, 8)[3:]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hdlrl: error: {run_copy}: this run directory holds a run that did not finish: continue it with --resume, "
        "or give another --out")
    (run_copy / CHECKPOINT_POINTER).unlink()
    assert _resume_error(run_copy, flows, capsys) == (
        f"hdlrl: error: {run_copy / CHECKPOINT_POINTER}: --resume: missing, yet the run directory holds later steps "
        f"({HISTORY}, checkpoint-0001); start a new run with another --out "
        "(or run without --resume to start over here)")


@pytest.mark.parametrize("history", [None, b'{"kind": "step", "step": 0}\n{"kind": "prog'],
                         ids=["empty", "killed-checkpointing-the-first-step"])
def test_resume_with_no_step_checkpointed_starts_a_new_run(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                           history: bytes | None) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    if history is not None:
        (run_dir / HISTORY).write_bytes(history)
    assert open_run(run_dir, "cover", {}, resume=True) is None
    assert capsys.readouterr().err == f"hdlrl: {run_dir}: no step was checkpointed, starting a new run\n"
    assert list(run_dir.iterdir()) == []


def test_summarize_resume_reports_a_corrupt_row_and_cuts_a_torn_one(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    source = tmp_path / "alu8.v"
    shutil.copyfile(DESIGNS_DIR / "alu8" / "rtl" / "alu8.v", source)
    out = tmp_path / "rows.jsonl"
    out.write_bytes(b'{"id": "a"}\n{"id": "b"}\n{"id": \n{"id": "c"}\n{"id": "to')
    capsys.readouterr()
    assert main(["summarize", str(source), "--out", str(out), "--resume"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"hdlrl: error: {out}:3: corrupt row (not a JSON object with 'id'): mend or delete the line, "
        "or start a new run with another --out")
    out.write_bytes(b'{"id": "a", "status": "ok"}\n{"id": "to')
    assert list(read_written(out)) == ["a"] and out.read_bytes() == b'{"id": "a", "status": "ok"}\n'


# ---------------------------------------------------------------------- a full disk


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of its own, to be filled; unmounted whatever happens."""
    if os.geteuid() != 0:
        pytest.skip("filling a disk needs a tmpfs of its own, and mounting one needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
                             capture_output=True, text=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def _resize(mount: Path, size: int) -> bool:
    """Set the tmpfs's size (bytes); False when it holds more than that already."""
    return subprocess.run(["mount", "-o", f"remount,size={size}", str(mount)], capture_output=True).returncode == 0


def _used(mount: Path) -> int:
    stats = os.statvfs(mount)
    return (stats.f_blocks - stats.f_bfree) * stats.f_frsize


def _assert_one_line_error(returncode: int, stderr: str, message: str) -> None:
    assert returncode == 2, stderr
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert message in stderr, stderr


@needs_tools
def test_full_disk_stops_cover_and_its_checkpoint_resumes(flows: dict[str, Path], small_disk: Path) -> None:
    out = small_disk / "run"
    process = subprocess.Popen(_cover(out, flows, 40, "--json"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    try:
        deadline = time.monotonic() + 300
        while not (out / CHECKPOINT_POINTER).is_file() and time.monotonic() < deadline:
            time.sleep(0.01)
        while not _resize(small_disk, _used(small_disk)) and time.monotonic() < deadline:
            pass  # the run wrote more meanwhile: try again
        stderr = process.communicate(timeout=120)[1]
    finally:
        process.kill()
        process.wait()
    _assert_one_line_error(process.returncode, stderr, f"no space left on device writing {out}")
    assert f"the checkpoint of step {_pointer(out)['step']} is intact: free space and run again with --resume" in stderr
    assert _resize(small_disk, 16 << 20)
    _succeed(_cover(out, flows, 40, "--resume"))
    rows = [json.loads(line) for line in _complete_lines(out / HISTORY)]
    assert [row["step"] for row in rows if row["kind"] == "step"] == list(range(10))


def test_full_disk_stops_summarize_and_its_rows_resume(tmp_path: Path, small_disk: Path) -> None:
    corpus = tmp_path / "corpus"
    replicated_corpus(sorted(DESIGNS_DIR.glob("*/rtl/*.v")), 2, corpus)
    out = small_disk / "rows.jsonl"
    assert _resize(small_disk, 32 << 10)
    full = subprocess.run(_hdlrl("summarize", corpus, "--out", out), capture_output=True, text=True)
    _assert_one_line_error(full.returncode, full.stderr, f"hdlrl: error: no space left on device writing {out}; "
                           "every row written is kept: free space and run again with --resume")
    kept = _complete_lines(out)
    assert kept
    assert _resize(small_disk, 16 << 20)
    _succeed(_hdlrl("summarize", corpus, "--out", out, "--resume"))
    lines = _complete_lines(out)
    ids = [json.loads(line)["id"] for line in lines]
    assert lines[:len(kept)] == kept and len(ids) == len(set(ids)) > len(kept)
