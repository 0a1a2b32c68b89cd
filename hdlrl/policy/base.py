"""What every policy takes and returns, so the search loops never ask which one runs.

A policy is shown a state and proposes k samples: rewrites of a design for `hdlrl optimize`
(a `DesignState`), stimulus programs for `hdlrl cover` (a `CoverState`, and each sample's
`text` a stimulus program in JSON, `hdlrl.cover.stimulus`), summaries for `hdlrl summarize`
(a `SummaryState`, each sample's `text` a summary; for the single shot a whole document
in the `Module:` / `Block N:` answer format of `hdlrl.policy.summary_prompt`).

The optimiser shows a policy a `DesignState` (a design's current RTL and what the gate said
about it), asks for `k` candidate rewrites (`Sample`s), has the gate score them, and hands
the scores back as advantages to `update`; the cover loop does the same with coverage gained. A frozen policy (a rule-based rewriter, a remote
LLM) ignores the update; a trainable one (a local LLM with a LoRA adapter) takes one
optimiser step and reports it in `UpdateStats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hdlrl.eda.synth.recipes import DEFAULT_RECIPE


@dataclass
class DesignState:
    """One node of the search: a design's RTL and synthesis recipe, its PPA and the gate's reasons
    for its failed children."""

    design_name: str
    top: str
    description: str
    sources: dict[str, str]  # file name (relative to the design folder) -> Verilog text
    ppa: dict[str, float] | None = None  # area_um2, delay_ns, power_mw of these sources; None: not measured
    reference_ppa: dict[str, float] | None = None  # the same for the design's reference RTL
    feedback: list[str] = field(default_factory=list)  # the gate's one-line reasons, one per failed child
    state_id: str = ""
    recipe: str = DEFAULT_RECIPE  # the synthesis recipe (hdlrl/eda/synth/recipes.py)
    # source_hash of every candidate the run has judged: a policy that can tell need not propose them again
    known: frozenset[str] = frozenset()


@dataclass
class CoverState:
    """What a stimulus policy (`hdlrl cover`) sees: the design, the inputs it may drive, and the
    coverage holes left, so that it can aim at them."""

    design_name: str
    description: str
    sources: dict[str, str]  # file name -> Verilog text
    inputs: dict[str, int]  # driven input -> width (the clocks are the harness's)
    reset: str | None  # the reset input, driven by the `reset` generator only
    coverage: dict[str, float | None]  # line, branch, toggle, functional: fraction so far
    uncovered: list[str]  # the coverage points and functional bins not hit yet, most useful first
    steering: dict[str, dict[str, int]] = field(default_factory=dict)  # uncovered item -> input values likely to hit it
    feedback: list[str] = field(default_factory=list)  # why the policy's last programs were refused
    state_id: str = ""


@dataclass
class SummaryState:
    """What a summary policy (`hdlrl summarize`) sees: a module, its facts, the summary so far, and
    the one edit the search asks for (`hdlrl.summarize.search.ACTIONS`)."""

    module: str
    source: str  # the module's Verilog text
    facts: Any  # hdlrl.hdl.facts.ModuleFacts
    action: str  # single_shot, refine_block, merge, context, compress
    document: Any  # hdlrl.summarize.document.Document: the summary so far
    block: int | None = None  # refine_block: which block
    children: dict[str, str] = field(default_factory=dict)  # instantiated module -> its summary
    child_behaviours: tuple[str, ...] = ()  # behaviours the children's summaries establish
    state_id: str = ""


State = DesignState | CoverState | SummaryState


@dataclass
class Sample:
    """One candidate rewrite of a state and what the policy needs to learn from it later."""

    sources: dict[str, str]  # the candidate's files; empty when the completion held no module
    text: str  # the raw completion, or a description of the action taken
    logprob: float | None = None  # sum of the generated tokens' log-probs; None for policies without one
    action: str | None = None  # the action's name, for policies that are not language models
    metadata: dict[str, Any] = field(default_factory=dict)
    recipe: str | None = None  # the candidate's synthesis recipe; None: its state's


@dataclass
class UpdateStats:
    """One update step, for the optimiser's log; all zeros for a frozen policy."""

    loss: float = 0.0
    kl: float = 0.0  # mean per-token KL(policy || frozen base = the initial policy): the reference KL
    step_kl: float = 0.0  # mean per-token KL(policy before the step || after it): the step's size
    grad_norm: float = 0.0  # before clipping
    samples: int = 0  # samples the step learned from


class Policy(Protocol):
    name: str
    trainable: bool

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        """`k` candidate rewrites of `state`; the same seed gives the same samples.

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
