"""The pool of states that test-time training improves, chosen by PUCT (TTT-Discover).

A state is what a job searches over (a design's RTL and recipe, a design under stimulus, a
partial summary). Every state found so far stays in the pool; each step, rollouts start from the top of an
upper-confidence score, so good states are revisited while rarely tried ones still get a turn,
and one batch never spends two groups on the same line of descent.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx

from hdlrl.eda.synth.recipes import DEFAULT_RECIPE
from hdlrl.hdl.lexer import normalise
from hdlrl.ttt.advantages import average_ranks


def puct_score(q: float, prior: float, visits: int, total_visits: int, scale: float, exploration: float) -> float:
    """score(i) = Q(i) + c * scale * P(i) * sqrt(1 + T) / (1 + n(i)).

    The bonus is in reward units (scale), grows slowly with all expansions T and shrinks with
    the state's own expansions n(i); c is `exploration`.
    """
    return q + exploration * scale * prior * math.sqrt(1 + total_visits) / (1 + visits)


def rank_prior(rewards: list[float]) -> list[float]:
    """P(i) = rho(i) / (N (N + 1) / 2), rho(i) the ascending rank (worst 1, best N, ties share their mean).

    Linear in rank, so the best of N states gets N times the worst one's prior whatever the
    reward gaps; the priors sum to 1.
    """
    count = len(rewards)
    return [rank / (count * (count + 1) / 2) for rank in average_ranks(rewards)]


def source_hash(sources: dict[str, str], recipe: str = DEFAULT_RECIPE) -> str:
    """sha256 of the sorted (file name, normalised text) pairs and the synthesis recipe when it is
    not the flow's: comment or layout edits are one design, another recipe is another."""
    pairs: list = sorted((name, normalise(text)) for name, text in sources.items())
    if recipe != DEFAULT_RECIPE:
        pairs = [pairs, recipe]
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


@dataclass
class PoolState:
    """One state in the pool: its content, what the job judged of it and its PUCT statistics."""

    id: str
    sources: dict[str, str]  # a design's files (file name -> Verilog text); a summary's sections
    reward: float  # the job's reward (hdlrl/optimize/reward.py: every accepted design above every rejected one)
    parent: str | None = None
    accepted: bool = True
    level: str = ""  # proven, bounded, simulated or failed
    ppa: dict | None = None
    step: int = 0  # the loop step that produced it
    initial: bool = False
    recipe: str = DEFAULT_RECIPE  # the synthesis recipe its PPA was measured with (hdlrl/eda/synth/recipes.py)
    exhausted: bool = False  # never picked again: the policy had fewer new candidates for it than asked,
    # or the job has nothing to gain from it (an unproven design in `hdlrl optimize`)
    source_hash: str = ""  # the state's key: filled in by Pool.add unless the job keys its states itself
    visits: int = 0  # n(i): expansions of this state, failed ones included
    best_child_reward: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def q_value(self) -> float:
        """Q(i): the best reward among its children, its own reward until a child has one."""
        return self.reward if self.best_child_reward is None else self.best_child_reward


