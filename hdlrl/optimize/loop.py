"""`hdlrl optimize` as a job of the test-time-training loop (`hdlrl.ttt.loop`): what a design state
is, how the gate judges a rewrite and what it earns.

- A state is a design's RTL and synthesis recipe; the pool starts from the original, judged by
  the gate like any candidate.
- The policy is shown the state's PPA, the gate's reasons for its failed children and every
  candidate judged so far (or drawn earlier this step), so it need not repeat one.
- The gate judges every candidate of a step in parallel through the bridge's executor (cached);
  a candidate proposed twice in one step is judged once.
- Reward: -ln(PPA ratio) when accepted, below every accepted reward when not
  (`hdlrl.optimize.reward`); accepted candidates join the pool.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.synth.recipes import DEFAULT_RECIPE, recipe_options
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import rtl_digest
from hdlrl.evaluate.executors import Executor
from hdlrl.evaluate.result import PPA
from hdlrl.hdl.design_files import relative_name, write_sources
from hdlrl.optimize.optimize_flow import OptimizeFlow
from hdlrl.optimize.prompt import DesignState
from hdlrl.optimize.reward import NO_MODULE_CREDIT, accepted_reward, rejected_reward
from hdlrl.pdk import Pdk
from hdlrl.serialize import to_jsonable
from hdlrl.ttt.loop import Group, Judged, LoopSettings, SearchLoop, item_seed
from hdlrl.ttt.pool import Pool, PoolState, source_hash
from hdlrl.ttt.protocol import Policy, Sample
from hdlrl.verify.gate import Verdict
from hdlrl.verify.job import GateJob, run_gate_job

MODES = ("ttt", "frozen", "best-of-n")  # learn and search; search only; sample the original only


@dataclass
class Judgement:
    """What the run keeps of one candidate's verdict."""

    accepted: bool
    stage: str
    level: str
    reason: str
    reward: float
    ppa: dict | None = None
    ppa_ratio: float | None = None
    wall_s: float = 0.0


@dataclass
class RunState:
    """What a checkpoint holds of the job besides the loop's pool and the policy."""

    reference_ppa: dict | None = None
    judged: list[str] = field(default_factory=list)  # source_hash of every candidate judged, the original first
    verified: list[str] = field(default_factory=list)  # source_hash of every RTL the gate verified, whatever its recipe


