"""The gate on every usable design, RTLLM's and the project's (issue 24): its own reference is proven at
once, and an unusable one is an error with a reason, in one JSON object under --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import project_designs
from hdlrl.cli import main
from hdlrl.design import load_design
from hdlrl.importers.rtllm import UNUSABLE_FOLDER
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate import gate
from hdlrl.verify.gate_flow import load_gate_flow

IDENTITY_LIMIT_S = 10.0


def _unproven_or_slow(folders: list[Path]) -> list[str]:
    """The designs whose own reference, judged as a candidate, is not proven at once by its tokens."""
    pdk, flow = get_pdk("generic"), load_gate_flow()
    wrong = []
    for folder in folders:
        design = load_design(folder)
        verdict = gate(design, design.rtl, pdk, flow, with_ppa=False)
        if not (verdict.accepted and verdict.level == "proven" and "token for token" in verdict.reason):
            wrong.append(f"{design.name}: {verdict.level} {verdict.reason}")
        elif verdict.wall_s >= IDENTITY_LIMIT_S:
            wrong.append(f"{design.name}: {verdict.wall_s:.1f} s")
    return wrong


def test_every_usable_design_s_own_reference_is_proven_in_under_ten_seconds(imported_rtllm: Path) -> None:
    designs = sorted(path.parent for path in imported_rtllm.glob("*/design.yaml"))
    assert len(designs) >= 28
    assert _unproven_or_slow(designs) == []


def test_every_project_design_s_own_reference_is_proven_in_under_ten_seconds() -> None:
    assert _unproven_or_slow(project_designs()) == []


def test_gate_json_on_an_unusable_design_prints_one_object_with_the_error(imported_rtllm: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    folder = imported_rtllm / UNUSABLE_FOLDER / "synchronizer"
    status = main(["gate", str(folder), "--rtl", str(folder / "rtl" / "synchronizer.v"), "--json", "--no-cache"])
    answer = json.loads(capsys.readouterr().out)  # the whole of stdout is one object
    assert status == 2 and "Multiple edge sensitive events" in answer["error"], answer
