"""`hdlrl gate-score`: the gate's strength on a real design, and a design it cannot score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main


def test_gate_score_of_the_decoder_kills_every_live_mutant_and_rejects_no_rewrite(
        capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    report = tmp_path / "score.md"
    status = main(["gate-score", str(DESIGNS_DIR / "decoder3to8"), "--n", "6", "--json", "--report", str(report)])
    score = json.loads(capsys.readouterr().out)
    assert status == 0
    assert score["mutants"] == 6 and 0 <= score["equivalent"] < 6
    live = score["mutants"] - score["equivalent"]
    assert score["killed_by_gate"] == live and score["kill_rate_gate"] == 1.0
    assert score["kill_rate_testbench"] == score["killed_by_testbench"] / live
    assert score["rewrites"] >= 2 and score["false_rejections"] == 0, score["false_rejection_reasons"]
    assert len(score["gate_seconds"]) == score["mutants"] + score["rewrites"]
    assert score["gate_p90_s"] >= score["gate_median_s"] > 0
    assert len(score["tool_seconds"]) == len(score["gate_seconds"])
    assert 0 < score["tool_median_s"] <= score["gate_median_s"]
    table = report.read_text()
    assert "| decoder3to8 | 6 |" in table and "| all | 6 |" in table


def test_a_design_without_mutants_is_reported_not_scored(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    """SystemVerilog pyverilog cannot read: a one-line reason naming the file and line, exit 1."""
    design = tmp_path / "decoder_sv"
    shutil.copytree(DESIGNS_DIR / "decoder3to8", design)
    source = design / "rtl" / "decoder3to8.v"
    source.write_text(source.read_text().replace("always @*", "always_comb"))
    status = main(["gate-score", str(design), "--n", "2"])
    output = capsys.readouterr().out
    assert status == 1
    assert f"hdlrl: not scored: {source}:" in output and "pyverilog cannot parse" in output
