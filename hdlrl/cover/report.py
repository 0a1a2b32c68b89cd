"""The HTML report of one `hdlrl cover` run: how far coverage got, where in the source, what is left.

Written from the run directory alone (coverage.json, history.jsonl and the RTL the replay
testbench copied to `testbench/rtl/`, design-relative as the points' `file` fields), so a run
directory archived without the design still explains itself. The page is self-contained:
inline SVG and CSS, no scripts.

The source listing colours each line by the line and branch points whose source range (Verilator's
`S` field) covers it: red where any of them is not hit, grey where any is shown unreachable
(the reason in the tooltip), blue where one is waived by coverage.yaml, green where all are hit.
Missed wins so that no hole hides behind a hit neighbour on the same line; unreachable and
waived beat hit so that every exclusion stays visible. The proven exclusions (with their
method) and the waived points are listed apart, and the raw figures (over every point) beside
the reachable ones.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import cycle
from pathlib import Path

from hdlrl.cover.coverage import METRICS, CoveragePoint
from hdlrl.checkpoint import HISTORY
from hdlrl.html_page import REPORT, STYLE, Point, Series, html_page, html_table, svg_chart

COVERAGE_FILE = "coverage.json"  # written by hdlrl.cover.outputs, the report's main source
RTL_COPY = Path("testbench") / "rtl"  # where hdlrl.cover.testbench copies the design's RTL
CURVE_COLOURS = {"line": "#1f5fbf", "branch": "#d9822b", "toggle": "#2a9d4b", "functional": "#7b3fb5",
                 "mutation_score": "#c0392b"}
POLICY_COLOURS = ("#1f5fbf", "#d9822b", "#2a9d4b", "#7b3fb5", "#c0392b", "#17a2b8", "#8c564b")
STATUS_ORDER = ("missed", "unreachable", "waived", "hit")  # the first a line's points show decides its colour
COVER_STYLE = STYLE + """
table.source{border:1px solid #ccc}table.source td{border:none;padding:0 6px;font-family:monospace;white-space:pre}
table.source td.code{text-align:left}tr.hit{background:#e6ffec}tr.missed{background:#ffebe9}
tr.unreachable{background:#eceff3;color:#6a737d}tr.waived{background:#e8f0fb;color:#4a5a75}"""


@dataclass
class LineMark:
    """What the line and branch points over one source line say about it."""

    status: str  # hit | missed | unreachable | waived
    count: int  # the least-hit point's count
    notes: list[str]  # one per point, for the tooltip


def _status(point: dict) -> str:
    if point["unreachable"]:
        return "unreachable"
    return "waived" if point.get("waived") else "hit" if point["count"] else "missed"


def _where(point: dict) -> str:
    return f"{point['file']}:{point['line']}"


def _note(point: dict) -> str:
    """One point as a line's tooltip names it."""
    where = f"line {point['line']}" + (f" in {point['instance']}" if point["instance"] else "")
    reason = (f"; unreachable: {point['unreachable']}" if point["unreachable"] else
              f"; waived: {point['waived']}" if point.get("waived") else "")
    return f"{point['kind']} point at {where}: count {point['count']}{reason}"


def line_marks(points: Sequence[dict]) -> dict[str, dict[int, LineMark]]:
    """File -> line number -> mark, for every line some line or branch point's range covers.

    A branch point is also a line point with the same place; the twins count once.
    """
    places: dict[str, dict] = {}
    for point in points:
        if point["metric"] != "toggle":
            places.setdefault(point["id"].partition("|")[2], point)
    covering: dict[tuple[str, int], list[dict]] = {}
    for point in places.values():
        for number in CoveragePoint.from_id(point["id"]).lines:
            covering.setdefault((point["file"], number), []).append(point)
    marks: dict[str, dict[int, LineMark]] = {}
    for (file, number), over in covering.items():
        status = min((_status(point) for point in over), key=STATUS_ORDER.index)
        marks.setdefault(file, {})[number] = LineMark(status, min(point["count"] for point in over),
                                                      [_note(point) for point in over])
    return marks


def rtl_sources(run_dir: Path, points: Sequence[dict]) -> dict[str, str | None]:
    """Design-relative name -> text of the run's RTL copy (None where it is missing): every file
    copied there and every file a point names, in name order."""
    root = run_dir / RTL_COPY
    names = {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}
    names |= {point["file"] for point in points}
    return {name: (root / name).read_text(errors="replace") if (root / name).is_file() else None
            for name in sorted(names)}


def source_listing(name: str, text: str | None, marks: dict[int, LineMark]) -> str:
    """One file, line by line: number, hit count and escaped text, coloured by its mark."""
    heading = f"<h3>{html.escape(name)}</h3>"
    if text is None:
        return f"{heading}\n<p>No copy of this file in the run directory ({html.escape(str(RTL_COPY / name))}).</p>"
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        mark = marks.get(number)
        attributes = f' class="{mark.status}" title="{html.escape(chr(10).join(mark.notes))}"' if mark else ""
        rows.append(f"<tr{attributes}><td>{number}</td><td>{mark.count if mark else ''}</td>"
                    f'<td class="code">{html.escape(line)}</td></tr>')
    return f'{heading}\n<table class="source">\n' + "\n".join(rows) + "\n</table>"


def _label(metric: str) -> str:
    return "mutation score" if metric == "mutation_score" else f"{metric} coverage"


def _curve_points(curve: Sequence[dict], metric: str) -> list[Point]:
    """The metric after each simulation; None (a metric the simulator does not give) is left out."""
    return [(row["simulations"], row[metric]) for row in curve if row.get(metric) is not None]


def svg_coverage_curve(curve: Sequence[dict]) -> str:
    """Every metric of the run (and the mutation score) against the simulations spent."""
    series = [Series(metric.replace("_", " "), points, colour, "path")
              for metric, colour in CURVE_COLOURS.items() if (points := _curve_points(curve, metric))]
    return svg_chart(series, "simulations", "fraction", "Coverage against simulations", y_include=(0, 1))


def _mean_points(seeds: Sequence[Sequence[Point]]) -> list[Point]:
    """The seeds' mean at every x any of them has. A seed holds its last value past its end (a run
    that met its targets early keeps its coverage); before its first point it counts in neither."""
    mean = []
    for x in sorted({x for points in seeds for x, _ in points}):
        held = [[value for at, value in points if at <= x][-1] for points in seeds if points and points[0][0] <= x]
        mean.append((x, sum(held) / len(held)))
    return mean


def svg_coverage_comparison(curves: dict[str, list[list[dict]]], metric: str) -> str:
    """Policies compared on one metric: per policy (in its own colour) a thin line per seed's curve
    and a thick line for their mean; the seeds' lines first, so no mean is hidden under them."""
    seeds = {policy: [_curve_points(curve, metric) for curve in runs] for policy, runs in curves.items()}
    colours = dict(zip(seeds, cycle(POLICY_COLOURS)))
    series = [Series("", points, colours[policy], "path", 1) for policy, lines in seeds.items() for points in lines]
    series += [Series(f"{policy} (mean of {len(lines)})", _mean_points(lines), colours[policy], "path", 3)
               for policy, lines in seeds.items()]
    return svg_chart(series, "simulations", _label(metric), f"{_label(metric)} by policy", y_include=(0, 1))


def _run_rows(document: dict, history: Sequence[dict]) -> list[tuple[str, object]]:
    """The run's settings, and what became of the programs the policy proposed."""
    programs = [row for row in history if row["kind"] == "program"]
    curve = document["curve"]
    return [*((key, document[key]) for key in ("design", "policy", "seed", "simulator")),
            ("steps", sum(row["kind"] == "step" for row in history)), ("programs proposed", len(programs)),
            ("not simulated (refused or failed)", sum("reason" in row for row in programs)),
            ("simulations", curve[-1]["simulations"] if curve else 0), ("final programs", len(document["final_set"]))]


def _totals_rows(document: dict) -> list[tuple[object, ...]]:
    """Hit over reachable points per metric, then live mutants killed."""
    totals = document["totals"]
    rows: list[tuple[object, ...]] = [(metric, entry["hit"], entry["total"], entry["excluded"], entry["fraction"])
                                      for metric in (*METRICS, "functional") if (entry := totals.get(metric))]
    mutants = document["mutants"]
    killed = sum(mutant["killed_by_program"] is not None for mutant in mutants)
    return rows + [("mutation score (live mutants)", killed, len(mutants), None, document["mutation_score"])]


def _functional_rows(bins: dict[str, int]) -> list[tuple[object, ...]]:
    """Per covergroup (the first part of a bin id): bins hit, bins, and the bins not hit."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for bin_id, count in bins.items():
        group, _, name = bin_id.partition(".")
        groups.setdefault(group, []).append((name, count))
    rows = []
    for group, items in groups.items():
        unhit = [name for name, count in items if not count]
        hit = len(items) - len(unhit)
        rows.append((group, hit, len(items), hit / len(items), ", ".join(unhit) or "-"))
    return rows


def _mutant_rows(mutants: Sequence[dict]) -> list[tuple[object, ...]]:
    return [(mutant["index"], mutant["operator"], _where(mutant), mutant["description"], mutant["equivalence"],
             "survived" if mutant["killed_by_program"] is None else f"program {mutant['killed_by_program']}")
            for mutant in mutants]


def _point_order(point: dict) -> tuple:
    return (METRICS.index(point["metric"]), point["file"], point["line"], point["kind"], point["instance"])


def _raw_rows(document: dict) -> list[tuple[object, ...]]:
    """Per code metric: hit over every point, the proven exclusions and waivers counted."""
    return [(metric, entry["raw_hit"], entry["raw_total"], entry.get("waived", 0), entry["raw_fraction"])
            for metric in METRICS if "raw_total" in (entry := document["totals"].get(metric, {}))]


def _point_tables(points: Sequence[dict]) -> list[str]:
    """The reachable points not hit, the points left out as unreachable (reason and method), the
    points waived by coverage.yaml (its reason)."""
    ordered = sorted(points, key=_point_order)
    uncovered = [(point["metric"], _where(point), point["kind"], point["instance"] or "-")
                 for point in ordered if _status(point) == "missed"]
    unreachable = [(point["metric"], _where(point), point["kind"],
                    point["unreachable"] + (f" (method: {point['method']})" if point.get("method") else ""))
                   for point in ordered if _status(point) == "unreachable"]
    waived = [(point["metric"], _where(point), point["kind"], point["waived"])
              for point in ordered if _status(point) == "waived"]
    return ["<h2>Uncovered points</h2>",
            html_table(("metric", "where", "kind", "instance"), uncovered) if uncovered else
            "<p>Every reachable point is hit.</p>",
            "<h2>Unreachable points (left out of the totals)</h2>",
            html_table(("metric", "where", "kind", "reason"), unreachable) if unreachable else
            "<p>No point was shown unreachable.</p>",
            *(["<h2>Waived points (coverage.yaml; unproven, left out of the totals)</h2>",
               html_table(("metric", "where", "kind", "reason"), waived)] if waived else [])]


def _read_history(path: Path) -> list[dict]:
    """history.jsonl's rows; a run killed before its first step has none."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []


def write_cover_report(run_dir: Path) -> Path:
    """Write run_dir/report.html from coverage.json, history.jsonl and the run's RTL copy; returns its path."""
    document = json.loads((run_dir / COVERAGE_FILE).read_text())
    points, bins, mutants = document["points"], document["functional_bins"], document["mutants"]
    marks = line_marks(points)
    body = ["<h2>Run</h2>", html_table(("run", ""), _run_rows(document, _read_history(run_dir / HISTORY))),
            "<h2>Coverage</h2>",
            html_table(("metric", "hit", "reachable", "unreachable (excluded)", "fraction"), _totals_rows(document)),
            f"<p>{html.escape(document['note'])}</p>",
            *(["<h3>Raw coverage (every point, exclusions and waivers counted)</h3>",
               html_table(("metric", "hit", "points", "waived", "raw fraction"), raw)] if (raw := _raw_rows(document))
              else []),
            "<h2>Coverage against simulations</h2>", svg_coverage_curve(document["curve"]),
            "<h2>Source</h2>",
            "<p>Each line coloured by the line and branch points over it: green hit, red not hit, grey shown "
            "unreachable, blue waived (hover for the points and reasons); the count is the least-hit point's.</p>",
            *(source_listing(name, text, marks.get(name, {})) for name, text in rtl_sources(run_dir, points).items()),
            "<h2>Functional coverage</h2>",
            html_table(("covergroup", "hit", "bins", "fraction", "bins not hit"), _functional_rows(bins)) if bins else
            "<p>No covergroups (the design has no coverage.yaml).</p>",
            "<h2>Mutants</h2>",
            html_table(("#", "operator", "where", "description", "equivalence", "killed by"), _mutant_rows(mutants))
            if mutants else "<p>No live mutants.</p>",
            *_point_tables(points)]
    path = run_dir / REPORT
    path.write_text(html_page(f"hdlrl cover: {document['design']}", body, COVER_STYLE))
    return path
