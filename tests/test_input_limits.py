"""No bad input hangs: files past the screen's caps (size, tokens, nesting, operators in one
statement) are refused within seconds, with one line naming the file and the line where the
cap was crossed, by `hdlrl gate` and by `hdlrl summarize` alike (real CLI, real tools)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR, SHARED_DIR
from hdlrl.hdl import screen
from hdlrl.hdl.readers import TOO_DEEP
from hdlrl.hdl.screen import (MAX_NESTING, MAX_SOURCE_BYTES, MAX_SOURCE_TOKENS, MAX_STATEMENT_OPERATORS,
                              limit_crossed, screen_view)
from hdlrl.hdl.sources import read_source
from hdlrl.hdl.view import LineMap

ALU8 = DESIGNS_DIR / "alu8"
SOURCE = (ALU8 / "rtl" / "alu8.v").read_text()
FIRST_LINE = SOURCE[:SOURCE.index("endmodule")].count("\n") + 1  # where the hostile part starts
DEADLINE_S = 30


def _deep_parentheses() -> str:
    return "    wire deep = " + "(" * 10_000 + "a[0]" + ")" * 10_000 + ";\n"


def _deep_begin_end() -> str:
    return "    always @* " + "begin " * 10_000 + "y = a; " + "end " * 10_000 + "\n"


def _long_else_if_chain() -> str:
    return ("    reg r;\n    always @* " + " ".join(f"if (op == 3'd{i % 8}) r = a[{i % 8}]; else" for i in range(5_000))
            + " r = 1'b0;\n")


def _long_operator_chain() -> str:
    return "    wire [7:0] sum = " + " + ".join(["a"] * 10_000) + ";\n"


def _millions_of_tokens() -> str:
    return "    wire [1:0] wide = {" + "a," * 1_500_000 + "a};\n"  # 3 MB: under the size cap


PADDING = "    // padding\n"

# (name, the hostile text put before `endmodule`, the refusal, the line it names: None for the
# line of the byte past the size cap)
HOSTILE = [
    ("deep_parentheses", _deep_parentheses, f"nesting deeper than {MAX_NESTING} levels", FIRST_LINE),
    ("deep_begin_end", _deep_begin_end, f"nesting deeper than {MAX_NESTING} levels", FIRST_LINE),
    ("long_else_if_chain", _long_else_if_chain, f"nesting deeper than {MAX_NESTING} levels", FIRST_LINE + 1),
    ("long_operator_chain", _long_operator_chain, f"more than {MAX_STATEMENT_OPERATORS} operators in one statement",
     FIRST_LINE),
    ("millions_of_tokens", _millions_of_tokens, f"more than {MAX_SOURCE_TOKENS} tokens", FIRST_LINE),
    ("fifty_megabytes", lambda: PADDING * (50_000_000 // len(PADDING)),
     f"file larger than {MAX_SOURCE_BYTES >> 20} MiB", None),
]


def _hostile_file(tmp_path: Path, name: str, body: Callable[[], str]) -> tuple[Path, int]:
    """alu8 with `body` before `endmodule`, and the line of the byte past the size cap."""
    text = SOURCE.replace("endmodule", body() + "endmodule", 1)
    path = tmp_path / f"{name}.v"
    path.write_text(text)
    return path, text.encode()[:MAX_SOURCE_BYTES].count(b"\n") + 1


def _run(*arguments: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "hdlrl.cli", *arguments], capture_output=True, text=True,
                            timeout=DEADLINE_S)
    return result, time.perf_counter() - started


@pytest.mark.parametrize("name, body, message, line", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_gate_refuses_a_file_past_a_cap_at_once(tmp_path: Path, name: str, body: Callable[[], str], message: str,
                                                line: int | None) -> None:
    path, byte_line = _hostile_file(tmp_path, name, body)
    result, elapsed = _run("gate", str(ALU8), "--rtl", str(path), "--no-ppa", "--json")
    assert elapsed < DEADLINE_S
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr  # a rejection, as for any other rejected candidate
    verdict = json.loads(result.stdout)
    assert not verdict["accepted"] and verdict["stage"] == "screen"
    assert verdict["reason"] == f"{path}:{line or byte_line}: {message}"


@pytest.mark.parametrize("name, body, message, line", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_summarize_gives_a_file_past_a_cap_one_error_row(tmp_path: Path, name: str, body: Callable[[], str],
                                                         message: str, line: int | None) -> None:
    path, byte_line = _hostile_file(tmp_path, name, body)
    out = tmp_path / "rows.jsonl"
    result, elapsed = _run("summarize", str(path), "--out", str(out), "--json")
    assert elapsed < DEADLINE_S
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr  # a batch reports unread files in their rows
    [row] = [json.loads(text) for text in out.read_text().splitlines()]
    assert row["status"] == "error" and row["summary"] is None
    assert row["error"] == f"{path}:{line or byte_line}: {message}"
    assert json.loads(result.stdout)["errors"] == 1


def test_real_rtl_passes_with_every_cap_cut_by_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's designs, the gate corpus and (where it is) the RTLLM benchmark."""
    files = [*DESIGNS_DIR.rglob("*.v"), *(Path(__file__).parent / "gate_corpus").glob("*.v"),
             *(SHARED_DIR / "benchmarks" / "rtllm").rglob("*.v")]
    for name in ("MAX_SOURCE_TOKENS", "MAX_NESTING", "MAX_STATEMENT_OPERATORS"):
        monkeypatch.setattr(screen, name, getattr(screen, name) // 10)
    for path in files:
        text = path.read_text()
        assert len(text.encode()) < MAX_SOURCE_BYTES // 10 and limit_crossed(text) is None, path


def _chain(links: int, branch: str = "y = 0;") -> str:
    """`if ... else if ...` with `links` links, each taking `branch`."""
    return ("always @* if (s == 0) " + branch + "".join(f" else if (s == {i}) {branch}" for i in range(1, links + 1))
            + " else y = 1;\n")


def test_an_else_if_chain_nests_as_deep_as_it_is_long_while_it_lasts() -> None:
    too_deep = (f"nesting deeper than {MAX_NESTING} levels", 1)
    assert limit_crossed(_chain(MAX_NESTING - 1)) is None  # the last condition's parentheses are one level deeper
    assert limit_crossed(_chain(MAX_NESTING)) == too_deep
    block = "begin y = 0; z = 1; end"  # its statements do not end the chain around them
    assert limit_crossed(_chain(MAX_NESTING - 1, block)) is None
    assert limit_crossed(_chain(MAX_NESTING, block)) == too_deep
    assert limit_crossed(_chain(MAX_NESTING - 1) * 4) is None  # a chain ends with its statement


def test_a_tree_deeper_than_python_recursion_is_an_unread_row_not_a_crash(tmp_path: Path) -> None:
    """1,500 terms are within the caps, but deeper than either reader's walk can recurse."""
    path = tmp_path / "chain.v"
    path.write_text("module chain(input [7:0] a, output [7:0] y);\n  assign y = " + " + ".join(["a"] * 1_500)
                    + ";\nendmodule\n")
    modules, [unread] = read_source(path)
    assert modules == [] and unread.line == 1
    assert unread.reason == "; ".join(TOO_DEEP.format(parser=parser) for parser in ("pyverilog", "pyslang"))


def test_a_range_too_deep_to_evaluate_is_not_a_literal_to_the_screen(tmp_path: Path) -> None:
    text = "module top;\n  reg [" + "+".join(["1"] * 1_500) + ":0] m [0:3];\nendmodule\n"
    assert screen_view(text, LineMap.of(text, "top.v"), tmp_path) is None
