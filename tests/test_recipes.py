"""Synthesis recipes: the same RTL measured under other Yosys/ABC options, its proofs shared."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.cli import main
from hdlrl.eda.synth.recipes import DEFAULT_RECIPE, RECIPES, recipe_fields, recipe_options, sequence_recipe
from hdlrl.eda.synth.yosys import (ABC_COMMANDS, ABC_MAPPERS, COARSE_PASSES, SynthOptions, abc_sequence_argument,
                                   choices_conflict)
from hdlrl.optimize.recipe_space import sequence_recipes
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.evaluate.job import EvalJob, run_job
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
    # the gate measures a recipe by synthesis and timing alone; the whole cascade (`hdlrl eval
    # --recipe`) must measure the same
    cascade = run_job(EvalJob(design, get_pdk("generic"), replace(flow.evaluation, synthesis=fast_job.synthesis)))
    assert cascade.verified and cascade.ppa == fast.ppa


def test_unknown_recipe_is_named() -> None:
    assert "flow" in RECIPES
    with pytest.raises(ValueError, match="'abc_slow' in synthesis recipe 'abc_slow': expected a name"):
        recipe_options(load_gate_flow().evaluation.synthesis, "abc_slow")
    for bad, message in [("abc=balance", "abc= needs map="), ("map=nf,amap", "map= takes one of"),
                         ("abc=balance,sweep map=nf", "abc= takes a list of balance, rewrite"),
                         ("map=nf map=amap", "each once")]:
        with pytest.raises(ValueError, match=message):
            recipe_fields(bad)


def test_a_sequence_recipe_has_one_name_and_reads_back() -> None:
    text = sequence_recipe(("share_aggressive",), ("balance", "rewrite_z"), "sized", flatten=False)
    assert text == "coarse=share_aggressive abc=balance,rewrite_z map=sized flatten=no"
    options = recipe_options(SynthOptions(), text)
    assert options == SynthOptions(False, "", ("share_aggressive",), ("balance", "rewrite_z"), "sized")
    assert abc_sequence_argument(options) == "-script +strash;balance;rewrite,-z;map,{D};buffer;upsize,{D};dnsize,{D}"
    assert sequence_recipe() == DEFAULT_RECIPE and recipe_fields(DEFAULT_RECIPE) == {}


# Every word of both vocabularies, run by real Yosys and ABC: four syntheses cover them all.
VOCABULARY_RECIPES = [f"coarse={','.join(COARSE_PASSES)} abc={','.join(ABC_COMMANDS)} map=nf",
                      *(f"map={mapper}" + (" flatten=no" if mapper == "amap" else "")
                        for mapper in ABC_MAPPERS if mapper != "nf")]


@pytest.mark.parametrize("recipe", VOCABULARY_RECIPES)
def test_every_vocabulary_word_synthesises_and_times(recipe: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", str(DESIGNS_DIR / "mult8"), "--recipe", recipe, "--json", "--no-cache"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["verified"] and result["ppa"]["area_um2"] > 0 and result["ppa"]["delay_ns"] > 0


def test_abc_rewrites_nothing_on_choice_nodes_so_no_recipe_asks_it_to(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    """ABC's rewrite, refactor and resub write no network after `dch` until balance, dc2 or
    ifraig gives a plain AIG back: such a recipe is refused, and none is in the policy's space."""
    design, liberty = load_design(DESIGNS_DIR / "mult8"), get_pdk("generic").liberty
    def abc_runs(script: str) -> bool:
        commands = f"read_verilog -sv {design.rtl[0]}; synth -top {design.top}; abc -liberty {liberty} -script +{script}"
        return subprocess.run(["yosys", "-q", "-p", commands], cwd=tmp_path, capture_output=True).returncode == 0
    assert not abc_runs("strash;dch,-f;rewrite;map") and abc_runs("strash;dch,-f;dc2;rewrite;map")
    assert choices_conflict(("choices", "resub_z")) == "resub_z" and choices_conflict(("choices", "ifraig", "resub")) is None
    with pytest.raises(ValueError, match="refactor cannot follow choices"):
        recipe_fields("abc=choices,choices,refactor map=amap")
    assert not any(choices_conflict(recipe_fields(recipe).get("abc_commands", ())) for recipe in sequence_recipes())
    assert main(["eval", str(DESIGNS_DIR / "mult8"), "--recipe", "abc=choices,balance,resub_z map=nf", "--json",
                 "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"]


def test_eval_names_a_bad_recipe_in_one_line(capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", str(DESIGNS_DIR / "mult8"), "--recipe", "map=fastest"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("hdlrl: error: --recipe: 'map=fastest' in synthesis recipe") and "\n" not in error
