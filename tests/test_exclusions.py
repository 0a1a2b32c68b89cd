"""Coverage points left out of the figures (issue 25): proven unreachable with a reason and a
method, or waived by coverage.yaml with a reason, listed apart; a simulation that hits a proven
point fails the run. On designs/hard_coverage/exclusions_demo, written to hold each kind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.coverage_yaml import load_waivers
from hdlrl.cover.exclusions import CASE_COMPLETE, SAT_TEMPINDUCT, merge_checked, tagged
from hdlrl.cover.coverage import CoveragePoint
from hdlrl.cover.unreachable import claim_for, unreachable_points
from hdlrl.design import load_design
from hdlrl.eda.toolchain import has_tool
from hdlrl.errors import HdlrlError

DEMO = DESIGNS_DIR / "hard_coverage" / "exclusions_demo"
FILE = "rtl/exclusions_demo.sv"
FLOWS = Path(__file__).resolve().parents[1] / "flows"
needs_tools = pytest.mark.skipif(not (has_tool("verilator") and has_tool("iverilog") and has_tool("yosys")),
                                 reason="needs verilator, iverilog and yosys")


def _line_of(text: str) -> int:
    """The line of the demo's RTL that holds `text`."""
    return next(number for number, line in enumerate((DEMO / FILE).read_text().splitlines(), 1) if text in line)


RARE_LINE = _line_of("if (data == 16'hBEEF)")


def _demo_with(tmp_path: Path, waivers: str) -> Path:
    """A copy of the demo whose coverage.yaml ends with `waivers`."""
    folder = tmp_path / "exclusions_demo"
    shutil.copytree(DEMO, folder)
    (folder / "coverage.yaml").write_text((DEMO / "coverage.yaml").read_text() + waivers)
    return folder


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """summary.json and coverage.json of 8 random programs on the demo, its rare arm waived."""
    tmp_path = tmp_path_factory.mktemp("demo")
    folder = _demo_with(tmp_path, f'waivers:\n  - point: "{FILE}:{RARE_LINE}"\n    reason: data = BEEF, 1 in 65536\n')
    flow = (FLOWS / "cover.yaml").read_text().replace("mutants: 30 ", "mutants: 0  ")
    (tmp_path / "flow.yaml").write_text(flow)
    out = tmp_path / "run"
    assert main(["cover", str(folder), "--policy", "random", "--budget", "8", "--seed", "0", "--flow",
                 str(tmp_path / "flow.yaml"), "--out", str(out), "--json"]) == 0
    return json.loads((out / "summary.json").read_text()), json.loads((out / "coverage.json").read_text())


@needs_tools
def test_the_three_unreachable_kinds_are_excluded_with_their_proofs(demo_run: tuple[dict, dict]) -> None:
    summary, coverage = demo_run
    proven = {(entry["id"].split("|")[0], int(entry["id"].split("|")[2]), entry["method"]): entry["reason"]
              for entry in summary["exclusions"]}
    assert summary["exclusions"] == coverage["unreachable"] and summary["unreachable"] == len(proven)
    # the default of the unique case over op, whose items name all four values: no proof needed
    default = _line_of("default: begin next = acc;")
    assert "full case" in proven["branch", default, CASE_COMPLETE]
    # the branch MODE = 1 rules out, proven by Yosys
    assert "(MODE == 2) never holds" in proven["branch", _line_of("if (MODE == 2)"), SAT_TEMPINDUCT]
    # the stage's hold input, tied to 0 where it is instantiated: its arm and its toggle bit
    hold = [entry for entry in summary["exclusions"] if entry["id"].endswith("|u_stage")]
    assert {entry["id"].split("|")[0] for entry in hold} == {"line", "branch", "toggle"}
    assert all(entry["method"] == SAT_TEMPINDUCT for entry in hold)
    assert "hold is always 0" in next(entry["reason"] for entry in hold if entry["id"].startswith("toggle"))
    # the enum-typed selector's default (every enum value listed) is proven too
    assert "kind always holds one of the case items" in proven["branch", _line_of("default: last_op"),
                                                               SAT_TEMPINDUCT]


@needs_tools
def test_the_rare_arm_is_waived_not_excluded_and_figures_are_reachable_and_raw(demo_run: tuple[dict, dict]) -> None:
    summary, coverage = demo_run
    rare = {f"{metric}|{FILE}|{RARE_LINE}" for metric in ("line", "branch")}
    assert not any(entry["id"].startswith(tuple(rare)) for entry in summary["exclusions"])
    assert {entry["id"].rsplit("|", 4)[0] for entry in summary["waived"]} == rare
    assert all("1 in 65536" in entry["reason"] for entry in summary["waived"]) and summary["waived_points"] == 2
    totals = coverage["totals"]["branch"]
    assert totals["waived"] == 1 and totals["excluded"] == 4  # op default, MODE, kind default, hold
    assert totals["total"] == totals["raw_total"] - 5
    assert summary["reachable"]["branch"] == summary["branch"] == totals["hit"] / totals["total"]
    assert summary["raw"]["branch"] == totals["raw_hit"] / totals["raw_total"] < summary["branch"]


