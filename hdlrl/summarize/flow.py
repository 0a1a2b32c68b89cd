"""The configuration of `hdlrl summarize` (`flows/summarize.yaml`) as typed dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.evaluate.flow import FLOWS_DIR
from hdlrl.summarize.fluency import FLUENCY_KINDS
from hdlrl.summarize.rewards import Weights
from hdlrl.summarize.search import SearchSettings
from hdlrl.yamlfile import load_yaml

DEFAULT_SUMMARIZE_FLOW = FLOWS_DIR / "summarize.yaml"


@dataclass(frozen=True)
class SummarizeFlow:
    weights: Weights = field(default_factory=Weights)
    search: SearchSettings = field(default_factory=SearchSettings)
    item_time_limit_s: float = 30.0
    fluency: str = "embedded"  # one of FLUENCY_KINDS: the embedded heuristic, or the hf policy's SLOR


def load_summarize_flow(path: Path = DEFAULT_SUMMARIZE_FLOW) -> SummarizeFlow:
    """Read a summarize flow; unknown keys and bad values are errors with their line."""
    document = load_yaml(path)
    data = dict(document.data or {})
    sections = {"rewards": Weights, "search": SearchSettings}
    known = (*sections, "item_time_limit_s", "fluency")
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown summarize option (known: {', '.join(known)})")
    built = {}
    for key, kind in sections.items():
        values = data.get(key) or {}
        if not isinstance(values, dict):
            raise document.error(key, "must be a mapping")
        for name, value in values.items():
            if name not in kind.__dataclass_fields__:
                raise document.error(f"{key}.{name}", f"unknown option (known: {', '.join(kind.__dataclass_fields__)})")
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
                raise document.error(f"{key}.{name}", "must be a non-negative number")
            if isinstance(kind.__dataclass_fields__[name].default, int) and not isinstance(value, int):
                raise document.error(f"{key}.{name}", "must be an integer")
        built[key] = kind(**values)
    limit = data.get("item_time_limit_s", 30.0)
    if not isinstance(limit, (int, float)) or limit <= 0:
        raise document.error("item_time_limit_s", "must be a positive number")
    fluency = data.get("fluency", "embedded")
    if fluency not in FLUENCY_KINDS:
        raise document.error("fluency", f"must be one of {', '.join(FLUENCY_KINDS)}, not {fluency!r}")
    return SummarizeFlow(built["rewards"], built["search"], float(limit), fluency)