class OptimizeRun:
    kind, unit = "optimize", "candidate"

    def __init__(self, design: Design, policy: Policy, pdk: Pdk, flow: OptimizeFlow, run_dir: Path,
                 executor: Executor, cache_path: Path | None, seed: int = 0, mode: str = "ttt",
                 sandbox: bool | None = None, progress: bool = True, accept_unproven: bool = False):
        self.design, self.policy, self.pdk, self.flow = design, policy, pdk, flow
        # Unproven states (bounded, simulated) are reported as the run's best only when the user
        # opts in: a policy finds any way past a bounded check. Without it they are not searched
        # from either, since a recipe or a further rewrite keeps the step the gate could not prove.
        self.accept_unproven = accept_unproven
        self.run_dir, self.executor, self.cache_path = run_dir, executor, cache_path
        self.seed, self.mode, self.sandbox = seed, mode, sandbox
        self.label = f"optimize {design.name}"
        self.objective = flow.objective or design.objective
        self.original = {relative_name(design, path): path.read_text(errors="replace") for path in design.rtl}
        self.state = RunState()
        settings = LoopSettings(flow.budget, flow.groups, flow.group_size, flow.exploration, flow.pool_size,
                                flow.advantage, flow.kl_control, update=mode == "ttt",
                                initial_only=mode == "best-of-n")
        self.loop = SearchLoop(self, policy, settings, item_seed(seed, design.name), run_dir, progress)

    # ------------------------------------------------------------------ the job

    def start(self) -> list[PoolState]:
        """The original RTL, judged by the gate like any candidate, is the pool's initial state."""
        job = GateJob(self.design, self.design.rtl, self.pdk, self.flow.gate, self.cache_path, self.sandbox)
        verdict = run_gate_job(job)
        if not verdict.accepted or verdict.ppa is None:
            raise HdlrlError(f"the reference does not pass its own gate ({verdict.stage}: {verdict.reason})",
                             self.design.root / "design.yaml")
        self.state = RunState(to_jsonable(verdict.ppa), [source_hash(self.original)], [source_hash(self.original)])
        return [PoolState("s00000", dict(self.original), accepted_reward(1.0, self.flow.ratio_floor),
                          level=verdict.level, ppa=self.state.reference_ppa, initial=True)]

    def view(self, state: PoolState, drawn: list[Group]) -> DesignState:
        known = set(self.state.judged) | {source_hash(sample.sources, _recipe(sample, group.parent))
                                          for group in drawn for sample in group.samples}
        return DesignState(self.design.name, self.design.top, self.design.description, dict(state.sources),
                           state.ppa, self.state.reference_ppa,
                           list(state.metadata.get("feedback", []))[-self.flow.feedback_lines:], state.id,
                           state.recipe, frozenset(known))

    def judge(self, step: int, groups: list[Group]) -> list[list[Judged]]:
        folder = self.run_dir / "candidates" / f"step_{step:04d}"
        shutil.rmtree(folder, ignore_errors=True)
        jobs = [self._gate_job(sample, _recipe(sample, group.parent), folder / f"group_{number:02d}" / f"candidate_{index:03d}")
                for number, group in enumerate(groups) for index, sample in enumerate(group.samples)]
        verdicts = iter(self._run_gate(jobs))
        return [[self._judged(group.parent, sample, next(verdicts)) for sample in group.samples] for group in groups]

    def step_summary(self, rows: list[dict]) -> dict:
        return {"best_ratio": self.best_ratio(), "accepted": sum(row.get("accepted", False) for row in rows)}

    def postfix(self) -> dict[str, str]:
        return {"best": f"{self.best_ratio():.4f}"}

    def finished(self) -> bool:
        return False

    def resume_settings(self) -> dict:
        return {"design": self.design.name, "rtl": [rtl_digest(path) for path in self.design.rtl],
                "mode": self.mode, "pdk": self.pdk.name,
                "flow": hashlib.sha256(repr(replace(self.flow, budget=0)).encode()).hexdigest()}

    def save(self, folder: Path) -> None:
        (folder / "run_state.json").write_text(json.dumps(to_jsonable(self.state)))

    def load(self, folder: Path) -> None:
        self.state = RunState(**json.loads((folder / "run_state.json").read_text()))

    # ------------------------------------------------------------------ judging candidates

    def _gate_job(self, sample: Sample, recipe: str, folder: Path) -> GateJob | None:
        if not sample.sources:
            return None
        paths = write_sources(self.design, sample.sources, folder)
        synthesis = None if recipe == DEFAULT_RECIPE else recipe_options(self.flow.gate.evaluation.synthesis, recipe)
        return GateJob(self.design, paths, self.pdk, self.flow.gate, self.cache_path, self.sandbox,
                       synthesis=synthesis)

    def _run_gate(self, jobs: list[GateJob | None]) -> list[Verdict | None]:
        """Verdicts in job order; a candidate proposed twice in one step is judged once."""
        keys = [job.key() if job is not None else None for job in jobs]  # a key hashes the files: once each
        unique = {key: job for key, job in zip(keys, jobs) if job is not None}
        verdicts = dict(zip(unique, self.executor.map(list(unique.values()))))
        return [verdicts[key] if key is not None else None for key in keys]

    def _judgement(self, sample: Sample, verdict: Verdict | None) -> Judgement:
        floor = self.flow.ratio_floor
        if verdict is None:
            reason = sample.text if sample.action else "the completion holds no Verilog module"
            return Judgement(False, "parse", "none", f"no candidate RTL: {reason}",
                             rejected_reward(NO_MODULE_CREDIT, floor))
        if verdict.accepted and verdict.ppa and verdict.reference_ppa:
            ratio = verdict.ppa.normalised_to(verdict.reference_ppa, self.objective)
            return Judgement(True, verdict.stage, verdict.level, verdict.reason, accepted_reward(ratio, floor),
                             to_jsonable(verdict.ppa), ratio, verdict.wall_s)
        return Judgement(False, verdict.stage, verdict.level, verdict.reason, rejected_reward(verdict.reward, floor),
                         wall_s=verdict.wall_s)

    def _judged(self, parent: PoolState, sample: Sample, verdict: Verdict | None) -> Judged:
        """The candidate's reward and row; accepted, it is a new state, rejected, feedback for its parent."""
        judgement, recipe = self._judgement(sample, verdict), _recipe(sample, parent)
        self.state.judged.append(source_hash(sample.sources, recipe))
        row = {"kind": "candidate", "action": sample.action, "recipe": recipe, **asdict(judgement),
               **self._calls(sample, verdict)}
        if judgement.accepted:
            unreportable = judgement.level != "proven" and not self.accept_unproven
            child = PoolState("", dict(sample.sources), judgement.reward, level=judgement.level, ppa=judgement.ppa,
                              recipe=recipe, exhausted=unreportable, metadata={"action": sample.action})
            return Judged(judgement.reward, row, child)
        feedback = parent.metadata.setdefault("feedback", [])
        feedback.append(f"{sample.action or 'candidate'}: {judgement.stage}: {judgement.reason}")
        del feedback[:-self.flow.feedback_lines]
        return Judged(judgement.reward, row)

    def _calls(self, sample: Sample, verdict: Verdict | None) -> dict[str, bool]:
        """What judging the candidate cost, whatever the cache held: a gate call; a verification of
        RTL the run had not verified (a recipe of a verified RTL shares its proofs); a synthesis
        (every candidate that reached PPA measurement)."""
        if verdict is None:
            return {"gate_call": False, "verification": False, "synthesis": False}
        rtl = source_hash(sample.sources)
        verification = rtl not in self.state.verified
        if verification:
            self.state.verified.append(rtl)
        return {"gate_call": True, "verification": verification, "synthesis": verdict.accepted or verdict.stage == "ppa"}

    # ------------------------------------------------------------------ the run

    def run(self, resume: bool = False) -> PoolState:
        """Steps until the budget is spent or nothing new is left (the rest when resuming); returns the best state."""
        self.loop.run(resume)
        return self.best()

    @property
    def pool(self) -> Pool:
        return self.loop.pool

    def best(self) -> PoolState:
        """The state the run reports: the best proven one, or the best accepted one with `accept_unproven`."""
        return self.loop.pool.best(proven_only=not self.accept_unproven)

    def candidates_judged(self) -> int:
        """Candidates judged so far (the original does not count)."""
        return self.loop.state.spent

    def best_ratio(self) -> float:
        """The reported best state's PPA product over the reference's (1.0 for the original)."""
        return PPA(**self.best().ppa).normalised_to(PPA(**self.state.reference_ppa), self.objective)


def _recipe(sample: Sample, parent: PoolState) -> str:
    """The candidate's synthesis recipe: its own, or its parent's."""
    return parent.recipe if sample.recipe is None else sample.recipe
