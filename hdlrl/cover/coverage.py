"""Code coverage points from Verilator's coverage files, merged across runs, as metrics.

Verilator (`--coverage-line --coverage-toggle`) writes one record per point: a key of
`\\x01name\\x02value` fields (file `f`, line `l`, column `n`, page `v_line/MODULE` or
`v_toggle/MODULE`, kind `o`, source range `S`, hierarchy `h`) and a hit count. Verilator has
no separate branch metric: its line points cover each block, each if/else arm and each case
item. hdlrl reports

- **line**: every line point (blocks and arms), hit at least once;
- **branch**: the line points that are an if/else arm or a case item (`o` is `if`, `else`,
  `elsif` or `case`), the branch coverage Verilator can give;
- **toggle**: every toggle point (one per signal bit, hit when the bit changed).

A point's id is `metric|file|line|column|S|kind|instance`, with `file` relative to the design and
`instance` the path below the design's top (empty for the top itself), so ids stay the same
across harness builds and folders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


METRICS = ("line", "branch", "toggle")
BRANCH_KINDS = ("if", "else", "elsif", "case")
DUT_HIERARCHY = "TOP.hdlrl_cover_tb.hdlrl_dut"


@dataclass(frozen=True)
class CoveragePoint:
    metric: str  # line, branch or toggle
    file: str  # relative to the design folder
    line: int
    column: int
    source_range: str  # Verilator's S field: the lines the point stands for, e.g. "31-34"
    kind: str  # block, if, else, elsif, case; for toggle points the bit, e.g. count[3]
    instance: str  # below the design's top, dotted; empty for the top

    @property
    def id(self) -> str:
        return "|".join((self.metric, self.file, str(self.line), str(self.column), self.source_range, self.kind,
                         self.instance))

    @classmethod
    def from_id(cls, point_id: str) -> "CoveragePoint":
        metric, file, line, column, source_range, kind, instance = point_id.split("|")
        return cls(metric, file, int(line), int(column), source_range, kind, instance)

    @property
    def lines(self) -> range:
        """The source lines the point stands for."""
        first, _, last = self.source_range.partition("-")
        try:
            return range(int(first), int(last or first) + 1)
        except ValueError:
            return range(self.line, self.line + 1)


def _fields(key: str) -> dict[str, str]:
    fields = {}
    for item in key.split("\x01"):
        name, separator, value = item.partition("\x02")
        if separator:
            fields[name] = value
    return fields


def parse_coverage(text: str, rtl_root: Path, hierarchy_root: str = DUT_HIERARCHY) -> dict[str, int]:
    """Point id -> count for the points in files under `rtl_root` and below `hierarchy_root` (the
    design's instance in the testbench).

    Branch points are also line points, so they appear twice: once per metric.
    """
    root = str(rtl_root.resolve()) + "/"
    counts: dict[str, int] = {}
    for record in text.splitlines():
        if not record.startswith("C '"):
            continue
        key, _, count = record[3:].rpartition("' ")
        fields = _fields(key)
        file, hierarchy = fields.get("f", ""), fields.get("h", "")
        if not file.startswith(root) or not (hierarchy == hierarchy_root or hierarchy.startswith(hierarchy_root + ".")):
            continue
        page = fields.get("page", "")
        kind = fields.get("o", "")
        instance = hierarchy[len(hierarchy_root):].lstrip(".")
        base = (file[len(root):], int(fields.get("l", 0)), int(fields.get("n", 0)), fields.get("S", fields.get("l", "")),
                kind, instance)
        metrics = (("toggle",) if page.startswith("v_toggle") else
                   ("line", "branch") if kind in BRANCH_KINDS else
                   ("line",) if page.startswith("v_line") else ())
        for metric in metrics:
            point_id = CoveragePoint(metric, *base).id
            counts[point_id] = counts.get(point_id, 0) + int(count)
    return counts


def read_coverage_file(path: Path, rtl_root: Path, hierarchy_root: str = DUT_HIERARCHY) -> dict[str, int]:
    return parse_coverage(path.read_text(errors="replace"), rtl_root, hierarchy_root)


def merge_counts(total: dict[str, int], run: dict[str, int]) -> dict[str, int]:
    """Counts of two sets of runs together (a new dict)."""
    merged = dict(total)
    for point_id, count in run.items():
        merged[point_id] = merged.get(point_id, 0) + count
    return merged


@dataclass
class MetricSummary:
    hit: int
    total: int  # reachable points only
    excluded: int  # points shown unreachable, left out of `total`

    @property
    def fraction(self) -> float | None:
        return self.hit / self.total if self.total else None


def summarise(counts: dict[str, int], excluded: frozenset[str] = frozenset()) -> dict[str, MetricSummary]:
    """Hit / reachable points per metric; `excluded` ids (unreachable points) count in neither."""
    summary = {metric: MetricSummary(0, 0, 0) for metric in METRICS}
    for point_id, count in counts.items():
        entry = summary[point_id.partition("|")[0]]
        if point_id in excluded:
            entry.excluded += 1
            continue
        entry.total += 1
        entry.hit += count > 0
    return summary

