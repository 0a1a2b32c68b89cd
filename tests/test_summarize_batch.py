"""`hdlrl summarize` as a batch job: resume after kill -9, error rows that never stop the batch,
the SystemVerilog fallback to pyslang, through the command line; files parsed on the executor."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hdlrl.bench.summarize import replicated_corpus
from hdlrl.evaluate.executors.local import LocalExecutor
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.batch import read_sources

ROOT = Path(__file__).resolve().parent.parent


def _summarize(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "hdlrl.cli", "summarize", *arguments]


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _without_timing(row: dict) -> dict:
    return {key: value for key, value in row.items() if key != "seconds"}


def test_killed_batch_resumes_with_each_module_once_and_written_rows_untouched(tmp_path: Path) -> None:
    corpus = replicated_corpus(sorted(ROOT.glob("designs/*/rtl/*.v")), 4, tmp_path / "corpus")
    clean = tmp_path / "clean.jsonl"
    subprocess.run(_summarize(str(tmp_path / "corpus"), "--out", str(clean), "--json"), check=True,
                   capture_output=True)
    expected = {row["id"]: _without_timing(row) for row in _rows(clean)}
    assert len(expected) >= 4 * 15 and len(corpus) == len(set(corpus))

    killed = tmp_path / "killed.jsonl"
    process = subprocess.Popen(_summarize(str(tmp_path / "corpus"), "--out", str(killed)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while (not killed.is_file() or killed.read_bytes().count(b"\n") < 10) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = killed.read_bytes()
    complete = before[:before.rfind(b"\n") + 1]
    assert 10 <= complete.count(b"\n") < len(expected), "the batch ended before the kill"
    with killed.open("ab") as handle:  # a row torn by the kill, whether or not this kill tore one
        handle.write(b'{"id": "torn')

    subprocess.run(_summarize(str(tmp_path / "corpus"), "--out", str(killed), "--resume"), check=True,
                   capture_output=True)
    after = killed.read_bytes()
    assert after.startswith(complete)
    rows = _rows(killed)
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids)) == len(expected)
    assert {row["id"]: _without_timing(row) for row in rows} == expected


def test_unparseable_files_get_error_rows_and_the_batch_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.v").write_text("module broken(input a, output b);\n  assign b = a +;\nendmodule\n")
    (tmp_path / "garbage.v").write_text("this is not verilog at all {\n")
    good = tmp_path / "alu8.v"
    good.write_text((ROOT / "designs/alu8/rtl/alu8.v").read_text())
    out = tmp_path / "rows.jsonl"
    result = subprocess.run(_summarize(str(tmp_path), "--out", str(out), "--json"), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    rows = {Path(row["path"]).name: row for row in _rows(out)}
    assert rows["alu8.v"]["status"] == "ok"
    for name in ("broken.v", "garbage.v"):
        row = rows[name]
        assert row["status"] == "error" and row["summary"] is None
        assert "\n" not in row["error"] and row["error"].startswith(f"{tmp_path / name}:"), row["error"]
    assert rows["broken.v"]["error"].startswith(f"{tmp_path / 'broken.v'}:2:")
    assert json.loads(result.stdout)["errors"] == 2


def test_systemverilog_module_falls_back_to_pyslang(tmp_path: Path) -> None:
    (tmp_path / "popcount.sv").write_text(
        "module popcount (\n"
        "  input  logic [7:0] data,\n"
        "  output logic [3:0] ones\n"
        ");\n"
        "  always_comb begin\n"
        "    ones = '0;\n"
        "    for (int i = 0; i < 8; i++) ones = ones + data[i];\n"
        "  end\n"
        "endmodule\n")
    out = tmp_path / "rows.jsonl"
    subprocess.run(_summarize(str(tmp_path), "--out", str(out)), check=True, capture_output=True)
    [row] = _rows(out)
    assert row["module"] == "popcount" and row["parser"] == "pyslang" and row["status"] == "ok"
    assert row["hallucinated"] == [] and row["scores"]["fc"] == 1.0
    assert "`ones` (4 bits)" in row["summary"] and "`data` (8 bits)" in row["summary"]
    assert row["blocks"][0]["kind"] == "combinational"


class _RecordingExecutor:
    """Two worker processes, remembering the files it was sent to parse."""

    def __init__(self) -> None:
        self._pool = LocalExecutor(2)
        self.workers = 2
        self.sent: list[str] = []

    def map(self, jobs):
        jobs = list(jobs)
        self.sent += [Path(job.path).name for job in jobs]
        return self._pool.map(jobs)


def test_files_are_parsed_on_the_executor_except_those_that_include_others(tmp_path: Path) -> None:
    (tmp_path / "widths.vh").write_text("`define WIDTH 8\n")
    (tmp_path / "alu8.v").write_text((ROOT / "designs/alu8/rtl/alu8.v").read_text())
    (tmp_path / "wide.v").write_text('`include "widths.vh"\nmodule wide(input [`WIDTH-1:0] a, output [`WIDTH-1:0] y);\n'
                                     "  assign y = ~a;\nendmodule\n")
    (tmp_path / "latin1.v").write_bytes(b"module m; // caf\xe9\nendmodule\n")
    (tmp_path / "two.v").write_text("module one(input a, output y);\n  assign y = a;\nendmodule\n"
                                    "module two(input a, output y);\n  one u(.a(a), .y(y));\nendmodule\n")
    files = sorted(tmp_path.glob("*.v"))
    executor = _RecordingExecutor()
    try:
        modules, unread = read_sources(files, executor)
    finally:
        executor._pool.close()
    assert executor.sent == ["alu8.v", "two.v"]  # wide.v reads widths.vh, which a remote worker may not have
    alone = [read_source(path) for path in files]
    assert modules == [module for read, _ in alone for module in read]
    assert [module.name for module in modules] == ["alu8", "one", "two", "wide"]
    assert unread == [failed for _, unread_here in alone for failed in unread_here]
    assert [(Path(failed.path).name, failed.line) for failed in unread] == [("latin1.v", 1)]