@needs_tools
def test_the_rare_arm_has_no_proof(tmp_path: Path) -> None:
    """Reachable, only rarely: the proof fails, so the point stays counted."""
    rare = f"branch|{FILE}|{RARE_LINE}|13|{RARE_LINE}-{RARE_LINE + 1}|if|"
    assert unreachable_points(load_design(DEMO), [rare], tmp_path, time_s=10, budget_s=20) == {}



@needs_tools
def test_a_default_the_x_aware_induction_cannot_close_is_proven_two_valued(tmp_path: Path) -> None:
    """deep_fsm's state case lists all ten states: its default is unreachable, but X-aware
    induction fails (an unreachable state with an X timer); the 2-valued proof, Verilator's
    semantics, closes. A reachable item of the same case (S_ERR) stays counted."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "deep_fsm")
    text = design.rtl[0].read_text().splitlines()
    default = next(number for number, line in enumerate(text, 1) if line.strip() == "default:")
    error = next(number for number, line in enumerate(text, 1) if line.strip() == "S_ERR:")
    points = [f"branch|rtl/deep_fsm.v|{line}|17|{line}|case|" for line in (default, error)]
    result = unreachable_points(design, points, tmp_path, time_s=20, budget_s=60)
    assert list(result) == [points[0]] and result[points[0]].endswith(f"(method: {SAT_TEMPINDUCT})")

@needs_tools
def test_a_reachable_arm_behind_a_logical_and_has_no_proof(tmp_path: Path) -> None:
    """deep_fsm's `if (cmd == C_CFG && arg[7:4] == 4'hA)` runs in its own testbench. The claim
    was once rebuilt from the line's tokens joined by spaces: `& &`, AND with a reduction-AND,
    which never holds, so the reachable arm was 'proven' unreachable and left out."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "deep_fsm")
    line = next(number for number, text in enumerate(design.rtl[0].read_text().splitlines(), 1)
                if "cmd == C_CFG && arg" in text)
    point = f"branch|rtl/deep_fsm.v|{line}|25|{line}-{line + 3}|if|"
    assert claim_for(CoveragePoint.from_id(point), design.rtl[0].read_text()).expression.count("&&") == 1
    assert unreachable_points(design, [point], tmp_path, time_s=20, budget_s=40) == {}


def test_a_waiver_needs_a_reason(tmp_path: Path) -> None:
    point = f'waivers:\n  - point: "{FILE}:{RARE_LINE}"\n'
    # a missing reason is reported at the waiver's line, a blank one at its own
    for waivers, message, below in ((point, "required field is missing", 0),
                                    (point + '    reason: " "\n', "needs a reason", 1)):
        folder = _demo_with(tmp_path / str(below), waivers)
        with pytest.raises(HdlrlError) as error:
            load_waivers(folder)
        line = (folder / "coverage.yaml").read_text().splitlines().index(f'  - point: "{FILE}:{RARE_LINE}"') + 1 + below
        assert str(error.value).startswith(f"{folder / 'coverage.yaml'}:{line}: waivers[0].reason: ")
        assert message in str(error.value) and "\n" not in str(error.value)
    folder = _demo_with(tmp_path / "typo", 'waivers:\n  - {point: "rtl/other.sv:3", reason: spare}\n')
    with pytest.raises(HdlrlError, match=r"waivers\[0\]\.point: 'rtl/other.sv' is not an RTL file"):
        load_waivers(folder)


def test_a_simulation_hitting_a_proven_point_fails_loudly() -> None:
    proven_id, waived_id = f"branch|{FILE}|40|13|40-41|if|", f"branch|{FILE}|{RARE_LINE}|13|43-44|if|"
    exclusions = {proven_id: tagged(f"{FILE}:40: if arm; proven: (MODE == 2) never holds", SAT_TEMPINDUCT),
                  waived_id: tagged("waived: rare", "waiver")}
    assert merge_checked({proven_id: 0}, {proven_id: 0, waived_id: 3}, exclusions) == {proven_id: 0, waived_id: 3}
    with pytest.raises(HdlrlError, match=rf"simulation hit {proven_id.replace('|', '.')} \(2 times\), which was "
                                         r"excluded as unreachable \(sat-tempinduct\): .*MODE == 2"):
        merge_checked({}, {proven_id: 2}, exclusions)
