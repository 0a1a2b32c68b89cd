"""The one search loop of test-time training, shared by `hdlrl optimize`, `cover` and `summarize`.

TTT-Discover's sampler with a job's verifier. One step:
1. PUCT picks `groups` states from the pool (lineages blocked within the batch, exhausted
   states skipped; `initial_only` expands the initial state alone: best-of-n sampling);
2. the policy samples `group_size` proposals from each, shown the state as the job presents
   it; a state it has fewer proposals for than asked is exhausted;
3. the job judges every proposal (in parallel where it can) and returns its reward, its
   history row and, when it is a state worth expanding later, that state;
4. new states join the pool and every proposal counts as a visit of its parent;
5. per-group advantages and, when `update`, one policy update with the KL coefficient the
   controller set; the controller then reads the step's four signals (`hdlrl.ttt.update`);
6. with a run folder: the history and a checkpoint (pool, policy, loop and job state).

The job says what a state is, how a proposal is judged and what it earns (`Job`); the loop
knows none of it. Every random choice is seeded from (seed, step, group), so a killed run
resumes from its last checkpoint and repeats at most the step in flight.
"""

from __future__ import annotations

import json
import shutil
import sys
from contextlib import nullcontext
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from hdlrl.checkpoint import checkpoint_kept, disk_full_stops, open_run, write_checkpoint
from hdlrl.serialize import to_jsonable
from hdlrl.ttt.advantages import Method
from hdlrl.ttt.kl_control import KlControlConfig, KlControlState
from hdlrl.ttt.pool import Pool, PoolState
from hdlrl.ttt.protocol import Policy, Sample, State
from hdlrl.ttt.update import learn


@dataclass(frozen=True)
class LoopSettings:
    budget: int  # proposals judged before the run ends
    groups: int = 1  # states expanded per step
    group_size: int = 8  # proposals per state
    exploration: float = 1.0  # c of the PUCT score
    pool_size: int = 1000
    advantage: Method = "entropic"
    kl_control: KlControlConfig = field(default_factory=KlControlConfig)
    update: bool = True  # False: a frozen policy, search only
    initial_only: bool = False  # expand the initial state only (best-of-n sampling)


@dataclass
class Judged:
    """What the job makes of one proposal."""

    reward: float
    row: dict[str, Any]  # the proposal's history row
    child: PoolState | None = None  # a state for the pool (its id is the loop's to give)


@dataclass
class Group:
    """One expanded state: the pool state, what the policy was shown of it and what it proposed."""

    parent: PoolState
    shown: State
    samples: list[Sample]


class Job(Protocol):
    kind: str  # names the run's checkpoints ("optimize", "cover", "summarize")
    label: str  # the progress bar's
    unit: str  # what one proposal is called ("candidate", "program", "edit")

    def start(self) -> list[PoolState]:
        """The pool's initial states (their ids given)."""
        ...

    def view(self, state: PoolState, drawn: list[Group]) -> State:
        """What the policy is shown of `state`; `drawn` holds this step's earlier groups."""
        ...

    def judge(self, step: int, groups: list[Group]) -> list[list[Judged]]:
        """Every proposal of every group, judged, in order."""
        ...

    def step_summary(self, rows: list[dict]) -> dict[str, Any]:
        """The job's columns of the step's history row."""
        ...

    def postfix(self) -> dict[str, str]:
        """What the progress bar shows beside the count (the best so far)."""
        ...

    def finished(self) -> bool:
        """True when the job has reached its goal before the budget is spent."""
        ...

    def resume_settings(self) -> dict[str, Any]:
        """What a resumed run must share with the checkpoint it continues."""
        ...

    def save(self, folder: Path) -> None:
        """Write the job's own state into a checkpoint folder."""
        ...

    def load(self, folder: Path) -> None:
        """Restore what `save` wrote."""
        ...


@dataclass
class LoopState:
    """Everything a checkpoint holds of the loop besides the pool and the policy."""

    step: int = 0  # steps completed
    spent: int = 0  # proposals judged
    next_state_number: int = 1
    controller: KlControlState | None = None


def sampling_seed(seed: int, step: int, group: int) -> int:
    """The policy's seed for one group: fixed by the run's seed, the step and the group."""
    return (seed * 1_000_003 + step * 1_009 + group) % 2**31


def item_seed(seed: int, item: str) -> int:
    """The seed of one item's run (a design's) in a suite run with `seed`: the item's name mixed in.

    Without it, runs that share the suite's seed draw the same random numbers step by step, so
    designs whose menus have the same shape draw the same positions: a rare rewrite missed on one
    is missed on all of them, and one draw moves the suite's geometric mean several times over.
    """
    return (seed * 1_000_003 + zlib.crc32(item.encode())) % 2**31


