"""The HTML report of one `hdlrl optimize` run: what it found, how it got there, how much it edited.

The page is self-contained (inline SVG and CSS, no scripts), so a run directory can be archived
or mailed as it is. Edit fidelity follows the over-editing study: a rewrite should improve PPA
while staying close to the original, so the report sets the edit distance and the cyclomatic
complexity added beside the PPA ratio.
"""

from __future__ import annotations

import difflib
import html
import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hdlrl.hdl.lexer import Token, tokenize
from hdlrl.html_page import REPORT, STYLE as BASE_STYLE, Point, Series, html_page, html_table, svg_chart
from hdlrl.checkpoint import HISTORY, SUMMARY

PPA_FIELDS = (("area_um2", "area (um²)"), ("delay_ns", "delay (ns)"), ("power_mw", "power (mW)"))
CONTROLLER_FIELDS = ("delta", "delta_action", "kl_coef", "kl_coef_action", "reference_kl",
                     "effective_sample_size", "constant_fraction", "saturated_fraction", "accepted", "candidates")
MARK_COLOURS = ("#2a9d4b", "#c0392b", "#7b3fb5")
DECISION_KEYWORDS = frozenset({"if", "for", "while"})
CASE_KEYWORDS = frozenset({"case", "casez", "casex"})
STYLE = BASE_STYLE + """pre.diff{background:#fafafa;padding:1em;overflow:auto}
.added{color:#116329;background:#e6ffec}.removed{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}
.file{font-weight:bold}"""


@dataclass
class RunHistory:
    """The history log split by kind: one row per candidate, one per step."""

    candidates: list[dict]
    steps: list[dict]

    def accepted(self) -> list[dict]:
        return [row for row in self.candidates if row["accepted"]]

    def calls(self) -> dict[str, int]:
        """What the run spent, whatever the cache held: gate calls, verifications of RTL not verified
        before (a recipe of a verified RTL shares its proofs) and syntheses (`OptimizeRun._calls`)."""
        return {total: sum(bool(row.get(column)) for row in self.candidates) for total, column in
                (("gate_calls", "gate_call"), ("verifications", "verification"), ("syntheses", "synthesis"))}


