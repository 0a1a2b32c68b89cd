"""Static timing and power of a mapped netlist: critical-path delay, WNS/TNS, total power.

Conventions (documented in docs/eda.md, and the same for every PDK):
- each design clock is created on its port with the design's period; a combinational design
  is timed against a virtual clock, with inputs and outputs at zero external delay, so its
  delay is the input-to-output arrival time;
- inputs and outputs are constrained at zero delay to the first clock; an asynchronous
  reset is a false path (it has no data timing);
- `delay_ns` is the minimum clock period the netlist meets: period - worst setup slack
  (for a combinational design, the longest input-to-output delay); a netlist without any
  constrained path has no delay to report and fails the timing stage;
- power is OpenSTA's `report_power` total at a global switching activity of
  `activity` (default 0.1 transitions per clock period) and 0.5 duty.

The `TimingAnalyzer` base class, the options, the result and the shared Tcl are in `base.py`,
one backend per module; `analyzer(name)` picks one.
"""

from __future__ import annotations

from hdlrl.eda.sta.base import TimingAnalyzer, TimingOptions, TimingResult
from hdlrl.eda.sta.openroad import OpenRoadAnalyzer
from hdlrl.eda.sta.opensta import OpenStaAnalyzer
from hdlrl.eda.toolchain import has_tool

__all__ = ["ANALYZERS", "TimingAnalyzer", "TimingOptions", "TimingResult", "analyzer"]

ANALYZERS: dict[str, type[TimingAnalyzer]] = {"opensta": OpenStaAnalyzer, "openroad": OpenRoadAnalyzer}


def analyzer(name: str = "auto") -> TimingAnalyzer:
    """The backend `name`; `auto` is OpenROAD where its binary is installed, otherwise OpenSTA.
    A ValueError naming the known analyzers for any other name."""
    if name == "auto":
        name = "openroad" if has_tool("openroad") else "opensta"
    if name not in ANALYZERS:
        raise ValueError(f"unknown timing analyzer {name!r} (known: auto, {', '.join(ANALYZERS)})")
    return ANALYZERS[name]()
