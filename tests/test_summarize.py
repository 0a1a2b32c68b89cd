"""hdlrl summarize with the embedded policy on the project's designs: checked claims, adequacy,
search against single shot, and robustness to alpha-renaming (a test, as the issue asks)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.rename import alpha_renames, rename_identifiers
from hdlrl.hdl.sources import Hierarchy, read_source
from hdlrl.summarize.compose_policy import ComposePolicy
from hdlrl.summarize.batch import summarize_module
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, text_claims
from hdlrl.summarize.summarize_flow import load_summarize_flow

ROOT = Path(__file__).resolve().parent.parent
RTL_FILES = sorted(ROOT.glob("designs/*/rtl/*.v"))


def summarize_file(path: Path) -> list[dict]:
    """Rows of every module of one file, children first, as the batch job computes them."""
    modules, unread = read_source(path)
    assert not unread
    hierarchy = Hierarchy(modules)
    rows: dict[str, dict] = {}
    flow = load_summarize_flow()
    for group in hierarchy.groups():
        for module in group:
            children = {child.name: rows[child.name] for child in hierarchy.children(module)}
            rows[module.name] = summarize_module(module, ComposePolicy(), flow, children)
    return list(rows.values())


@pytest.fixture(scope="module")
def design_rows() -> list[dict]:
    return [row for path in RTL_FILES for row in summarize_file(path)]


def test_every_design_module_is_summarised_without_hallucination(design_rows):
    assert len(design_rows) >= len(RTL_FILES)
    assert all(row["status"] == "ok" for row in design_rows)
    assert [row["hallucinated"] for row in design_rows] == [[] for _ in design_rows]
    assert all(row["scores"]["fc"] == 1.0 for row in design_rows)
    mean_lca = sum(row["scores"]["lca"] for row in design_rows) / len(design_rows)
    assert mean_lca >= 0.9


def test_a_variable_local_to_a_task_is_no_hallucination(tmp_path: Path) -> None:
    # a testbench's task assigns locals it never reads; its block summary names them, and they exist
    path = tmp_path / "bench.v"
    path.write_text("""module bench;
  reg clk;
  reg [7:0] data;
  task send;
    input [7:0] value;
    reg started, finished;
    begin
      started = 1; data = value; #1 clk = 1; #1 clk = 0; finished = 1;
    end
  endtask
  initial begin send(8'h5a); $finish; end
endmodule
""")
    (row,) = summarize_file(path)
    assert {"started", "finished"} <= module_facts(read_source(path)[0][0]).identifiers
    assert row["hallucinated"] == [] and "`finished`" in " ".join(block["summary"] for block in row["blocks"])


@pytest.mark.parametrize("design", ["alu8", "mult8", "decoder3to8"])
def test_a_testbench_gets_a_module_summary_not_only_block_summaries(design: str) -> None:
    # the search returns a finished document: one whose module summary is still to be written is no result;
    # a module with no ports is said to be a testbench, a verified claim
    (path,) = (ROOT / "designs" / design / "tb").glob("*.v")
    for row in summarize_file(path):
        assert row["summary"].startswith(f"`{row['module']}` is a testbench"), row  # not "purely combinational"
        assert ["testbench", [], "", True] in row["claims"] and ["combinational", [], "", True] not in row["claims"]


def test_search_never_loses_to_the_single_shot_and_wins_on_the_mean(design_rows):
    for row in design_rows:
        assert row["scores"]["total"] >= row["single_shot"]["total"], row["module"]
    searched = sum(row["scores"]["total"] for row in design_rows)
    single = sum(row["single_shot"]["total"] for row in design_rows)
    assert searched > single


def test_claims_are_checked_against_the_facts():
    modules, _ = read_source(ROOT / "designs/seq_detect/rtl/seq_detect.v")
    facts = module_facts(modules[0])
    scope = Scope(facts)
    true = ("Inputs: `clk` (1 bit), `din` (1 bit). It has an active-low asynchronous reset `rst_n`. "
            "It contains a state machine with 5 states in `state`.")
    assert all(check(claim, scope) for claim in text_claims(true))
    false = {
        "Outputs: `din`.": Claim("direction", ("din",), "output"),
        "`state` (4 bits) holds it.": Claim("width", ("state",), "4"),
        "It has an active-high asynchronous reset `rst_n`.": Claim("reset", ("rst_n",), "active-high asynchronous"),
        "It registers on the falling edge of `clk`.": Claim("clock", ("clk",), "negedge"),
        "It contains a state machine with 4 states in `state`.": Claim("state_machine", ("state",), "4"),
        "It drives `shift_reg`.": Claim("identifier", ("shift_reg",)),
        "It multiplies the inputs.": Claim("behaviour", (), "multiplication"),
    }
    for sentence, claim in false.items():
        claims = text_claims(sentence)
        assert claim in claims, sentence
        assert not check(claim, scope), sentence
    # a bare snake_case word is an identifier claim too: leaving out the backticks hides nothing
    assert Claim("identifier", ("next_state",)) in text_claims("It computes next_state from din.")


def _fresh_name(index: int, name: str) -> str:
    """Longer than the old name, so that nothing can depend on a name's spelling or length."""
    return f"q{index}_{len(name) * 'x'}y"


def assert_rename_robust(path: Path, folder: Path) -> None:
    """Alpha-rename every module's internals: the claims map one to one and the total moves <= 0.02."""
    text = path.read_text()
    modules, _ = read_source(path)
    renames = alpha_renames(modules, _fresh_name)
    renamed_text = rename_identifiers(text, renames)
    assert renamed_text != text or not renames
    (folder / path.name).write_text(renamed_text)
    original = {row["module"]: row for row in summarize_file(path)}
    renamed = {row["module"]: row for row in summarize_file(folder / path.name)}
    assert original.keys() == renamed.keys()
    for name, row in original.items():
        mapped = Counter(Claim(kind, tuple(names), value).renamed(renames) for kind, names, value, _ in row["claims"])
        assert mapped == Counter(Claim(kind, tuple(names), value) for kind, names, value, _ in renamed[name]["claims"]), \
            f"{path}: {name}"
        assert abs(row["scores"]["total"] - renamed[name]["scores"]["total"]) <= 0.02, f"{path}: {name}"


@pytest.mark.parametrize("path", RTL_FILES, ids=lambda path: path.parent.parent.name)
def test_alpha_renaming_maps_claims_one_to_one_and_keeps_the_score(path: Path, tmp_path: Path):
    assert_rename_robust(path, tmp_path)


def test_alpha_renaming_on_the_rtllm_references(imported_rtllm: Path, tmp_path: Path):
    files = sorted([*imported_rtllm.glob("*/rtl/*.v"), *imported_rtllm.glob(".unusable/*/rtl/*.v")])  # usable or not
    assert len(files) == 33
    for index, path in enumerate(files):
        folder = tmp_path / str(index)
        folder.mkdir()
        assert_rename_robust(path, folder)