def load_history(path: Path) -> RunHistory:
    """Read history.jsonl; a run killed before its first step has none, and gets empty tables."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    return RunHistory([row for row in rows if row["kind"] == "candidate"],
                      [row for row in rows if row["kind"] == "step"])


def normalised_levenshtein(a: Sequence, b: Sequence) -> float:
    """Edit distance over the longer length (0 identical, 1 unrelated); strings or token lists.

    The shared prefix and suffix are cut first (which keeps the distance exact), because a
    rewrite usually touches a few lines of a long file.
    """
    longest = max(len(a), len(b))
    if longest == 0:
        return 0.0
    start = len(os.path.commonprefix([a, b]))  # works on any sequences, not only paths
    a, b = a[start:], b[start:]
    end = len(os.path.commonprefix([a[::-1], b[::-1]]))
    a, b = a[:len(a) - end], b[:len(b) - end]
    previous = list(range(len(b) + 1))
    for row, item in enumerate(a, 1):
        current = [row]
        for column, other in enumerate(b, 1):
            current.append(min(previous[column] + 1, current[column - 1] + 1, previous[column - 1] + (item != other)))
        previous = current
    return previous[-1] / longest


def token_distance(original: str, best: str) -> float:
    """Normalised Levenshtein over lexer tokens: layout and comments are not edits of the design."""
    return normalised_levenshtein(*([token.text for token in tokenize(text)] for text in (original, best)))


def _is_logical(previous: Token | None, token: Token) -> bool:
    """`&&` or `||`: the lexer yields two adjacent one-character tokens (`& &b` is a reduction)."""
    return (previous is not None and token.text in ("&", "|") and previous.text == token.text
            and previous.kind == token.kind == "other" and previous.start + 1 == token.start)


def cyclomatic_complexity(verilog_text: str) -> int:
    """McCabe's number, 1 + decision points, counted on lexer tokens so comments and strings never count.

    Decisions: `if`, `for`, `while`, each `?:`, each non-default case item (one per `:`, however
    many labels it lists), and each `&&`/`||` in a condition: inside the parentheses after
    if/for/while, or in the statement before a `?`.
    """
    tokens = tokenize(verilog_text)
    decisions, depth, cases, logic_before_ternary = 0, 0, 0, 0
    condition_depth: int | None = None  # bracket depth of the open if/for/while condition
    awaiting_condition = False
    ternary_depths: list[int] = []  # bracket depth of each `?` whose `:` is still to come
    for previous, token in zip([None, *tokens], tokens):
        text = token.text
        if token.kind == "identifier":
            if text in DECISION_KEYWORDS:
                decisions, awaiting_condition = decisions + 1, True
            cases += (text in CASE_KEYWORDS) - (text == "endcase")
        elif token.kind != "other":
            continue
        elif text in ("(", "[", "{"):
            depth += 1
            if awaiting_condition and text == "(":
                condition_depth, awaiting_condition = depth, False
        elif text in (")", "]", "}"):
            condition_depth = None if depth == condition_depth else condition_depth
            depth -= 1
        elif text in (";", ","):
            logic_before_ternary = 0
        elif text == "?":
            decisions += 1 + logic_before_ternary
            logic_before_ternary = 0
            ternary_depths.append(depth)
        elif text == ":" and ternary_depths and ternary_depths[-1] == depth:
            ternary_depths.pop()
        elif text == ":" and depth == 0:
            logic_before_ternary = 0
            decisions += cases > 0 and previous is not None and previous.text not in ("default", "begin", "end")
        elif _is_logical(previous, token):
            if condition_depth is None:
                logic_before_ternary += 1
            else:
                decisions += 1
    return 1 + decisions


def pareto_front(points: Sequence[Point]) -> list[Point]:
    """The points no other point beats on both axes (both minimised), by increasing x; ties collapse."""
    front: list[Point] = []
    for point in sorted(points):
        if not front or point[1] < front[-1][1]:
            front.append(point)
    return front


def svg_line_plot(line: Sequence[Point], dots: Sequence[Point], x_label: str, y_label: str, title: str) -> str:
    """A line (the best so far) over the dots it is drawn from (every candidate)."""
    return svg_chart([Series("candidates", dots, "#9aa7b8"), Series("best so far", line, "#1f5fbf", "line")],
                     x_label, y_label, title)


def svg_scatter(points: Sequence[Point], front: Sequence[Point], marked: dict[str, Point],
                x_label: str, y_label: str, title: str) -> str:
    """Every point, the front through them highlighted, and a few named points ringed."""
    series = [Series("candidates", points, "#9aa7b8"), Series("Pareto front", front, "#d9822b", "line")]
    series += [Series(name, [point], colour, "marker") for (name, point), colour in zip(marked.items(), MARK_COLOURS)]
    return svg_chart(series, x_label, y_label, title)


def unified_diff_html(original: dict[str, str], best: dict[str, str]) -> str:
    """Best against original, file by file, escaped, with added and removed lines coloured."""
    lines: list[str] = []
    for name in sorted(original.keys() | best.keys()):
        lines += difflib.unified_diff(original.get(name, "").splitlines(), best.get(name, "").splitlines(),
                                      f"original/{name}", f"best/{name}", lineterm="")
    if not lines:
        return "<p>The best design is the original.</p>"
    kinds = {"+": "added", "-": "removed", "@": "hunk"}
    spans = [f'<span class="{"file" if line[:3] in ("+++", "---") else kinds.get(line[:1], "context")}">'
             f"{html.escape(line)}</span>" for line in lines]
    return '<pre class="diff">' + "\n".join(spans) + "</pre>"


def _fidelity_rows(original_sources: dict[str, str], best_sources: dict[str, str]) -> list[tuple[str, str]]:
    """Measured over all files joined in name order, so a multi-file design gets one number."""
    names = sorted(original_sources.keys() | best_sources.keys())
    original, best = ("\n".join(files.get(name, "") for name in names) for files in (original_sources, best_sources))
    before, after = cyclomatic_complexity(original), cyclomatic_complexity(best)
    return [("normalised edit distance (lexer tokens)", f"{token_distance(original, best):.3f}"),
            ("cyclomatic complexity, original", str(before)), ("cyclomatic complexity, best", str(after)),
            ("cyclomatic complexity added", f"{after - before:+d}")]


def _summary_tables(summary: dict) -> list[str]:
    """The run's settings, then its PPA: reference against best, quantity by quantity."""
    reference, best = summary.get("reference_ppa") or {}, summary.get("best_ppa") or {}
    run_rows = [(key.replace("_", " "), summary.get(key)) for key in
                ("design", "policy", "pdk", "budget", "seed", "steps", "gate_level", "verified", "best_state_id")]
    ppa_rows = [(label, reference.get(key), best.get(key), best[key] / reference[key]
                 if reference.get(key) and key in best else None) for key, label in PPA_FIELDS]
    ppa_rows.append(("PPA product", None, None, summary.get("ppa_product_ratio")))
    return [html_table(("run", ""), run_rows), html_table(("PPA", "reference", "best", "best / reference"), ppa_rows)]