@dataclass
class Pool:
    """Design states by id (in insertion order), bounded by `max_size`, with T the total visits."""

    max_size: int = 1000
    total_visits: int = 0
    states: dict[str, PoolState] = field(default_factory=dict)
    ids_by_hash: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.ids_by_hash = {state.source_hash: state.id for state in self.states.values()}

    def add(self, state: PoolState) -> PoolState:
        """Add a state, or return the one with the same normalised sources.

        A duplicate adds no new state; when it scored higher (a proof that finished this time),
        the kept state takes its reward, acceptance, level and PPA. A new state that is the
        worst leaf of a full pool is evicted at once.
        """
        key = state.source_hash or source_hash(state.sources, state.recipe)
        known_id = self.ids_by_hash.get(key)
        if known_id is not None:
            known = self.states[known_id]
            if state.reward > known.reward:
                known.reward, known.accepted = state.reward, state.accepted
                known.level, known.ppa = state.level, state.ppa
            return known
        if state.id in self.states:
            raise ValueError(f"state id {state.id!r} is already in the pool with other sources")
        added = replace(state, source_hash=key)
        self.states[added.id] = added
        self.ids_by_hash[key] = added.id
        self._evict()
        return added

    def best(self, proven_only: bool = False) -> PoolState | None:
        """The highest-reward accepted state (the first added among equals); with `proven_only`,
        among the proven ones and the initial design (which is the reference itself)."""
        accepted = [state for state in self.states.values()
                    if state.accepted and (not proven_only or state.initial or state.level == "proven")]
        return max(accepted, key=lambda state: state.reward, default=None)

    def reward_scale(self) -> float:
        """max R - min R over the accepted non-initial states; 1.0 with fewer than two or no spread."""
        rewards = [state.reward for state in self.states.values() if state.accepted and not state.initial]
        spread = max(rewards) - min(rewards) if len(rewards) >= 2 else 0.0
        return spread if spread > 0 else 1.0

    def scores(self, exploration: float = 1.0) -> dict[str, float]:
        """PUCT score of each accepted state that is not exhausted: only verified designs are worth improving."""
        candidates = [state for state in self.states.values() if state.accepted and not state.exhausted]
        priors = rank_prior([state.reward for state in candidates])
        scale = self.reward_scale()
        return {
            state.id: puct_score(state.q_value, prior, state.visits, self.total_visits, scale, exploration)
            for state, prior in zip(candidates, priors)
        }

    def select(self, batch_size: int, exploration: float = 1.0) -> list[PoolState]:
        """The top-PUCT states for one batch, skipping the lineage of every state already picked.

        Ties go to the higher reward, then the earlier state. When blocking leaves fewer than
        `batch_size` states (at the start, only the initial one), the picks repeat in order, so
        the batch always has `batch_size` groups.
        """
        scores = self.scores(exploration)
        ranked = sorted(scores, key=lambda state_id: (scores[state_id], self.states[state_id].reward), reverse=True)
        lineages: nx.DiGraph | None = None  # built only when a second pick needs it
        picked: list[PoolState] = []
        blocked: set[str] = set()
        for state_id in ranked:
            if len(picked) == batch_size:
                break
            if state_id not in blocked:
                picked.append(self.states[state_id])
                if len(picked) < batch_size:
                    lineages = self.lineage_graph() if lineages is None else lineages
                    blocked |= {state_id} | nx.ancestors(lineages, state_id) | nx.descendants(lineages, state_id)
        return [picked[index % len(picked)] for index in range(batch_size)] if picked else []

    def record_expansion(self, parent_id: str, child_rewards: list[float | None]) -> None:
        """Count each child as one visit of the parent and of T, and keep the best child reward.

        None is a child with no reward (no parsable answer, a time-out); it still counts, so
        PUCT moves on from a state whose expansions keep failing. A rejected child's dense
        reward counts like any other: it is below every accepted one. A parent evicted
        meanwhile still counts toward T.
        """
        self.total_visits += len(child_rewards)
        parent = self.states.get(parent_id)
        if parent is None:
            return
        parent.visits += len(child_rewards)
        rewards = [reward for reward in child_rewards if reward is not None]
        if parent.best_child_reward is not None:
            rewards.append(parent.best_child_reward)
        if rewards:
            parent.best_child_reward = max(rewards)

    def save(self, path: Path) -> None:
        """Write the pool as JSON to a temporary file, then os.replace it: a crash leaves the old file whole."""
        path = Path(path)
        data = {
            "max_size": self.max_size,
            "total_visits": self.total_visits,
            "states": [asdict(state) for state in self.states.values()],
        }
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path) -> Pool:
        """The pool `save` wrote (equal to it, for JSON-typed PPA and metadata)."""
        data = json.loads(Path(path).read_text())
        states = {item["id"]: PoolState(**item) for item in data["states"]}
        return cls(max_size=data["max_size"], total_visits=data["total_visits"], states=states)

    def lineage_graph(self) -> nx.DiGraph:
        """The states, an edge from each to every child it has in the pool (an evicted parent breaks the line)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(self.states)
        graph.add_edges_from((state.parent, state.id) for state in self.states.values() if state.parent in self.states)
        return graph

    def _evict(self) -> None:
        """Drop the lowest-reward leaves until the pool fits `max_size`.

        Only a leaf (no child in the pool) goes, so no kept state loses its ancestors; initial
        states and the best state never go. With only those left the pool may stay above
        `max_size`.
        """
        best = self.best()
        while len(self.states) > self.max_size:
            parents = {state.parent for state in self.states.values()}
            leaves = [
                state
                for state in self.states.values()
                if state.id not in parents and not state.initial and state is not best
            ]
            if not leaves:
                return
            worst = min(leaves, key=lambda state: state.reward)
            del self.states[worst.id]
            del self.ids_by_hash[worst.source_hash]
