"""The cover run's HTML report on a coverage.json written by hand (no tools), the policy comparison
plot, and one report from a real `hdlrl cover` run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.cover.report import svg_coverage_comparison, write_cover_report
from hdlrl.eda.toolchain import has_tool

RTL = """module m(input clk, input a, input b, output reg y);
  always @(posedge clk)
    if (a < b) y <= 1'b1;
    else if (a) y <= 1'b0;
    else y <= y;
endmodule
"""
REASON = "rtl/m.v:5: a or b always holds here"
METRICS = ("line", "branch", "toggle", "functional", "mutation_score")


def _point(metric: str, line: int, kind: str, count: int, reason: str | None = None) -> dict:
    point_id = f"{metric}|rtl/m.v|{line}|5|{line}|{kind}|"
    return {"id": point_id, "metric": metric, "file": "rtl/m.v", "line": line, "lines": str(line), "kind": kind,
            "instance": "", "count": count, "unreachable": reason}


def _document() -> dict:
    arms = [(3, "if", 5, None), (4, "elsif", 0, None), (5, "else", 0, REASON)]
    points = [_point("line", 2, "block", 9), _point("toggle", 1, "y", 3)]
    points += [_point(metric, line, kind, count, reason) for metric in ("line", "branch")
               for line, kind, count, reason in arms]
    curve = [{"simulations": n, "line": 0.5 * n / 3, "branch": 0.5, "toggle": 1.0, "functional": 0.6,
              "mutation_score": n / 3} for n in (1, 2, 3)]
    return {
        "design": "m", "policy": "cdg", "seed": 0, "simulator": "verilator", "code_coverage": True,
        "note": "branch = Verilator's if/else arms and case items",
        "totals": {"line": {"hit": 2, "total": 3, "excluded": 1, "fraction": 2 / 3},
                   "branch": {"hit": 1, "total": 2, "excluded": 1, "fraction": 0.5},
                   "toggle": {"hit": 1, "total": 1, "excluded": 0, "fraction": 1.0},
                   "functional": {"hit": 2, "total": 3, "excluded": 0, "fraction": 2 / 3}},
        "mutation_score": 0.5, "points": points,
        "functional_bins": {"flags.zero.0": 1, "ops.op.add": 2, "ops.op.sub": 0},
        "unreachable": [{"id": point["id"], "reason": REASON} for point in points if point["unreachable"]],
        "mutants": [{"index": 0, "operator": "relational_operator", "file": "rtl/m.v", "line": 3,
                     "description": "line 3: (a < b) -> (a <= b)", "equivalence": "failed", "killed_by_program": 0},
                    {"index": 1, "operator": "reset_value", "file": "rtl/m.v", "line": 4,
                     "description": "line 4: 1'b0 -> 1'b1", "equivalence": "failed", "killed_by_program": None}],
        "final_set": [{"program": {"segments": []}, "seed": 1, "origin": "random:8"}],
        "curve": curve,
    }


@pytest.fixture
def page(tmp_path: Path) -> str:
    (tmp_path / "coverage.json").write_text(json.dumps(_document()))
    rows = [{"kind": "program", "step": 0, "sample": 0, "reward": 1.0},
            {"kind": "program", "step": 0, "sample": 1, "reward": -1.0, "reason": "refused: no segments"},
            {"kind": "step", "step": 0, "simulations": 1}]
    (tmp_path / "history.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    rtl = tmp_path / "testbench" / "rtl" / "rtl"
    rtl.mkdir(parents=True)
    (rtl / "m.v").write_text(RTL)
    (rtl / "defs.vh").write_text("`define WIDTH 8\n")  # an include file: listed, no points on it
    return write_cover_report(tmp_path).read_text()


def _source_row(page: str, number: int) -> str:
    return re.search(rf"<tr[^>]*><td>{number}</td>.*?</tr>", page).group(0)


def test_source_lines_are_marked_by_the_points_over_them(page: str) -> None:
    assert _source_row(page, 3) == ('<tr class="hit" title="if point at line 3: count 5"><td>3</td><td>5</td>'
                                    '<td class="code">    if (a &lt; b) y &lt;= 1&#x27;b1;</td></tr>')
    assert _source_row(page, 4).startswith('<tr class="missed" title="elsif point at line 4: count 0"><td>4</td>'
                                           "<td>0</td>")
    assert _source_row(page, 5).startswith(f'<tr class="unreachable" title="else point at line 5: count 0; '
                                           f'unreachable: {REASON}">')
    assert _source_row(page, 1).startswith("<tr><td>1</td><td></td>")  # only a toggle point: not coloured
    assert "<h3>rtl/defs.vh</h3>" in page and "`define WIDTH 8" in page
    assert "a < b" not in page and "<script" not in page


def test_totals_functional_mutants_and_points(page: str) -> None:
    assert "<tr><td>line</td><td>2</td><td>3</td><td>1</td><td>0.6667</td></tr>" in page
    assert "<tr><td>mutation score (live mutants)</td><td>1</td><td>2</td><td>-</td><td>0.5</td></tr>" in page
    assert "if/else arms and case items" in page
    assert "<tr><td>programs proposed</td><td>2</td></tr>" in page
    assert "<tr><td>not simulated (refused or failed)</td><td>1</td></tr>" in page
    assert "<tr><td>simulations</td><td>3</td></tr>" in page
    assert "<tr><td>ops</td><td>1</td><td>2</td><td>0.5</td><td>op.sub</td></tr>" in page
    assert "<tr><td>flags</td><td>1</td><td>1</td><td>1</td><td>-</td></tr>" in page
    assert "<td>program 0</td>" in page and "<td>survived</td>" in page
    assert "<tr><td>line</td><td>rtl/m.v:4</td><td>elsif</td><td>-</td></tr>" in page  # uncovered
    assert f"<tr><td>line</td><td>rtl/m.v:5</td><td>else</td><td>{REASON}</td></tr>" in page  # left out


def test_the_curve_has_a_line_per_metric(page: str) -> None:
    assert page.count("<svg") == 1 and page.count("<polyline") == len(METRICS)
    for metric in METRICS:
        assert f"● {metric.replace('_', ' ')}</text>" in page


def _polylines(svg: str) -> list[tuple[str, list[tuple[float, float]]]]:
    """(stroke width, pixel points) of every polyline."""
    return [(width, [tuple(map(float, pair.split(","))) for pair in points.split()])
            for points, width in re.findall(r'<polyline points="([^"]*)"[^>]*stroke-width="([^"]*)"', svg)]


def test_comparison_has_a_thin_line_per_seed_and_a_thick_mean_per_policy() -> None:
    early = [{"simulations": 1, "line": 0.5}, {"simulations": 2, "line": 1.0}]  # met its target, stopped
    flat = [{"simulations": n, "line": 0.5} for n in (1, 2, 3)]
    svg = svg_coverage_comparison({"cdg": [early, flat], "random": [flat, flat, flat]}, "line")
    lines = _polylines(svg)
    assert [width for width, _ in lines] == ["1"] * 5 + ["3"] * 2
    assert "● cdg (mean of 2)</text>" in svg and "● random (mean of 3)</text>" in svg
    assert svg.count("● ") == 2  # seeds stay out of the legend
    (_, seed_early), (_, seed_flat), *_, (_, mean_cdg), (_, mean_random) = lines
    assert mean_random == seed_flat
    # The early seed holds 1.0 at 3 simulations: the mean is 0.75 at 2 and at 3, midway in pixels.
    half, full = seed_flat[1][1], seed_early[1][1]
    assert [x for x, _ in mean_cdg] == [x for x, _ in seed_flat]
    assert mean_cdg[0][1] == half and mean_cdg[1][1] == mean_cdg[2][1] == pytest.approx((half + full) / 2, abs=0.1)


@pytest.mark.skipif(not (has_tool("verilator") and has_tool("iverilog") and has_tool("yosys")),
                    reason="needs verilator, iverilog and yosys")
def test_a_real_run_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "run"
    assert main(["cover", str(DESIGNS_DIR / "alu8"), "--budget", "16", "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    page = (out / "report.html").read_text()
    assert "<h1>hdlrl cover: alu8</h1>" in page and "<h3>rtl/alu8.v</h3>" in page
    assert '<td class="code">            OP_AND: y = a &amp; b;</td>' in page
    # The default of the full case over op is unreachable, shown so by the tool.
    assert re.search(r'<tr class="unreachable" title="[^"]*default of a full case[^"]*"><td>43</td>', page)
