"""The test-time-training loop of `hdlrl optimize`: expand, verify, score, learn, checkpoint.

Steps are taken until `budget` candidates are judged. One step (TTT-Discover's sampler with
TTT-RTL's verifier):
1. PUCT picks `groups` states from the pool (lineages blocked within the batch, exhausted
   states skipped);
2. the policy samples `group_size` candidates from each, shown the gate's reasons for that
   state's failed children and every candidate judged so far, so it need not repeat one;
   a state it has fewer new candidates for is exhausted;
3. the gate judges every candidate in parallel through the bridge's executor (cached);
4. rewards: -ln(PPA ratio) when accepted, below every accepted reward when not;
5. accepted candidates join the pool, every expansion counts as a visit;
6. per-group advantages (entropic by default) and, unless frozen, one policy update with the
   KL coefficient the controller set; the controller then reads the step's four signals;
7. the history, the pool and a checkpoint (pool, policy, controller, step) are written.

A killed run resumes from the last checkpoint and repeats at most the step in flight: every
random choice is seeded from (seed, step, group), and the gate's verdicts come from the cache.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from tqdm import tqdm

from hdlrl.checkpoint import checkpoint_kept, disk_full_stops, open_run, write_checkpoint
from hdlrl.design import Design
from hdlrl.eda.synth.recipes import DEFAULT_RECIPE, recipe_options
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import rtl_digest
from hdlrl.evaluate.executors import Executor
from hdlrl.evaluate.result import PPA
from hdlrl.hdl.mutants import relative_name, write_sources
from hdlrl.optimize.optimize_flow import OptimizeFlow
from hdlrl.ttt.kl_control import KlControlState
from hdlrl.ttt.update import learn
from hdlrl.ttt.pool import Pool, PoolState, source_hash
from hdlrl.optimize.reward import accepted_reward, rejected_reward
from hdlrl.pdk import Pdk
from hdlrl.optimize.prompt import DesignState
from hdlrl.ttt.protocol import Policy, Sample
from hdlrl.serialize import to_jsonable
from hdlrl.verify.gate import Verdict
from hdlrl.verify.job import GateJob, run_gate_job

MODES = ("ttt", "frozen", "best-of-n")  # learn and search; search only; sample the original only


@dataclass
class Judgement:
    """What the loop keeps of one candidate's verdict."""

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
    """Everything a checkpoint holds besides the pool and the policy."""

    step: int = 0  # steps completed
    controller: KlControlState | None = None
    next_state_number: int = 1
    reference_ppa: dict | None = None
    judged: list[str] = field(default_factory=list)  # source_hash of every candidate judged, the original first