def _ppa_point(ppa: dict | None) -> Point | None:
    return (ppa["area_um2"], ppa["delay_ns"]) if ppa else None


def _plots(history: RunHistory, summary: dict) -> list[str]:
    """The best ratio step by step, and area against delay with the front the run reached."""
    line = [(row["step"], row["best_ratio"]) for row in history.steps if row.get("best_ratio") is not None]
    dots = [(row["step"], row["ppa_ratio"]) for row in history.accepted() if row.get("ppa_ratio") is not None]
    candidates = [point for row in history.accepted() if (point := _ppa_point(row.get("ppa")))]
    marked = {name: point for name in ("reference", "best") if (point := _ppa_point(summary.get(f"{name}_ppa")))}
    # The reference competes on the front: it is a design the run can always return.
    front = pareto_front(candidates + list(marked.values()))
    return ["<h2>PPA trajectory</h2>", svg_line_plot(line, dots, "step", "PPA product ratio", "PPA trajectory"),
            "<h2>Area against delay</h2>",
            svg_scatter(candidates, front, marked, "area (um²)", "delay (ns)", "Accepted candidates")]


def _history_tables(history: RunHistory) -> list[str]:
    """The controller's knobs and signals per step, and the gate stage each candidate stopped at."""
    controller_rows = [[row["step"], *(row.get(key) for key in CONTROLLER_FIELDS)] for row in history.steps]
    verdicts = Counter((row["stage"], row["accepted"]) for row in history.candidates)
    stages = Counter(row["stage"] for row in history.candidates)
    stage_rows = [(stage, verdicts[stage, False], verdicts[stage, True]) for stage, _ in stages.most_common()]
    return ["<h2>Controller signals</h2>", html_table(("step", *CONTROLLER_FIELDS), controller_rows),
            "<h2>Gate stages</h2>", html_table(("stage", "rejected", "accepted"), stage_rows)]


def write_report(run_dir: Path, original_sources: dict[str, str], best_sources: dict[str, str]) -> Path:
    """Write run_dir/report.html from summary.json, history.jsonl and the two designs; returns its path."""
    summary = json.loads((run_dir / SUMMARY).read_text())
    history = load_history(run_dir / HISTORY)
    body = [*_summary_tables(summary), *_plots(history, summary),
            "<h2>Edit fidelity</h2>", html_table(("measure", "value"), _fidelity_rows(original_sources, best_sources)),
            "<h2>Best against original</h2>", unified_diff_html(original_sources, best_sources),
            *_history_tables(history)]
    path = run_dir / REPORT
    path.write_text(html_page(f"hdlrl optimize: {summary.get('design', run_dir.name)}", body, STYLE))
    return path
