"""Synthesis to a PDK's standard cells: the mapped netlist, its area and its cell counts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SynthResult:
    ok: bool
    reason: str = ""
    area_um2: float = 0.0
    cell_count: int = 0
    cells: dict[str, int] = field(default_factory=dict)
    netlist: Path | None = None
    warnings: list[str] = field(default_factory=list)
    wall_s: float = 0.0