class OptimizeRun:
    def __init__(self, design: Design, policy: Policy, pdk: Pdk, flow: OptimizeFlow, run_dir: Path,
                 executor: Executor, cache_path: Path | None, seed: int = 0, mode: str = "ttt",
                 sandbox: bool | None = None, progress: bool = True, accept_unproven: bool = False):
        self.design, self.policy, self.pdk, self.flow = design, policy, pdk, flow
        # Unproven states (bounded, simulated) are searched from, but reported as the run's best
        # only when the user opts in: a policy finds any way past a bounded check.
        self.accept_unproven = accept_unproven
        self.run_dir, self.executor, self.cache_path = run_dir, executor, cache_path
        self.seed, self.mode, self.sandbox, self.progress = seed, mode, sandbox, progress
        self.objective = flow.objective or design.objective
        self.original = {relative_name(design, path): path.read_text(errors="replace") for path in design.rtl}
        self.pool = Pool(max_size=flow.pool_size)
        self.state = RunState(controller=KlControlState.initial(flow.kl_control))

    # ------------------------------------------------------------------ judging candidates

    def _judge(self, samples: list[Sample], verdicts: list[Verdict | None]) -> list[Judgement]:
        judged = []
        for sample, verdict in zip(samples, verdicts):
            if verdict is None:
                reason = sample.text if sample.action else "the completion holds no Verilog module"
                judged.append(Judgement(False, "parse", "none", f"no candidate RTL: {reason}",
                                        rejected_reward(0.0, self.flow.ratio_floor)))
            elif verdict.accepted and verdict.ppa and verdict.reference_ppa:
                ratio = verdict.ppa.normalised_to(verdict.reference_ppa, self.objective)
                judged.append(Judgement(True, verdict.stage, verdict.level, "",
                                        accepted_reward(ratio, self.flow.ratio_floor),
                                        to_jsonable(verdict.ppa), ratio, verdict.wall_s))
            else:
                judged.append(Judgement(False, verdict.stage, verdict.level, verdict.reason,
                                        rejected_reward(verdict.reward, self.flow.ratio_floor),
                                        wall_s=verdict.wall_s))
        return judged

    def _gate_jobs(self, samples: list[Sample], recipes: list[str], folder: Path) -> list[GateJob | None]:
        jobs: list[GateJob | None] = []
        for index, (sample, recipe) in enumerate(zip(samples, recipes)):
            if not sample.sources:
                jobs.append(None)
                continue
            paths = write_sources(self.design, sample.sources, folder / f"candidate_{index:03d}")
            synthesis = None if recipe == DEFAULT_RECIPE else recipe_options(self.flow.gate.evaluation.synthesis, recipe)
            jobs.append(GateJob(self.design, paths, self.pdk, self.flow.gate, self.cache_path, self.sandbox,
                                synthesis=synthesis))
        return jobs

    def _run_gate(self, jobs: list[GateJob | None]) -> list[Verdict | None]:
        """Verdicts in job order; a candidate proposed twice in one step is judged once."""
        keys = [job.key() if job is not None else None for job in jobs]  # a key hashes the files: once each
        unique = {key: job for key, job in zip(keys, jobs) if job is not None}
        verdicts = dict(zip(unique, self.executor.map(list(unique.values()))))
        return [verdicts[key] if key is not None else None for key in keys]

    # ------------------------------------------------------------------ the pool

    def _new_id(self) -> str:
        state_id = f"s{self.state.next_state_number:05d}"
        self.state.next_state_number += 1
        return state_id

    def _design_state(self, state: PoolState, known: frozenset[str]) -> DesignState:
        return DesignState(self.design.name, self.design.top, self.design.description, dict(state.sources),
                           state.ppa, self.state.reference_ppa,
                           list(state.metadata.get("feedback", []))[-self.flow.feedback_lines:], state.id,
                           state.recipe, known)

    def _start(self) -> None:
        """The original RTL, judged by the gate like any candidate, is the pool's initial state."""
        job = GateJob(self.design, self.design.rtl, self.pdk, self.flow.gate, self.cache_path, self.sandbox)
        verdict = run_gate_job(job)
        if not verdict.accepted or verdict.ppa is None:
            raise HdlrlError(f"the reference does not pass its own gate ({verdict.stage}: {verdict.reason})",
                             self.design.root / "design.yaml")
        self.state.reference_ppa = to_jsonable(verdict.ppa)
        self.state.judged = [source_hash(self.original)]
        self.pool.add(PoolState("s00000", dict(self.original), accepted_reward(1.0, self.flow.ratio_floor),
                                level=verdict.level, ppa=self.state.reference_ppa, initial=True))

    # ------------------------------------------------------------------ one step

    def _select(self) -> list[PoolState]:
        """The states to expand this step; none when every state is exhausted."""
        if self.mode == "best-of-n":
            initial = next(state for state in self.pool.states.values() if state.initial)
            return [] if initial.exhausted else [initial] * self.flow.groups
        return self.pool.select(self.flow.groups, self.flow.exploration)

    def _sample_groups(self, parents: list[PoolState], step: int) -> list[tuple[PoolState, DesignState, list[Sample]]]:
        """Each parent's samples, within what is left of the budget; each group is shown the
        candidates judged before and drawn earlier this step.

        A parent that yields fewer samples than asked has nothing new left: it is exhausted.
        """
        known, left = set(self.state.judged), self.flow.budget - self.candidates_judged()
        groups = []
        for group, parent in enumerate(parents):
            request = min(self.flow.group_size, left)
            if request <= 0:
                break
            design_state = self._design_state(parent, frozenset(known))
            samples = self.policy.sample(design_state, request,
                                         rng_seed=(self.seed * 1_000_003 + step * 1_009 + group) % 2**31)
            if len(samples) < request:
                parent.exhausted = True
            known |= {source_hash(sample.sources, self._recipe(sample, parent)) for sample in samples}
            left -= len(samples)
            groups.append((parent, design_state, samples))
        return groups

    @staticmethod
    def _recipe(sample: Sample, parent: PoolState) -> str:
        return parent.recipe if sample.recipe is None else sample.recipe

    def step(self, step: int) -> list[dict]:
        """Run step `step`; returns its history rows (candidates, then the step summary), none when
        no state is left to expand."""
        started = time.perf_counter()
        parents = self._select()
        if not parents:
            return []
        folder = self.run_dir / "candidates" / f"step_{step:04d}"
        shutil.rmtree(folder, ignore_errors=True)
        groups = self._sample_groups(parents, step)
        jobs: list[GateJob | None] = []
        for group, (parent, _, samples) in enumerate(groups):
            jobs += self._gate_jobs(samples, [self._recipe(sample, parent) for sample in samples],
                                    folder / f"group_{group:02d}")
        judged = iter(self._judge([sample for _, _, samples in groups for sample in samples], self._run_gate(jobs)))

        rows, rewards = [], []
        for group, (parent, _, samples) in enumerate(groups):
            group_rewards = []
            for index, sample in enumerate(samples):
                judgement = next(judged)
                recipe = self._recipe(sample, parent)
                self.state.judged.append(source_hash(sample.sources, recipe))
                group_rewards.append(judgement.reward)
                state_id = ""
                if judgement.accepted:
                    child = self.pool.add(PoolState(self._new_id(), dict(sample.sources), judgement.reward,
                                                    parent=parent.id, level=judgement.level, ppa=judgement.ppa,
                                                    step=step, recipe=recipe, metadata={"action": sample.action}))
                    state_id = child.id
                else:
                    feedback = parent.metadata.setdefault("feedback", [])
                    feedback.append(f"{sample.action or 'candidate'}: {judgement.stage}: {judgement.reason}")
                    del feedback[:-self.flow.feedback_lines]
                rows.append({"kind": "candidate", "step": step, "group": group, "sample": index,
                             "state_id": state_id, "parent_id": parent.id, "action": sample.action,
                             "recipe": recipe, **asdict(judgement)})
            self.pool.record_expansion(parent.id, group_rewards)
            rewards.append(group_rewards)

        learned = learn(self.policy, [(design_state, samples) for _, design_state, samples in groups], rewards,
                        self.flow.advantage, self.state.controller, self.flow.kl_control, self.mode == "ttt")
        self.state.controller, stats, advantages = learned.controller, learned.stats, learned.advantages
        rows.append({"kind": "step", "step": step, "best_ratio": self.best_ratio(), **self.state.controller.to_dict(),
                     "loss": stats.loss if stats else 0.0, "kl": stats.kl if stats else 0.0,
                     "constant_groups": advantages.constant_groups,
                     "accepted": sum(row["accepted"] for row in rows), "candidates": len(rows),
                     "wall_s": time.perf_counter() - started})
        return rows

    # ------------------------------------------------------------------ checkpoints

    def _checkpoint(self, step: int, rows: list[dict]) -> None:
        def save(folder: Path) -> None:
            self.pool.save(folder / "pool.json")
            self.policy.save(folder / "policy")
            (folder / "run_state.json").write_text(json.dumps(to_jsonable(self.state)))

        folder = write_checkpoint(self.run_dir, "optimize", step, rows, self._settings(), save)
        shutil.copyfile(folder / "pool.json", self.run_dir / "pool.json")

    def _settings(self) -> dict:
        """What a resumed run must share with the checkpoint it continues."""
        return {"design": self.design.name, "rtl": [rtl_digest(path) for path in self.design.rtl],
                "policy": self.policy.name, "seed": self.seed, "mode": self.mode, "pdk": self.pdk.name,
                "flow": hashlib.sha256(repr(replace(self.flow, budget=0)).encode()).hexdigest()}

    def _load(self, folder: Path) -> None:
        """Continue from a checkpoint folder that `hdlrl.checkpoint` checked."""
        self.pool = Pool.load(folder / "pool.json")
        self.policy.load(folder / "policy")
        data = json.loads((folder / "run_state.json").read_text())
        self.state = RunState(**{**data, "controller": KlControlState.from_dict(data["controller"])})

    # ------------------------------------------------------------------ the run

    def run(self, resume: bool = False) -> PoolState:
        """Steps until the budget is spent or nothing new is left (the rest when resuming); returns the best state."""
        folder = open_run(self.run_dir, "optimize", self._settings(), resume)
        if folder is None:
            self._start()
        else:
            self._load(folder)
        bar = tqdm(initial=self.candidates_judged(), total=self.flow.budget, desc=f"optimize {self.design.name}",
                   unit="candidate", disable=not self.progress)
        while self.candidates_judged() < self.flow.budget:
            with disk_full_stops(self.run_dir, checkpoint_kept(self.state.step - 1)):  # candidates, pool.json too
                rows = self.step(self.state.step)
                if not rows:
                    bar.write(f"optimize {self.design.name}: no state has a new candidate left "
                              f"after {self.candidates_judged()} candidates")
                    break
                self.state.step += 1
                self._checkpoint(self.state.step - 1, rows)
            bar.update(self.candidates_judged() - bar.n)
            bar.set_postfix(best=f"{self.best_ratio():.4f}")
        bar.close()
        return self.best()

    def best(self) -> PoolState:
        """The state the run reports: the best proven one, or the best accepted one with `accept_unproven`."""
        return self.pool.best(proven_only=not self.accept_unproven)

    def candidates_judged(self) -> int:
        """Candidates judged so far (the original does not count)."""
        return len(self.state.judged) - 1

    def best_ratio(self) -> float:
        """The reported best state's PPA product over the reference's (1.0 for the original)."""
        return PPA(**self.best().ppa).normalised_to(PPA(**self.state.reference_ppa), self.objective)
