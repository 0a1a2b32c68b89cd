"""The configuration of `hdlrl summarize` (`flows/summarize.yaml`) as typed dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from hdlrl.config import Positive, load_config, schema
from hdlrl.evaluate.eval_flow import FLOWS_DIR
from hdlrl.summarize.rewards import Weights
from hdlrl.summarize.search import SearchSettings

DEFAULT_SUMMARIZE_FLOW = FLOWS_DIR / "summarize.yaml"


@schema
@dataclass(frozen=True)
class SummarizeFlow:
    rewards: Weights = field(default_factory=Weights)
    search: SearchSettings = field(default_factory=SearchSettings)
    item_time_limit_s: Positive = 30.0
    fluency: Literal["embedded", "lm"] = "embedded"  # the embedded heuristic, or the hf policy's SLOR
    simulate_resets: bool = True  # a reset claim also holds in simulation (hdlrl/summarize/reset_evidence.py)
    read_netlist: bool = True  # functions and reset values from Yosys, checked in simulation (summarize/behaviour.py)


def load_summarize_flow(path: Path = DEFAULT_SUMMARIZE_FLOW) -> SummarizeFlow:
    """Read a summarize flow; a bad value is an error at its line."""
    return load_config(path, SummarizeFlow)[0]
