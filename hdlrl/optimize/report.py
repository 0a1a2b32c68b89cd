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
import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hdlrl.hdl.lexer import Token, tokenize
from hdlrl.optimize.loop import HISTORY

REPORT = "report.html"
Point = tuple[float, float]
WIDTH, HEIGHT, MARGIN = 640, 360, 60
PPA_FIELDS = (("area_um2", "area (um²)"), ("delay_ns", "delay (ns)"), ("power_mw", "power (mW)"))
CONTROLLER_FIELDS = ("delta", "delta_action", "kl_coef", "kl_coef_action", "reference_kl",
                     "effective_sample_size", "constant_fraction", "saturated_fraction", "accepted", "candidates")
MARK_COLOURS = ("#2a9d4b", "#c0392b", "#7b3fb5")
DECISION_KEYWORDS = frozenset({"if", "for", "while"})
CASE_KEYWORDS = frozenset({"case", "casez", "casex"})
STYLE = """body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f0f2f5}td:first-child{text-align:left}pre.diff{background:#fafafa;padding:1em;overflow:auto}
.added{color:#116329;background:#e6ffec}.removed{color:#82071e;background:#ffebe9}.hunk{color:#0550ae}
.file{font-weight:bold}"""


@dataclass
class RunHistory:
    """The history log split by kind: one row per candidate, one per step."""

    candidates: list[dict]
    steps: list[dict]

    def accepted(self) -> list[dict]:
        return [row for row in self.candidates if row["accepted"]]


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


@dataclass(frozen=True)
class Series:
    """Points drawn one way: dots, a line through dots, or one large marker per point."""

    label: str
    points: Sequence[Point]
    colour: str
    style: str = "dots"  # dots | line | marker


@dataclass(frozen=True)
class _Scale:
    """Data range to pixel range, padded by 5% so no point sits on the frame."""

    low: float
    high: float
    start: float
    end: float

    @classmethod
    def fit(cls, values: list[float], start: float, end: float) -> _Scale:
        low, high = (min(values), max(values)) if values else (0.0, 1.0)
        pad = (high - low) * 0.05 or abs(high) * 0.05 or 1.0
        return cls(low - pad, high + pad, start, end)

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self) -> list[float]:
        """Round values inside the range, 1, 2 or 5 times a power of ten apart, about five of them."""
        wanted = (self.high - self.low) / 5
        unit = 10 ** math.floor(math.log10(wanted))
        step = next(unit * multiple for multiple in (1, 2, 5, 10) if unit * multiple >= wanted)
        first = math.ceil(self.low / step) * step
        return [first + step * index for index in range(int((self.high - first) / step) + 1)]


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


def svg_chart(series: Sequence[Series], x_label: str, y_label: str, title: str) -> str:
    """Axes fitted to every point, round ticks and a legend on top; no data gives a bare frame."""
    points = [point for item in series for point in item.points]
    x = _Scale.fit([a for a, _ in points], MARGIN, WIDTH - MARGIN / 3)
    y = _Scale.fit([b for _, b in points], HEIGHT - MARGIN, MARGIN / 2)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-size="11">',
             f"<title>{html.escape(title)}</title>", *_axes(x, y, x_label, y_label)]
    for index, item in enumerate(series):
        parts += _draw(item, x, y)
        parts.append(f'<text x="{x.start + 110 * index}" y="14" fill="{item.colour}">'
                     f"● {html.escape(item.label)}</text>")
    return "\n".join(parts) + "\n</svg>"


def _axes(x: _Scale, y: _Scale, x_label: str, y_label: str) -> list[str]:
    """The frame, a faint grid line and a label at each tick, and the two axis titles."""
    parts = [f'<rect x="{x.start}" y="{y.end}" width="{x.end - x.start}" height="{y.start - y.end}" '
             'fill="none" stroke="#888"/>']
    parts += [f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{y.start}" y2="{y.end}" stroke="#eee"/>'
              f'<text x="{x(tick):.1f}" y="{y.start + 15}" text-anchor="middle">{tick:.4g}</text>'
              for tick in x.ticks()]
    parts += [f'<line x1="{x.start}" x2="{x.end}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#eee"/>'
              f'<text x="{x.start - 5}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:.4g}</text>'
              for tick in y.ticks()]
    return parts + [
        f'<text x="{(x.start + x.end) / 2}" y="{HEIGHT - 12}" text-anchor="middle">{html.escape(x_label)}</text>',
        f'<text transform="translate(14 {(y.start + y.end) / 2}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(y_label)}</text>"]


def _draw(item: Series, x: _Scale, y: _Scale) -> list[str]:
    """One series in its style: a ring marks a point without hiding the dot beneath it."""
    pixels = [(x(a), y(b)) for a, b in item.points]
    parts = []
    if item.style == "line" and pixels:
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pixels)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{item.colour}" stroke-width="2"/>')
    ring = item.style == "marker"
    paint = f'fill="none" stroke="{item.colour}" stroke-width="2"' if ring else f'fill="{item.colour}"'
    radius = 7 if ring else 3
    return parts + [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{radius}" {paint}/>' for a, b in pixels]


def _cell(value: object) -> str:
    text = "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)
    return html.escape(text)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    head = "".join(f"<th>{html.escape(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{_cell(value)}</td>" for value in row) + "</tr>\n" for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}</table>"


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
    return [_table(("run", ""), run_rows), _table(("PPA", "reference", "best", "best / reference"), ppa_rows)]


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
    return ["<h2>Controller signals</h2>", _table(("step", *CONTROLLER_FIELDS), controller_rows),
            "<h2>Gate stages</h2>", _table(("stage", "rejected", "accepted"), stage_rows)]


def write_report(run_dir: Path, original_sources: dict[str, str], best_sources: dict[str, str]) -> Path:
    """Write run_dir/report.html from summary.json, history.jsonl and the two designs; returns its path."""
    summary = json.loads((run_dir / "summary.json").read_text())
    history = load_history(run_dir / HISTORY)
    title = html.escape(f"hdlrl optimize: {summary.get('design', run_dir.name)}")
    body = [f"<h1>{title}</h1>", *_summary_tables(summary), *_plots(history, summary),
            "<h2>Edit fidelity</h2>", _table(("measure", "value"), _fidelity_rows(original_sources, best_sources)),
            "<h2>Best against original</h2>", unified_diff_html(original_sources, best_sources),
            *_history_tables(history)]
    path = run_dir / REPORT
    path.write_text(f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
                    f"<style>{STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")
    return path
