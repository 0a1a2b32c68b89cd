"""The config schema layer: every flow file refuses what would hang or mislead, at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.cover.cover_flow import load_cover_flow
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.optimize.optimize_flow import load_optimize_flow
from hdlrl.summarize.summarize_flow import load_summarize_flow
from hdlrl.verify.gate_flow import load_gate_flow

FLOWS = Path(__file__).resolve().parents[1] / "flows"
LOADERS = {"eval.yaml": load_flow, "gate.yaml": load_gate_flow, "optimize.yaml": load_optimize_flow,
           "cover.yaml": load_cover_flow, "summarize.yaml": load_summarize_flow}


def _flows(folder: Path, name: str, edit) -> Path:
    """The project's flows copied into `folder`, with `edit(text)` applied to `name`."""
    for flow in FLOWS.glob("*.yaml"):
        (folder / flow.name).write_text(flow.read_text())
    path = folder / name
    path.write_text(edit(path.read_text()))
    return path


def _line_of(path: Path, fragment: str) -> int:
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if fragment in line)


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_every_project_flow_loads(name: str) -> None:
    LOADERS[name](FLOWS / name)


@pytest.mark.parametrize("name, old, new, expected", [
    ("eval.yaml", "time_s: 120", "time_s: .inf", "limits.time_s: must be a finite number"),
    ("eval.yaml", "memory_mb: 4096", "memory_mb: .nan", "limits.memory_mb: must be a whole number"),
    ("eval.yaml", "activity: 0.1", "activity: -0.1", "timing.activity: must be greater than or equal to 0"),
    ("eval.yaml", "analyzer: auto", "analyzer: primetime", "timing.analyzer: must be 'auto', 'opensta' or 'openroad'"),
    ("eval.yaml", 'abc_script: ""', 'abc_script: "-fast; write_verilog /etc/x"', "synthesis.abc_script: "),
    ("eval.yaml", "simulator: icarus", "simulator: '1'", "simulator: must be 'icarus' or 'verilator'"),
    ("gate.yaml", "cycles: 10000", "cycles: 0", "differential.cycles: must be greater than or equal to 1"),
    ("gate.yaml", "seed: 1", "seed: '1'", "differential.seed: must be a whole number"),
    ("gate.yaml", "midrun_reset: true", "midrun_reset: 'yes'", "differential.midrun_reset: must be true or false"),
    ("gate.yaml", "depth: 20", "depth: 1000000", "equivalence.depth: must be less than or equal to 1000"),
    ("gate.yaml", "evaluation: eval.yaml", "evaluation: eval.yaml\nfrobnicate: 1", "frobnicate: unknown field"),
    ("optimize.yaml", "budget: 64", "budget: 0", "budget: must be greater than or equal to 1, got 0"),
    ("optimize.yaml", "budget: 64", "budget: 1e12", "budget: must be a whole number"),
    ("optimize.yaml", "advantage: entropic", "advantage: softmax", "advantage: must be 'entropic', 'grpo' or 'rank'"),
    ("optimize.yaml", "objective: design", "objective: {area: 1, speed: 2}", "objective.speed: unknown field"),
    ("optimize.yaml", "target_reference_kl: 0.05", "target_reference_kl: .inf",
     "kl_control.target_reference_kl: must be a finite number"),
    ("cover.yaml", "workers: 2", "workers: -1", "workers: must be greater than or equal to 1"),
    ("cover.yaml", "targets: {line: 0.95", "targets: {lines: 0.95", "targets.lines: must be 'line'"),
    ("cover.yaml", "targets: {line: 0.95", "targets: {line: 95", "targets.line: must be less than or equal to 1"),
    ("cover.yaml", "budget: 200", "budget: 200\nobjective: mutants", "objective: set by `hdlrl cover --objective`"),
    ("summarize.yaml", "iterations: 64", "iterations: 2.5", "search.iterations: must be a whole number"),
    ("summarize.yaml", "fc: 0.4", "fc: .nan", "rewards.fc: must be a finite number"),
    ("summarize.yaml", "item_time_limit_s: 30", "item_time_limit_s: 0", "item_time_limit_s: must be greater than 0"),
    ("eval.yaml", "  idle_s: 30", "  idle_s: 30\n  idle_s: 5", "limits.idle_s: given twice (first at line 16)"),
])
def test_a_bad_value_is_refused_at_its_line(tmp_path: Path, name: str, old: str, new: str, expected: str) -> None:
    path = _flows(tmp_path, name, lambda text: text.replace(old, new, 1))
    top = {"eval.yaml": "optimize.yaml", "gate.yaml": "optimize.yaml"}.get(name, name)  # read through the chain
    with pytest.raises(HdlrlError) as caught:
        LOADERS[top](tmp_path / top)
    message = str(caught.value)
    assert message.startswith(f"{path}:{_line_of(path, new.splitlines()[-1])}: {expected}"), message
    assert "\n" not in message


def test_alias_bomb_oversized_and_deep_files_are_refused_before_parsing(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text('a: &a ["x", "x"]\nb: &b [*a, *a]\nc: &c [*b, *b]\nbudget: *c\n')
    with pytest.raises(HdlrlError, match=r"bomb.yaml:1: YAML anchors and aliases are refused"):
        load_optimize_flow(bomb)
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * 200_000)
    with pytest.raises(HdlrlError, match=r"big.yaml: \d+ bytes: larger than the 1048576"):
        load_cover_flow(big)
    deep = tmp_path / "deep.yaml"
    deep.write_text("budget: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(HdlrlError, match=r"deep.yaml:1: nested deeper than 32 levels"):
        load_cover_flow(deep)


def test_a_flow_that_is_not_a_mapping_or_names_a_missing_file(tmp_path: Path) -> None:
    listing = tmp_path / "list.yaml"
    listing.write_text("- budget\n- 3\n")
    with pytest.raises(HdlrlError, match=r"list.yaml:1: .*must be a mapping"):
        load_summarize_flow(listing)
    path = _flows(tmp_path, "optimize.yaml", lambda text: text.replace("gate: gate.yaml", "gate: nowhere.yaml"))
    with pytest.raises(HdlrlError, match=r"nowhere.yaml: file not found"):
        load_optimize_flow(path)
