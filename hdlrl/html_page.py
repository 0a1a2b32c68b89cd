"""The pieces the self-contained HTML run reports share: inline-SVG charts, tables, the page.

Both `hdlrl optimize` and `hdlrl cover` leave a report.html that must open anywhere, archived
or mailed on its own, so the charts are drawn here as plain SVG (no scripts, no libraries)
and the CSS is inline.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

REPORT = "report.html"  # in the run directory, whichever command made it
Point = tuple[float, float]
WIDTH, HEIGHT, MARGIN = 640, 360, 60
STYLE = """body{font-family:sans-serif;max-width:980px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f0f2f5}td:first-child{text-align:left}"""


@dataclass(frozen=True)
class Series:
    """Points drawn one way: dots, a line through dots, a bare line (`path`), or one large marker
    per point. A series without a label stays out of the legend (one seed among many)."""

    label: str
    points: Sequence[Point]
    colour: str
    style: str = "dots"  # dots | line | path | marker
    width: float = 2  # stroke width of a line or path


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


def svg_chart(series: Sequence[Series], x_label: str, y_label: str, title: str,
              y_include: Sequence[float] = ()) -> str:
    """Axes fitted to every point (and to `y_include`: 0 and 1 keep fractions on their full
    scale), round ticks and a legend on top; no data gives a bare frame."""
    points = [point for item in series for point in item.points]
    x = _Scale.fit([a for a, _ in points], MARGIN, WIDTH - MARGIN / 3)
    y = _Scale.fit([b for _, b in points] + list(y_include), HEIGHT - MARGIN, MARGIN / 2)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-size="11">',
             f"<title>{html.escape(title)}</title>", *_axes(x, y, x_label, y_label)]
    legend = 0
    for item in series:
        parts += _draw(item, x, y)
        if item.label:
            parts.append(f'<text x="{x.start + 110 * legend}" y="14" fill="{item.colour}">'
                         f"● {html.escape(item.label)}</text>")
            legend += 1
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
    if item.style in ("line", "path") and pixels:
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in pixels)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{item.colour}" stroke-width="{item.width:g}"/>')
    if item.style == "path":
        return parts
    ring = item.style == "marker"
    paint = f'fill="none" stroke="{item.colour}" stroke-width="2"' if ring else f'fill="{item.colour}"'
    radius = 7 if ring else 3
    return parts + [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="{radius}" {paint}/>' for a, b in pixels]


def _cell(value: object) -> str:
    text = "-" if value is None else f"{value:.4g}" if isinstance(value, float) else str(value)
    return html.escape(text)


def html_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """Cells escaped; None shows as '-', floats to four significant digits."""
    head = "".join(f"<th>{html.escape(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{_cell(value)}</td>" for value in row) + "</tr>\n" for row in rows)
    return f"<table>\n<tr>{head}</tr>\n{body}</table>"


def html_page(title: str, body: Sequence[str], style: str = STYLE) -> str:
    """The whole document: `title` (escaped here) as the window title and the heading, then `body`."""
    title = html.escape(title)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{style}</style></head>\n<body>\n" + "\n".join([f"<h1>{title}</h1>", *body])
            + "\n</body></html>\n")
