"""The run report's helpers against values worked out by hand, and one report written end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hdlrl.optimize.report import (
    cyclomatic_complexity,
    normalised_levenshtein,
    pareto_front,
    svg_line_plot,
    svg_scatter,
    token_distance,
    write_report,
)

ORIGINAL = "module m(input a, input b, output y);\n  assign y = (a && b) ? a : b;\nendmodule\n"
BEST = "module m(input a, input b, output y);\n  assign y = a & b;\nendmodule\n"


def test_levenshtein_by_hand() -> None:
    # kitten -> sitten (k/s) -> sittin (e/i) -> sitting (+g): 3 edits over the longer length 7.
    assert normalised_levenshtein("kitten", "sitting") == pytest.approx(3 / 7)
    # Shared prefix "fl" and suffix "w" are cut; "a" -> "o" is one substitution, over 4.
    assert normalised_levenshtein("flaw", "flow") == pytest.approx(1 / 4)
    assert normalised_levenshtein("", "") == 0.0
    assert normalised_levenshtein("abc", "") == 1.0
    assert normalised_levenshtein(["assign", "y"], ["assign", "z"]) == pytest.approx(1 / 2)


def test_token_distance_ignores_comments_and_layout() -> None:
    assert token_distance("assign y = a;", "assign   y=a; // same") == 0.0
    # Both share `module ... assign y =` (16 tokens) and `; endmodule` (2); the middle
    # `( a & & b ) ? a : b` (10 tokens) becomes `a & b` (3), a subsequence: 7 deletions over 28.
    assert token_distance(ORIGINAL, BEST) == pytest.approx(7 / 28)


COUNTED = """
module m(input clk, input [1:0] s, input a, input b, output reg [1:0] y, output z);
  // if (a && b) ? while: comments do not count
  assign z = (a && b) ? a : b;                // ?: +1, && before the ? +1
  always @(posedge clk) begin
    if (a || b)                               // if +1, || in its condition +1
      y <= 2'b00;
    else
      case (s)
        2'b00: y <= s & {2{a}};               // item +1 (a single & is bitwise)
        2'b01, 2'b10: y <= b ? s[1:0] : 2'b11; // item +1, ?: +1 (the range's : is not the ternary's)
        default: $display("if (a || b) ? 1 : 0"); // default and a string: 0
      endcase
  end
endmodule
"""


def test_cyclomatic_complexity_by_hand() -> None:
    # 1 + (2 for the assign) + (2 for the if) + (2 items) + (1 ternary) = 8.
    assert cyclomatic_complexity(COUNTED) == 8
    # A loop and the && in its condition: 1 + 1 + 1.
    assert cyclomatic_complexity("always @* for (i = 0; i < 4 && go; i = i + 1) x = i;") == 3
    assert cyclomatic_complexity("assign y = a & &b;") == 1  # a reduction, not &&


def test_pareto_front_on_five_points() -> None:
    # (3, 4) loses to (2, 3); (2, 6) loses to (2, 3) and (1, 5).
    points = [(3.0, 4.0), (1.0, 5.0), (2.0, 6.0), (4.0, 1.0), (2.0, 3.0)]
    assert pareto_front(points) == [(1.0, 5.0), (2.0, 3.0), (4.0, 1.0)]


def test_svg_helpers_draw_every_point() -> None:
    plot = svg_line_plot([(0, 1.0), (1, 0.8)], [(0, 1.0), (1, 0.8), (1, 0.9)], "step", "ratio", "t")
    assert plot.startswith("<svg") and plot.count("<circle") == 5 and "<polyline" in plot
    scatter = svg_scatter([(1.0, 2.0)], [(1.0, 2.0)], {"best": (1.0, 2.0)}, "area", "delay", "t")
    assert scatter.count("<circle") == 3 and ">● best</text>" in scatter
    assert "<polyline" not in svg_line_plot([], [], "step", "ratio", "empty")


def _candidate(step: int, sample: int, accepted: bool, stage: str, ppa: dict | None, ratio: float | None) -> dict:
    return {"kind": "candidate", "step": step, "group": 0, "sample": sample, "state_id": f"s{step}{sample}",
            "parent_id": "root", "action": "rewrite", "accepted": accepted, "stage": stage, "level": "formal",
            "reward": 0.1, "ppa": ppa, "ppa_ratio": ratio, "reason": "", "wall_s": 0.5}


def _step(step: int, best_ratio: float) -> dict:
    return {"kind": "step", "step": step, "best_ratio": best_ratio, "delta": 0.5, "kl_coef": 0.01,
            "delta_action": "hold", "kl_coef_action": "raise", "reference_kl": 0.02, "effective_sample_size": 3.5,
            "constant_fraction": 0.25, "saturated_fraction": 0.0, "loss": 0.1, "accepted": 1, "candidates": 2,
            "wall_s": 4.0}


def test_report_end_to_end(tmp_path: Path) -> None:
    reference = {"area_um2": 100.0, "delay_ns": 2.0, "power_mw": 1.0}
    best = {"area_um2": 80.0, "delay_ns": 1.5, "power_mw": 1.0}
    rows = [_candidate(0, 0, True, "ppa", {"area_um2": 90.0, "delay_ns": 2.5, "power_mw": 1.0}, 1.125),
            _candidate(0, 1, False, "equivalence", None, None), _step(0, 1.0),
            _candidate(1, 0, True, "ppa", best, 0.6), _candidate(1, 1, False, "equivalence", None, None), _step(1, 0.6)]
    (tmp_path / "history.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (tmp_path / "summary.json").write_text(json.dumps({
        "design": "m", "policy": "mock", "pdk": "generic", "seed": 7, "budget": 4, "reference_ppa": reference,
        "best_ppa": best, "ppa_product_ratio": 0.6, "verified": True, "gate_level": "formal",
        "best_state_id": "s10", "steps": 2}))

    page = write_report(tmp_path, {"m.v": ORIGINAL}, {"m.v": BEST}).read_text()
    assert page.count("<svg") == 2 and "Pareto front" in page and "best so far" in page
    assert '<span class="removed">-  assign y = (a &amp;&amp; b) ? a : b;</span>' in page
    assert '<span class="added">+  assign y = a &amp; b;</span>' in page
    assert "<td>0.250</td>" in page  # 7 / 28, worked out above
    assert "<td>-2</td>" in page  # 3 (the ?: and the && before it) down to 1
    assert "<tr><td>equivalence</td><td>2</td><td>0</td></tr>" in page
    assert "<td>0.6</td>" in page and "<script" not in page


def test_report_of_a_run_without_history(tmp_path: Path) -> None:
    # Killed before its first step: no history, no best PPA; the page still says what it knows.
    (tmp_path / "summary.json").write_text(json.dumps({"design": "m", "reference_ppa": None, "best_ppa": None}))
    page = write_report(tmp_path, {"m.v": ORIGINAL}, {"m.v": ORIGINAL}).read_text()
    assert page.count("<svg") == 2 and "The best design is the original." in page and "<td>+0</td>" in page
