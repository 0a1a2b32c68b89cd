"""`hdlrl cover` end to end on project designs: the JSON and run directory, refusal of malformed
programs without stopping, resume after kill -9, and the LM path on a tiny random model."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.cover_flow import load_cover_flow
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.mutants import cover_mutants
from hdlrl.cover.outputs import write_outputs
from hdlrl.design import load_design
from hdlrl.eda.toolchain import has_tool
from hdlrl.errors import HdlrlError
from hdlrl.cover.prompt import CoverState
from hdlrl.ttt.protocol import Sample, UpdateStats

FLOWS = Path(__file__).resolve().parents[1] / "flows"
pytestmark = pytest.mark.skipif(not (has_tool("verilator") and has_tool("iverilog") and has_tool("yosys")),
                                reason="needs verilator, iverilog and yosys")


@pytest.fixture(scope="module")
def small_flow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """flows/cover.yaml with groups of 4, 8 mutants and no early stop: every run spends its budget."""
    text = (FLOWS / "cover.yaml").read_text()
    for old, new in (("group_size: 8 ", "group_size: 4 "), ("mutants: 30 ", "mutants: 8 "),
                     ("stop_at_targets: true", "stop_at_targets: false")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path_factory.mktemp("flows") / "cover.yaml"
    path.write_text(text)
    return path


def _arguments(design: str, out: Path, flow: Path, *extra: str) -> list[str]:
    return ["cover", str(DESIGNS_DIR / design), "--out", str(out), "--flow", str(flow), "--seed", "2", *extra]


def test_cover_reaches_the_targets_and_leaves_a_replayable_testbench(small_flow: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = Path("traffic")  # relative, as the default run directory is: the replay check runs from elsewhere
    assert main([*_arguments("traffic_light", out, small_flow, "--budget", "24"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in ("line", "toggle", "branch", "functional", "mutation_score", "simulations", "testbench"):
        assert key in summary, key
    assert summary["simulations"] == 24 and summary["targets_met"]
    assert summary["line"] >= 0.95 and summary["branch"] >= 0.90 and summary["functional"] >= 0.95
    coverage = json.loads((out / "coverage.json").read_text())
    assert [entry["id"].split("|")[2] for entry in coverage["unreachable"]] == ["45", "45"]  # the FSM's default
    assert coverage["totals"]["branch"]["excluded"] == 1
    assert len(coverage["curve"]) == 24 and coverage["curve"][-1]["branch"] == summary["branch"]
    assert all(point["count"] > 0 for point in coverage["points"]
               if point["metric"] in ("line", "branch") and not point["unreachable"])
    replay = subprocess.run([str(out / "replay" / "run.sh")], capture_output=True, text=True, cwd=tmp_path)
    assert replay.returncode == 0 and "REPLAY PASSED" in replay.stdout
    assert Path(summary["lcov"]).resolve() == (out / "coverage.info").resolve()  # lcov, for genhtml and CI services
    assert "SF:" in (out / "coverage.info").read_text()


class ScriptedPolicy:
    """A policy that writes one malformed program per group, the rest valid: a stand-in for a
    careless language model, to show the run refuses the one and goes on with the others."""

    name = "scripted"
    trainable = False

    def __init__(self) -> None:
        self.states: list[CoverState] = []

    def sample(self, state: CoverState, k: int, rng_seed: int) -> list[Sample]:
        self.states.append(state)
        valid = '{"segments": [{"generator": "random", "cycles": 64}]}'
        return [Sample({}, '{"segments": [{"generator": "warp", "cycles": 9}]}')] + [
            Sample({}, valid, metadata={"seed": rng_seed + index}) for index in range(k - 1)]

    def update(self, state_samples, advantages, kl_coef) -> UpdateStats:
        return UpdateStats()

    def save(self, folder: Path) -> None:
        """Nothing to save."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""


def test_malformed_programs_are_refused_with_a_reason_and_the_run_goes_on(small_flow: Path, tmp_path: Path) -> None:
    policy = ScriptedPolicy()
    flow = load_cover_flow(small_flow)
    run = CoverRun(load_design(DESIGNS_DIR / "alu8"), policy, flow.__class__(**{**flow.__dict__, "budget": 8}),
                   tmp_path / "run", progress=False)
    run.run()
    assert run.proposed == 8 and run.state.refused == 2 and run.state.simulations == 6
    assert "generator 'warp' is not one of" in policy.states[1].feedback[-1]  # shown to the policy next step
    rows = [json.loads(line) for line in (tmp_path / "run" / "history.jsonl").read_text().splitlines()]
    # JSON that is not a valid program earns half the penalty of text with no JSON object (REFUSED_REWARD)
    refused = [row for row in rows if row["kind"] == "program" and row["reward"] == -0.5]
    assert len(refused) == 2 and all(row["reason"].startswith("refused: segment 0") for row in refused)


def _cover(out: Path, flow: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "hdlrl.cli", *_arguments("updown_counter8", out, flow, "--budget", "40", *extra)]


