"""`hdlrl optimize` end to end on a project design: outputs, JSON, learning, and resume after kill -9."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from conftest import DESIGNS_DIR, write_small_design
from hdlrl.cli import main
from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.executors import make_executor
from hdlrl.optimize.loop import OptimizeRun
from hdlrl.optimize.optimize_flow import load_optimize_flow
from hdlrl.optimize.reward import accepted_reward, rejected_reward
from hdlrl.optimize.rewrite_policy import RewritePolicy
from hdlrl.pdk import get_pdk
from hdlrl.ttt.loop import Group

FLOWS = Path(__file__).resolve().parents[1] / "flows"
DESIGN = DESIGNS_DIR / "alu8"  # four prefix-adder sites, each proven in seconds


@pytest.fixture(scope="module")
def small_flow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """flows/optimize.yaml with one group of two candidates a step: a budget of 4 is 2 steps."""
    folder = tmp_path_factory.mktemp("flows")
    for name in ("gate.yaml", "eval.yaml"):
        (folder / name).write_text((FLOWS / name).read_text())
    text = (FLOWS / "optimize.yaml").read_text().replace("group_size: 4 ", "group_size: 2 ")
    (folder / "optimize.yaml").write_text(text)
    return folder / "optimize.yaml"


def _arguments(out: Path, flow: Path, *extra: str) -> list[str]:
    return ["optimize", str(DESIGN), "--out", str(out), "--flow", str(flow), "--budget", "4", "--seed", "3", *extra]


def _optimize(out: Path, flow: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "hdlrl.cli", *_arguments(out, flow, *extra)]


def test_every_rejected_reward_is_below_every_accepted_one() -> None:
    worst_accepted = accepted_reward(1e9, ratio_floor=1000.0)  # floored at -ln 1000
    best_rejected = rejected_reward(6.999, ratio_floor=1000.0)
    assert best_rejected < worst_accepted
    assert rejected_reward(0.0, 1000.0) < rejected_reward(5.5, 1000.0) < best_rejected
    assert accepted_reward(0.5, 1000.0) == pytest.approx(0.6931471805599453)


def test_flow_errors_name_the_line(small_flow: Path, tmp_path: Path) -> None:
    flow = small_flow.parent / "bad.yaml"
    flow.write_text(small_flow.read_text().replace("advantage: entropic", "advantage: softmax"))
    with pytest.raises(HdlrlError) as error:
        load_optimize_flow(flow)
    assert error.value.path == flow and error.value.line is not None and "softmax" in str(error.value)


def test_optimize_writes_its_run_directory_and_json(small_flow: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert main([*_arguments(out, small_flow), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in ("reference_ppa", "best_ppa", "ppa_product_ratio", "verified", "gate_level"):
        assert key in summary
    assert set(summary["best_ppa"]) == {"area_um2", "delay_ns", "power_mw"}
    assert summary["verified"]
    assert summary["gate_level"] == "proven" and summary["best_levels"] == "proven only"
    assert json.loads((out / "summary.json").read_text()) == summary
    for name in ("best.v", "history.jsonl", "pool.json", "report.html"):
        assert (out / name).is_file(), name
    best = (out / "best.v").read_text()  # the verified view: no comment, macro or `line directive left
    assert "module alu8" in best and "//" not in best and "`" not in best
    rows = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    steps = [row for row in rows if row["kind"] == "step"]
    assert len(steps) == 2 and len(rows) == 2 + 4
    assert all(row["accepted"] and row["level"] == "proven" for row in rows if row["kind"] == "candidate")
    # the reported best is the best proven candidate the history holds, or the original (ratio 1)
    proven = [row["ppa_ratio"] for row in rows if row["kind"] == "candidate" and row["level"] == "proven"]
    assert summary["ppa_product_ratio"] == pytest.approx(min([1.0, *proven]))
    for row in steps:
        for signal_name in ("reference_kl", "effective_sample_size", "constant_fraction", "saturated_fraction",
                            "delta", "kl_coef"):
            assert signal_name in row
    # what the run spent, counted from its history: every candidate here is RTL the gate verified
    candidates = [row for row in rows if row["kind"] == "candidate"]
    assert all(row["reason"].strip() for row in candidates), "every history row says why (the verdict's reason)"
    recipe_only = sum(row["action"].startswith("synthesis:") for row in candidates)
    assert summary["calls"] == {"gate_calls": 4, "verifications": 4 - recipe_only,
                                "syntheses": sum(row["accepted"] for row in candidates)}
    # summary.json names the command that measures best.v again, and it gives the reported PPA
    command = shlex.split(summary["reproduce"])
    assert command[:2] == ["hdlrl", "eval"] and summary["recipe"] in command
    assert main([*command[1:], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ppa"] == summary["best_ppa"]


def test_killed_run_resumes_to_the_same_pool(small_flow: Path, tmp_path: Path) -> None:
    """kill -9 once the first step's checkpoint is written; --resume must end where a clean run ends."""
    clean = tmp_path / "clean"
    subprocess.run(_optimize(clean, small_flow), check=True, capture_output=True)
    killed = tmp_path / "killed"  # uncached, so that each step takes seconds and the kill lands mid-run
    process = subprocess.Popen(_optimize(killed, small_flow, "--no-cache"), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not (killed / "checkpoint.json").is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert json.loads((killed / "checkpoint.json").read_text())["step"] == 0, "the run ended before the kill"
    assert not (killed / "summary.json").exists()
    subprocess.run(_optimize(killed, small_flow, "--no-cache", "--resume"), check=True, capture_output=True)
    pool = json.loads((clean / "pool.json").read_text())
    resumed = json.loads((killed / "pool.json").read_text())
    assert resumed == pool


def test_optimize_suite_writes_the_geometric_mean(small_flow: Path, tmp_path: Path) -> None:
    """The suite's geometric mean is its designs' (here one's); a bad design is listed, not fatal."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "design.yaml").write_text("name: broken\n")
    report = tmp_path / "suite.md"
    status = main(["optimize-suite", str(DESIGNS_DIR / "tick_div10"), str(broken), "--flow", str(small_flow),
                   "--budget", "2", "--out", str(tmp_path / "suite"), "--report", str(report)])
    assert status == 1  # the broken design
    [suite] = json.loads((tmp_path / "suite" / "suite.json").read_text())["runs"]
    [summary] = suite["designs"]
    assert summary["verified"] and summary["gate_level"] == "proven" and summary["ppa_product_ratio"] <= 1.0
    assert suite["geomean_ppa_product_ratio"] == pytest.approx(summary["ppa_product_ratio"])
    assert suite["failures"] and suite["failures"][0].startswith("broken: ")
    assert "| geomean |" in report.read_text()


def test_designs_of_a_suite_draw_their_own_random_numbers(small_flow: Path, tmp_path: Path) -> None:
    """Two copies of one design under other names, one seed: the same menus, but not the same draws
    (a suite whose designs shared one random stream missed a rare rewrite on all of them at once)."""
    copies = []
    for name in ("tick_a", "tick_b"):
        copy = tmp_path / name
        shutil.copytree(DESIGNS_DIR / "tick_div10", copy)
        design_yaml = copy / "design.yaml"
        design_yaml.write_text(design_yaml.read_text().replace("name: tick_div10", f"name: {name}"))
        copies.append(copy)
    drawn = {}
    for run in range(2):  # the second run repeats the first: a design's draws depend on its name and the seed only
        out = tmp_path / f"suite{run}"
        assert main(["optimize-suite", *map(str, copies), "--flow", str(small_flow), "--budget", "4",
                     "--seed", "5", "--out", str(out)]) == 0
        for copy in copies:
            history = (out / f"{copy.name}-seed5" / "history.jsonl").read_text()
            rows = [json.loads(line) for line in history.splitlines()]
            drawn.setdefault(copy.name, []).append([(row["action"], row["recipe"]) for row in rows
                                                    if row["kind"] == "candidate"])
    assert drawn["tick_a"][0] == drawn["tick_a"][1] and drawn["tick_b"][0] == drawn["tick_b"][1]
    assert drawn["tick_a"][0] != drawn["tick_b"][0]


def test_optimize_suite_compares_arms_at_equal_calls(small_flow: Path, tmp_path: Path) -> None:
    """Two arms, two seeds: one folder per arm and seed, the same gate calls each, an HTML report
    with the table and a best-so-far curve per arm."""
    report = tmp_path / "suite.html"
    assert main(["optimize-suite", str(DESIGNS_DIR / "tick_div10"), "--flow", str(small_flow), "--budget", "1",
                 "--arms", "ttt", "random", "--seeds", "0", "1", "--out", str(tmp_path / "suite"),
                 "--report", str(report)]) == 0
    runs = json.loads((tmp_path / "suite" / "suite.json").read_text())["runs"]
    assert [(run["arm"], run["seed"]) for run in runs] == [("ttt", 0), ("ttt", 1), ("random", 0), ("random", 1)]
    assert {run["designs"][0]["calls"]["gate_calls"] for run in runs} == {1}
    assert {run["designs"][0]["policy"] for run in runs} == {"rewrite", "random"}
    for run in runs:
        assert (tmp_path / "suite" / f"{run['arm']}-seed{run['seed']}" / f"tick_div10-seed{run['seed']}"
                / "summary.json").is_file()
    page = report.read_text()
    assert page.count("<svg") == 1 and "● ttt" in page and "● random" in page and "geomean" in page


def test_resume_refuses_a_run_with_other_settings(small_flow: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert main(_arguments(out, small_flow, "--budget", "2")) == 0
    capsys.readouterr()
    assert main([*_arguments(out, small_flow, "--budget", "2"), "--seed", "4", "--resume"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (f"hdlrl: error: {out / 'checkpoint.json'}: --resume: this run directory holds a run with "
                     "another seed; give another --out or the same options")


SLOW_TOGGLE = """module slow_toggle (input wire clk, input wire rst, output reg toggle);
    reg [6:0] count;  // counts 0..49: seven bits where six would do
    always @(posedge clk or posedge rst)
        if (rst) begin
            count <= 7'd0;
            toggle <= 1'b0;
        end else if (count == 7'd49) begin
            count <= 7'd0;
            toggle <= ~toggle;
        end else
            count <= count + 7'd1;
endmodule
"""
SLOW_TOGGLE_BENCH = """`timescale 1ns/1ps
module tb_slow_toggle;
    reg clk = 1'b0, rst = 1'b1;
    wire toggle;
    integer cycle, errors = 0;
    slow_toggle dut (.clk(clk), .rst(rst), .toggle(toggle));
    always #5 clk = ~clk;
    initial begin
        #12 rst = 1'b0;
        for (cycle = 1; cycle <= 400; cycle = cycle + 1) begin
            @(posedge clk); #1;
            if (toggle !== ((cycle / 50) % 2 == 1)) errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED"); else $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
"""


def test_a_design_the_gate_cannot_prove_is_not_searched_from(small_flow: Path, tmp_path: Path) -> None:
    """Narrowing a counter that counts 0..49 in seven bits is equivalent only from reset: induction
    over 20 cycles cannot close, since an unreachable count of 50..127 takes longer than that to
    wrap. The gate accepts it as bounded; the run cannot report it, nor anything built on it, so
    the pool must never expand it, unless --accept-unproven lets the run report it."""
    design = load_design(write_small_design(tmp_path / "slow_toggle", SLOW_TOGGLE, SLOW_TOGGLE_BENCH,
                                            "clocks: [{name: clk, period_ns: 10.0}]\n"
                                            "reset: {name: rst, polarity: high, kind: async}\n"))
    policy = RewritePolicy()
    for accept_unproven in (False, True):
        run = OptimizeRun(design, policy, get_pdk("generic"), load_optimize_flow(small_flow),
                          tmp_path / f"run-{accept_unproven}", make_executor("local", 1, None), None,
                          progress=False, accept_unproven=accept_unproven)
        [initial] = run.start()
        shown = run.view(initial, [])
        [narrowed] = [entry for entry in policy.menu(shown) if entry.action == "counter_width"]
        [sample] = policy.draw(shown, [narrowed], torch.zeros(1), 1, rng_seed=0)
        [[judged]] = run.judge(0, [Group(initial, shown, [sample])])
        assert judged.row["accepted"] and judged.row["level"].startswith("bounded"), judged.row["reason"]
        assert judged.child.exhausted is not accept_unproven
