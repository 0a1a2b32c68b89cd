"""Synthesis recipes: the same RTL measured under other Yosys/ABC options, its proofs shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.eda.synth.recipes import RECIPES, recipe_options
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.verify.job import GateJob, run_gate_job


def test_a_recipe_changes_the_ppa_but_not_the_verdict_and_keeps_the_reference(tmp_path: Path) -> None:
    design, flow, cache = load_design(DESIGNS_DIR / "alu8"), load_gate_flow(), tmp_path / "cache.sqlite"
    plain_job = GateJob(design, design.rtl, get_pdk("generic"), flow, cache)
    fast_job = GateJob(design, design.rtl, get_pdk("generic"), flow, cache,
                       synthesis=recipe_options(flow.evaluation.synthesis, "abc_fast"))
    assert fast_job.key() != plain_job.key()
    plain, fast = run_gate_job(plain_job), run_gate_job(fast_job)
    assert plain.accepted and fast.accepted and fast.level == plain.level == "proven"
    assert fast.reference_ppa == plain.reference_ppa and plain.ppa_ratio == pytest.approx(1.0)
    assert fast.ppa != plain.ppa and fast.ppa_ratio != pytest.approx(1.0)  # ABC's quick script maps otherwise


def test_unknown_recipe_is_named() -> None:
    assert "flow" in RECIPES
    with pytest.raises(ValueError, match="unknown synthesis recipe 'abc_slow'"):
        recipe_options(load_gate_flow().evaluation.synthesis, "abc_slow")
