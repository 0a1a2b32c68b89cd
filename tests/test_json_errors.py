"""With --json, an error exit prints exactly one JSON object on stdout with `error` (and the
file and line when known), and keeps its exit status and its line on stderr (issue 24)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hdlrl.cli import main

DESIGNS = Path(__file__).resolve().parents[1] / "designs"


def test_gate_json_on_a_design_whose_reference_fails_prints_the_error(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture) -> None:
    design = tmp_path / "alu8"
    shutil.copytree(DESIGNS / "alu8", design)
    rtl = design / "rtl" / "alu8.v"
    rtl.write_text(rtl.read_text().replace("OP_AND: y = a & b;", "OP_AND: y = a | b;"))
    status = main(["gate", str(design), "--rtl", str(rtl), "--json", "--no-cache"])
    captured = capsys.readouterr()
    answer = json.loads(captured.out)  # the whole of stdout is one object
    assert status == 2
    assert answer["error"].startswith(f"{design / 'design.yaml'}: the reference itself fails the evaluation at "
                                      "simulate: testbench failed"), answer
    assert answer["file"] == str(design / "design.yaml") and answer["line"] is None
    assert captured.err == f"hdlrl: error: {answer['error']}\n"


def test_eval_json_on_a_malformed_design_yaml_names_its_file_and_line(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "design.yaml").write_text("name: broken\ntop: [unclosed\n")
    status = main(["eval", str(tmp_path), "--json"])
    captured = capsys.readouterr()
    answer = json.loads(captured.out)
    assert status == 2
    assert answer["file"] == str(tmp_path / "design.yaml") and isinstance(answer["line"], int)
    assert answer["error"].startswith(f"{tmp_path / 'design.yaml'}:{answer['line']}: ")
    assert captured.err == f"hdlrl: error: {answer['error']}\n"


def test_an_error_without_json_prints_nothing_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "design.yaml").write_text("top: [unclosed\n")
    assert main(["eval", str(tmp_path)]) == 2
    assert capsys.readouterr().out == ""
