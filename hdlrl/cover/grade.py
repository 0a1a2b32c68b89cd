"""`hdlrl cover --grade`: pass or fail a given stimulus against the design's coverage targets.

CVDP's coverage tasks and LLM4Cov grade a testbench by running it and checking a target per
metric; the verdict is pass only when every target holds. Here the stimulus is a file of
stimulus programs (`hdlrl.cover.stimulus`), run on the same harness `hdlrl cover` uses, with
points proven unreachable left out of the denominators as there. A metric that was not
measured (no program ran, or no code coverage on the simulator) meets no target, so an empty
stimulus fails.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hdlrl.cover.cover_flow import CoverFlow
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.prompt import CoverState
from hdlrl.cover.targets import target_met
from hdlrl.design import Design
from hdlrl.errors import HdlrlError
from hdlrl.ttt.protocol import Sample, UpdateStats

GRADE_FILE = "grade.json"
MAX_PROGRAMS = 10_000


@dataclass
class MetricGrade:
    metric: str
    target: float
    measured: float | None  # None: not measured
    met: bool


@dataclass
class Grade:
    design: str
    stimulus: str
    programs: int
    simulator: str
    metrics: list[MetricGrade]
    passed: bool


def read_programs(path: Path) -> list[str]:
    """The programs of a stimulus file, each as JSON text: one program object, a list of them,
    or `{"programs": [...]}` (what `hdlrl cover` keeps in its corpus)."""
    try:
        data = json.loads(Path(path).read_text(errors="replace"))
    except OSError as error:
        raise HdlrlError(f"cannot read the stimulus: {error.strerror}", path) from None
    except json.JSONDecodeError as error:
        raise HdlrlError(f"not JSON: {error.msg}", path, error.lineno) from None
    programs = data.get("programs") if isinstance(data, dict) and "programs" in data else data
    programs = [programs] if isinstance(programs, dict) else programs
    if not isinstance(programs, list) or not all(isinstance(program, dict) for program in programs):
        raise HdlrlError("expected a stimulus program, a list of them or {\"programs\": [...]}", path)
    if len(programs) > MAX_PROGRAMS:
        raise HdlrlError(f"{len(programs)} programs: at most {MAX_PROGRAMS}", path)
    return [json.dumps(program) for program in programs]


class GivenPrograms:
    """A policy that proposes the stimulus file's programs in order, one per step, the i-th
    rendered with seed i (what its random segments draw); it never learns."""

    name = "given"
    trainable = False

    def __init__(self, programs: list[str]):
        self.programs, self.next = programs, 0

    def sample(self, state: CoverState, k: int, rng_seed: int) -> list[Sample]:
        samples = [Sample({}, self.programs[index], None, "given", {"seed": index})
                   for index in range(self.next, min(self.next + k, len(self.programs)))]
        self.next += len(samples)
        return samples

    def update(self, state_samples, advantages, kl_coef: float) -> UpdateStats:
        return UpdateStats()

    def save(self, folder: Path) -> None:
        """Nothing to save: the position is the loop's."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""


def grade(design: Design, flow: CoverFlow, stimulus: Path, run_dir: Path, sandbox: bool | None = None) -> Grade:
    """Run every program of `stimulus` once and check the targets (flows/cover.yaml's, overridden
    by the design's coverage.yaml); no mutants, no learning, no early stop."""
    programs = read_programs(stimulus)
    flow = replace(flow, budget=max(len(programs), 1), group_size=1, mutants=0, stop_at_targets=False)
    run = CoverRun(design, GivenPrograms(programs), flow, run_dir, sandbox=sandbox, progress=False)
    run.run_dir.mkdir(parents=True, exist_ok=True)
    if programs:
        run.run()
    else:
        run.prepare()
    fractions = run.fractions()
    metrics = [MetricGrade(metric, target, fractions.get(metric), target_met(fractions.get(metric), target))
               for metric, target in run.targets.items()]
    result = Grade(design.name, str(stimulus), run.state.simulations, run.harness.simulator, metrics,
                   bool(metrics) and all(metric.met for metric in metrics))
    (run.run_dir / GRADE_FILE).write_text(json.dumps(asdict(result), indent=1) + "\n")
    return result
