"""With --json on the command line, a usage error argparse finds (an unknown option, a missing or
bad argument) still prints exactly one JSON object on stdout, with `error` and null `file` and
`line`, and keeps argparse's usage on stderr and its exit status 2 (issue 24)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
HDLRL = REPO_ROOT / ".venv" / "bin" / "hdlrl"
ALU8 = str(REPO_ROOT / "designs" / "alu8")
ALU8_RTL = str(REPO_ROOT / "designs" / "alu8" / "rtl" / "alu8.v")


def _hdlrl(*arguments: str) -> subprocess.CompletedProcess:
    if not HDLRL.is_file():
        pytest.skip(f"{HDLRL} not installed: run make setup")
    return subprocess.run([str(HDLRL), *arguments], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)


@pytest.mark.parametrize("arguments, message", [
    (["gate", ALU8, "--rtl", ALU8_RTL, "--json", "--no-such-option"],
     "hdlrl gate: unrecognized arguments: --no-such-option"),
    (["gate", "--json"], "hdlrl gate: the following arguments are required: DESIGN_DIR, --rtl"),
    (["eval", ALU8, "--json", "--pdk"], "hdlrl eval: argument --pdk: expected one argument"),
    (["optimize", ALU8, "--budget", "0", "--json"], "hdlrl optimize: argument --budget: must be at least 1, got 0"),
    (["--json"], "hdlrl: the following arguments are required: command"),
    (["eval", ALU8, "--js", "--bogus"], "hdlrl eval: unrecognized arguments: --bogus"),  # argparse's prefix of --json
], ids=["unknown-option", "missing-argument", "missing-value", "bad-value", "no-command", "abbreviated-json"])
def test_a_usage_error_with_json_prints_one_json_object(arguments: list[str], message: str) -> None:
    done = _hdlrl(*arguments)
    assert done.returncode == 2, done.stderr
    answer = json.loads(done.stdout)  # the whole of stdout is one object
    assert answer == {"error": message, "file": None, "line": None}
    assert done.stderr.startswith("usage: ") and done.stderr.endswith(message.replace(": ", ": error: ", 1) + "\n")


def test_a_usage_error_without_json_prints_nothing_on_stdout() -> None:
    done = _hdlrl("gate", ALU8, "--rtl", ALU8_RTL, "--no-such-option")
    assert done.returncode == 2 and done.stdout == ""
    assert "hdlrl gate: error: unrecognized arguments: --no-such-option" in done.stderr