class SearchLoop:
    def __init__(self, job: Job, policy: Policy, settings: LoopSettings, seed: int = 0,
                 run_dir: Path | None = None, progress: bool = True):
        self.job, self.policy, self.settings, self.seed = job, policy, settings, seed
        self.run_dir, self.progress = run_dir, progress
        self.pool = Pool(max_size=settings.pool_size)
        self.state = LoopState(controller=KlControlState.initial(settings.kl_control))

    # ------------------------------------------------------------------ one step

    def _select(self) -> list[PoolState]:
        """The states to expand this step; none when every state is exhausted."""
        if self.settings.initial_only:
            initial = next(state for state in self.pool.states.values() if state.initial)
            return [] if initial.exhausted else [initial] * self.settings.groups
        return self.pool.select(self.settings.groups, self.settings.exploration)

    def _sample(self, parents: list[PoolState], step: int) -> list[Group]:
        """Each parent's proposals, within what is left of the budget."""
        left, groups = self.settings.budget - self.state.spent, []
        for number, parent in enumerate(parents):
            request = min(self.settings.group_size, left)
            if request <= 0:
                break
            shown = self.job.view(parent, groups)
            samples = self.policy.sample(shown, request, sampling_seed(self.seed, step, number))
            if len(samples) < request:
                parent.exhausted = True
            left -= len(samples)
            groups.append(Group(parent, shown, samples))
        return groups

    def _add(self, child: PoolState, parent: PoolState, step: int) -> str:
        """Add a new state under `parent`; the id of the pool's state for it (an earlier one when known)."""
        child.id, child.parent, child.step = f"s{self.state.next_state_number:05d}", parent.id, step
        self.state.next_state_number += 1
        return self.pool.add(child).id

    def step(self, step: int) -> list[dict]:
        """Run step `step`; its history rows (proposals, then the step's row), none when no state is left."""
        started = time.perf_counter()
        groups = self._sample(self._select(), step)
        if not groups:
            return []
        rows, rewards = [], []
        for number, (group, judged) in enumerate(zip(groups, self.job.judge(step, groups))):
            for index, verdict in enumerate(judged):
                state_id = self._add(verdict.child, group.parent, step) if verdict.child is not None else ""
                rows.append({"kind": "proposal", "step": step, "group": number, "sample": index,
                             "state_id": state_id, "parent_id": group.parent.id, **verdict.row})
            rewards.append([verdict.reward for verdict in judged])
            self.pool.record_expansion(group.parent.id, rewards[-1])
        self.state.spent += sum(len(group.samples) for group in groups)
        learned = learn(self.policy, [(group.shown, group.samples) for group in groups], rewards,
                        self.settings.advantage, self.state.controller, self.settings.kl_control,
                        self.settings.update)
        self.state.controller = learned.controller
        rows.append({"kind": "step", "step": step, **self.job.step_summary(rows), **learned.controller.to_dict(),
                     "loss": learned.stats.loss if learned.stats else 0.0,
                     "kl": learned.stats.kl if learned.stats else 0.0,
                     "constant_groups": learned.advantages.constant_groups,
                     "candidates": sum(len(group.samples) for group in groups),
                     "wall_s": time.perf_counter() - started})
        return rows

    # ------------------------------------------------------------------ checkpoints

    def _settings(self) -> dict:
        return {**self.job.resume_settings(), "policy": self.policy.name, "seed": self.seed,
                "loop": to_jsonable(asdict(self.settings) | {"budget": 0})}

    def _checkpoint(self, rows: list[dict]) -> None:
        def save(folder: Path) -> None:
            self.pool.save(folder / "pool.json")
            self.policy.save(folder / "policy")
            (folder / "loop_state.json").write_text(json.dumps(to_jsonable(self.state)))
            self.job.save(folder)

        folder = write_checkpoint(self.run_dir, self.job.kind, self.state.step - 1, rows, self._settings(), save)
        shutil.copyfile(folder / "pool.json", self.run_dir / "pool.json")

    def _load(self, folder: Path) -> None:
        """Continue from a checkpoint folder that `hdlrl.checkpoint` checked."""
        self.pool = Pool.load(folder / "pool.json")
        self.policy.load(folder / "policy")
        data = json.loads((folder / "loop_state.json").read_text())
        self.state = LoopState(**{**data, "controller": KlControlState.from_dict(data["controller"])})
        self.job.load(folder)

    # ------------------------------------------------------------------ the run

    def run(self, resume: bool = False) -> list[dict]:
        """Steps until the budget is spent, the job is finished or no state has a new proposal left
        (the rest when resuming); the history rows of this call's steps."""
        folder = open_run(self.run_dir, self.job.kind, self._settings(), resume) if self.run_dir else None
        if folder is None:
            for state in self.job.start():
                self.pool.add(state)
        else:
            self._load(folder)
        bar = tqdm(initial=self.state.spent, total=self.settings.budget, desc=self.job.label, unit=self.job.unit,
                   disable=not self.progress)
        history = []
        while self.state.spent < self.settings.budget and not self.job.finished():
            with disk_full_stops(self.run_dir, checkpoint_kept(self.state.step - 1)) if self.run_dir else nullcontext():
                rows = self.step(self.state.step)
                if not rows:
                    bar.write(f"{self.job.label}: no state has a new {self.job.unit} left "
                              f"after {self.state.spent} {self.job.unit}s", file=sys.stderr)  # stdout may be JSON
                    break
                self.state.step += 1
                history += rows
                if self.run_dir:
                    self._checkpoint(rows)
            bar.update(self.state.spent - bar.n)
            bar.set_postfix(self.job.postfix())
        bar.close()
        return history
