"""What every policy takes and returns, so the search loop never asks which one runs.

A policy is shown a `State` and proposes k `Sample`s. The job owns its state type and says,
through the state, what a language model is asked (`messages`) and how a completion becomes
a candidate (`sources_from`): `hdlrl optimize` shows a design's RTL (`optimize.prompt.DesignState`),
`hdlrl cover` the coverage holes (`cover.prompt.CoverState`), `hdlrl summarize` one edit of a
summary (`summarize.prompt.SummaryState`). A policy therefore never imports a job.

The loop has the job judge the samples, turns the rewards into advantages and hands them
back to `update`. A frozen policy (a rule-based rewriter, a remote LLM) ignores the update;
a trainable one (a local LLM with a LoRA adapter) takes one optimiser step and reports it
in `UpdateStats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class State(Protocol):
    """One node of a job's search, as a policy sees it."""

    state_id: str

    def messages(self) -> list[dict[str, str]]:
        """The chat a language model is shown, in the role/content shape of chat templates and APIs."""
        ...

    def sources_from(self, completion: str) -> dict[str, str]:
        """The candidate's files read from a completion; empty when it holds none (or the job reads
        the completion's text itself, as stimulus programs and summaries are)."""
        ...


@dataclass
class Sample:
    """One proposal for a state and what the policy needs to learn from it later."""

    sources: dict[str, str]  # the candidate's files; empty when the completion held no module
    text: str  # the raw completion, or a description of the action taken
    logprob: float | None = None  # sum of the generated tokens' log-probs; None for policies without one
    action: str | None = None  # the action's name, for policies that are not language models
    metadata: dict[str, Any] = field(default_factory=dict)
    recipe: str | None = None  # the candidate's synthesis recipe; None: its state's


@dataclass
class UpdateStats:
    """One update step, for the run's history; all zeros for a frozen policy."""

    loss: float = 0.0
    kl: float = 0.0  # mean per-token KL(policy || frozen base = the initial policy): the reference KL
    step_kl: float = 0.0  # mean per-token KL(policy before the step || after it): the step's size
    grad_norm: float = 0.0  # before clipping
    samples: int = 0  # samples the step learned from


class Policy(Protocol):
    name: str
    trainable: bool

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        """`k` proposals for `state`; the same seed gives the same samples.

        Fewer than `k` means the policy has nothing new to propose for this state (it is
        then never expanded again).
        """
        ...

    def update(self, state_samples: list[tuple[State, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One step towards the samples with positive advantage (`advantages[i][j]` is sample j of state i)."""
        ...

    def save(self, folder: Path) -> None:
        """Write what `load` needs to resume (adapter weights and optimiser state); nothing when frozen."""
        ...

    def load(self, folder: Path) -> None:
        """Restore what `save` wrote into this policy."""
        ...
