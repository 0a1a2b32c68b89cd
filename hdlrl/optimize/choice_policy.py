"""The choose mode of a language model in `hdlrl optimize`: it picks from the embedded policy's menu.

The embedded rewrite policy (`hdlrl.optimize.rewrite_policy`) knows every concrete action of a
state: a rule option at one of its sites, at all of them, or another synthesis recipe (of the
recipe sequences, a mapper alone and those one edit from the state's recipe: a menu of 27,580
lines is beyond any prompt). Each is
described in words, and the model is shown the design, its PPA, the gate's feedback and that
menu. The policy is the model's own likelihood of answering with each line, renormalised over
the menu:

    pi(a | x) = exp(log p_LM(d_a | x)) / sum_b exp(log p_LM(d_b | x))

where d_a is action a's description (its answer tokens and the end of turn). Every candidate
is correct by construction up to the gate, so even a small model can only steer, never break
the design; the TTT objective (entropic advantages, a KL penalty to the model without its LoRA
adapter) teaches it which actions pay on this design:

    loss = -(1/N) sum_i A_i log pi(a_i | x_i) + beta * mean_x KL(pi(. | x) || pi_0(. | x))
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from collections.abc import Sequence
from typing import Protocol

import torch

from hdlrl.optimize.prompt import DesignState, choice_messages
from hdlrl.optimize.rewrite_policy import Placement, RewritePolicy
from hdlrl.policy.factored_softmax import exact_kl
from hdlrl.ttt.protocol import Sample, UpdateStats


class MenuScorer(Protocol):
    """What the choose mode needs of a language model (`hdlrl.policy.hf.HuggingFacePolicy` has it)."""

    name: str

    def continuation_logprobs(self, messages: list[dict[str, str]], continuations: list[str]) -> torch.Tensor: ...

    def without_adapter(self) -> contextlib.AbstractContextManager: ...

    def optimizer_step(self) -> float: ...

    def save(self, folder: Path) -> None: ...

    def load(self, folder: Path) -> None: ...


class ChoicePolicy:
    """The language model's LoRA adapter is what learns; the menu (the embedded rewrite policy) does not."""

    trainable = True

    def __init__(self, language_model: MenuScorer, menu: RewritePolicy | None = None):
        self.language_model = language_model
        self.menu = menu or RewritePolicy()
        self.name = f"choose:{language_model.name}"

    def log_policy(self, state: DesignState, entries: Sequence[Placement]) -> torch.Tensor:
        """log pi(a | x) over the menu, with gradients where enabled."""
        lines = [entry.words for entry in entries]
        return torch.log_softmax(self.language_model.continuation_logprobs(choice_messages(state, lines), lines), dim=0)

    def sample(self, state: DesignState, k: int, rng_seed: int) -> list[Sample]:
        """Up to `k` new candidates drawn without replacement from pi (fewer: the state is exhausted)."""
        entries = self.menu.menu(state, every_sequence=False)
        with torch.no_grad():
            log_probabilities = self.log_policy(state, entries)
        return self.menu.draw(state, entries, log_probabilities, k, rng_seed)

    def update(self, state_samples: list[tuple[DesignState, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One Adam step of the module docstring's loss, one state at a time."""
        groups = []
        for (state, samples), group_advantages in zip(state_samples, advantages, strict=True):
            entries = self.menu.menu(state, every_sequence=False)
            chosen = [(position, advantage) for sample, advantage in zip(samples, group_advantages, strict=True)
                      if (position := self.menu.position(entries, sample)) is not None]
            if chosen:
                groups.append((state, entries, chosen))
        count = sum(len(chosen) for _, _, chosen in groups)
        if not count:
            return UpdateStats()
        loss_total = kl_total = 0.0
        before = []
        for state, entries, chosen in groups:
            with torch.no_grad(), self.language_model.without_adapter():
                base = self.log_policy(state, entries)
            log_policy = self.log_policy(state, entries)
            kl = exact_kl(log_policy, base)
            loss = (-sum(advantage * log_policy[position] for position, advantage in chosen) / count
                    + kl_coef * kl / len(groups))
            loss.backward()
            loss_total += loss.item()
            kl_total += kl.item()
            before.append(log_policy.detach())
        grad_norm = self.language_model.optimizer_step()
        with torch.no_grad():
            step_kl = sum(exact_kl(old, self.log_policy(state, entries)).item()
                          for (state, entries, _), old in zip(groups, before))
        return UpdateStats(loss=loss_total, kl=kl_total / len(groups), step_kl=step_kl / len(groups),
                           grad_norm=grad_norm, samples=count)

    def save(self, folder: Path) -> None:
        self.language_model.save(folder)

    def load(self, folder: Path) -> None:
        self.language_model.load(folder)