def test_killed_run_resumes_to_the_same_coverage(small_flow: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    subprocess.run(_cover(clean, small_flow, "--json"), check=True, capture_output=True)
    killed = tmp_path / "killed"
    process = subprocess.Popen(_cover(killed, small_flow), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (killed / "checkpoint.json").is_file() and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert not (killed / "summary.json").exists(), "the run ended before the kill"
    subprocess.run(_cover(killed, small_flow, "--resume"), check=True, capture_output=True)
    first, second = (json.loads((folder / "coverage.json").read_text()) for folder in (clean, killed))
    assert first["totals"] == second["totals"] and first["points"] == second["points"]
    assert first["final_set"] == second["final_set"] and first["curve"] == second["curve"]


def test_resume_refuses_a_run_with_other_settings(small_flow: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(_arguments("decoder3to8", out, small_flow, "--budget", "4", "--json")) == 0
    with pytest.raises(HdlrlError, match="another policy, seed"):
        CoverRun(load_design(DESIGNS_DIR / "decoder3to8"), ScriptedPolicy(), load_cover_flow(small_flow), out,
                 seed=9, progress=False).run(resume=True)


def test_icarus_gives_functional_coverage_and_kills_only(small_flow: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    flow = tmp_path / "cover.yaml"
    flow.write_text(small_flow.read_text().replace("simulator: verilator", "simulator: icarus"))
    out = tmp_path / "run"
    assert main([*_arguments("alu8", out, flow, "--budget", "8", "--objective", "mutants"), "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert "which has no code coverage" in captured.err
    assert summary["simulator"] == "icarus" and summary["line"] is None and summary["toggle"] is None
    assert summary["lcov"] is None
    assert not summary["targets_met"]  # the line and branch targets were not measured, so they do not hold
    assert summary["functional"] > 0.5 and summary["mutation_score"] > 0.5
    assert summary["replay_check"]["passes_on_reference"]
    assert summary["replay_check"]["kill_rate"] == summary["mutation_score"]


def test_compare_reports_each_policy_and_the_combinations(small_flow: Path, tmp_path: Path) -> None:
    from hdlrl.cover.compare import compare_design, simulations_to_reach

    assert simulations_to_reach([0.2, 0.5, 0.5, 0.9], 0.5) == 2 and simulations_to_reach([0.2], 0.5) is None
    flow = load_cover_flow(small_flow).__class__(**{**load_cover_flow(small_flow).__dict__, "budget": 8})
    result = compare_design(load_design(DESIGNS_DIR / "traffic_light"), ["random", "cdg"], [0, 1], flow, tmp_path)
    for policy in ("random", "cdg"):
        row = result["policies"][policy]
        assert len(row["curves"]) == 2 and all(len(curve) == 8 for curve in row["curves"])
        assert all(curve == sorted(curve) for curve in row["curves"])  # coverage never falls
        assert [set(fractions) for fractions in row["final_metrics"]] == [{"line", "branch", "toggle", "functional"}] * 2
        assert all(0 < fractions["functional"] <= 1 for fractions in row["final_metrics"])
        assert all(reached is None or 1 <= reached <= 8 for reached in row["simulations_to_95"])
    assert "within_half_of_baseline" in result["policies"]["cdg"]
    experts = result["experts"]
    assert experts["best_single"]["coverage"] == max(max(row["finals"]) for row in result["policies"].values())
    others = [items for name, items in experts["strengths"].items() if name != experts["best_single"]["expert"]]
    if any(others):  # another expert reached what the best did not: merging them must gain
        assert experts["union"]["beats_best_single"]
    assert set(experts["strengths"]) == {"random-seed0", "random-seed1", "cdg-seed0", "cdg-seed1"}


class RefusedPolicy(ScriptedPolicy):
    """Only text with no program in it: a language model that has not learned the format yet."""

    def sample(self, state: CoverState, k: int, rng_seed: int) -> list[Sample]:
        return [Sample({}, "Here is a stimulus that reaches every branch.") for _ in range(k)]


def test_a_run_with_no_valid_program_says_so_in_one_line(small_flow: Path, tmp_path: Path) -> None:
    flow = load_cover_flow(small_flow)
    run = CoverRun(load_design(DESIGNS_DIR / "decoder3to8"), RefusedPolicy(),
                   flow.__class__(**{**flow.__dict__, "budget": 2}), tmp_path / "run", progress=False)
    run.run()
    with pytest.raises(HdlrlError, match=r"no testbench to write: none of the 2 programs proposed reached any "
                                         r"coverage \(2 refused; the last: refused: no JSON object in the text\)"):
        write_outputs(run)
    rows = [json.loads(line) for line in (tmp_path / "run" / "history.jsonl").read_text().splitlines()]
    assert [row["reward"] for row in rows if row["kind"] == "program"] == [-1.0, -1.0]  # REFUSED_REWARD: no JSON


def test_a_design_that_cannot_be_mutated_says_so_on_every_run(tmp_path: Path) -> None:
    """RTL that neither pyverilog nor pyslang can read: no mutants, and a warning with both engines'
    reasons, also when the (empty) mutant set was saved by an earlier run."""
    root = tmp_path / "broken"
    shutil.copytree(DESIGNS_DIR / "decoder3to8", root)
    (root / "rtl" / "decoder3to8.v").write_text("module decoder3to8(input a);\n  assign = a;\nendmodule\n")
    design = load_design(root)
    reason = (r"no mutants of decoder3to8, so no mutation score: .*no RTL file can be mutated: "
              r"rtl/decoder3to8\.v: pyverilog .*; pyslang: ")
    for _ in range(2):
        with pytest.warns(UserWarning, match=reason):
            assert cover_mutants(design, None, 3, 0, tmp_path / "mutants", 10) == []