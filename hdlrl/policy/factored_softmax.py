"""A softmax over thousands of concrete actions that generalises across them: the optimiser's core.

A concrete action a (a rule option at one site, a synthesis recipe) belongs to a kind k(a) (the
rule option, the family of recipe sequences). The policy first picks a kind from the design's
features x, then an action of that kind from the action's own features psi(a) (its parameters:
which ABC commands a sequence holds, whether a rewrite applies at every site):

    pi(a | x) = pi(k(a) | x) * pi(a | k(a))
    pi(k | x) = softmax_k(W_k . x + ln ln(1 + n_k))  over the kinds with an action in the state
    pi(a | k) = softmax_{b in k}(theta . psi(b))      over the actions of kind k

theta is shared by every action, so a reward for one recipe moves every recipe with the same
commands: with tens of thousands of recipes, a policy that scored identities could not learn
from a budget of 64. n_k is the number of actions of kind k in the state: a kind's share at the
start grows with the logarithm of how many different actions it holds, so 27,580 recipe
sequences are tried more often than a rule with one site, but do not drown it as they would
under a uniform choice among actions. Training is the LLM policies' objective,
advantage-weighted log-likelihood with an exact KL penalty to the initial policy pi_0
(W = 0, theta = 0: that prior over the kinds, then uniform within each):

    loss = -mean_i A_i log pi(a_i | x_i) + kl_coef * mean_x KL(pi(. | x) || pi_0(. | x))

Everything is in float64. A group drawn from one kind has advantages that sum to zero, so its
gradient on the kind logits is zero; in float32 it is a rounding residual of about 1e-8, and
Adam, which divides each step by the gradient's own scale, turns that residual into a full step.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from hdlrl.errors import HdlrlError
from hdlrl.ttt.protocol import UpdateStats


@dataclass
class ActionTable:
    """One state's concrete actions as the softmax sees them (float64 tensors)."""

    features: torch.Tensor  # x: the state's features
    kinds: torch.Tensor  # per action: the index of its kind (long)
    parameters: torch.Tensor  # psi: per action, its feature row


@dataclass
class Decision:
    """What one state offered and which of its actions the samples took, with their advantages."""

    table: ActionTable
    choices: list[tuple[int, float]]


def _segment_log_softmax(scores: torch.Tensor, segments: torch.Tensor, count: int) -> torch.Tensor:
    """log softmax of `scores` within each segment (the actions of one kind)."""
    maxima = torch.full((count,), -math.inf, dtype=scores.dtype).scatter_reduce(0, segments, scores.detach(), "amax")
    shifted = scores - maxima[segments]
    totals = torch.zeros(count, dtype=scores.dtype).index_add(0, segments, shifted.exp())
    return shifted - totals.log()[segments]


class FactoredSoftmax:
    def __init__(self, kinds: list[str], feature_width: int, parameter_width: int, learning_rate: float):
        self.kinds = kinds
        self.kind_weights = torch.zeros(len(kinds), feature_width, dtype=torch.float64, requires_grad=True)  # W
        self.parameter_weights = torch.zeros(parameter_width, dtype=torch.float64, requires_grad=True)  # theta
        self.optimizer = torch.optim.Adam([self.kind_weights, self.parameter_weights], lr=learning_rate,
                                          betas=(0.9, 0.95))

    def log_policy(self, table: ActionTable, weights: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """log pi(a | x) of every action of the table (the module docstring's factorisation)."""
        kind_weights, parameter_weights = weights or (self.kind_weights, self.parameter_weights)
        kind_log_policy = torch.log_softmax(kind_weights @ table.features + self._kind_prior(table), dim=0)
        within = _segment_log_softmax(table.parameters @ parameter_weights, table.kinds, len(self.kinds))
        return kind_log_policy[table.kinds] + within

    def _kind_prior(self, table: ActionTable) -> torch.Tensor:
        """ln ln(1 + n_k) for the kinds with actions, -inf for the others."""
        sizes = torch.bincount(table.kinds, minlength=len(self.kinds)).double()
        return torch.log(torch.log1p(sizes))  # ln ln 1 = -inf: a kind with no action

    def initial_log_policy(self, table: ActionTable) -> torch.Tensor:
        """log pi_0(a | x) = log softmax_k(ln ln(1 + n_k)) - ln n_k(a)."""
        sizes = torch.bincount(table.kinds, minlength=len(self.kinds))
        kind_log_prior = torch.log_softmax(self._kind_prior(table), dim=0)
        return kind_log_prior[table.kinds] - sizes[table.kinds].double().log()

    def update(self, decisions: list[Decision], kl_coef: float) -> UpdateStats:
        """One Adam step on the loss of the module docstring."""
        policy_terms, kl_terms = [], []
        for decision in decisions:
            log_policy = self.log_policy(decision.table)
            kl_terms.append(exact_kl(log_policy, self.initial_log_policy(decision.table)))
            policy_terms += [-advantage * log_policy[index] for index, advantage in decision.choices]
        if not policy_terms:
            return UpdateStats()
        kl = torch.stack(kl_terms).mean()
        loss = torch.stack(policy_terms).mean() + kl_coef * kl
        before = (self.kind_weights.detach().clone(), self.parameter_weights.detach().clone())
        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = float(torch.cat([self.kind_weights.grad.flatten(), self.parameter_weights.grad]).norm())
        self.optimizer.step()
        with torch.no_grad():
            step_kl = sum(float(exact_kl(self.log_policy(decision.table, before), self.log_policy(decision.table)))
                          for decision in decisions) / len(decisions)
        return UpdateStats(loss=float(loss.detach()), kl=float(kl.detach()), step_kl=step_kl,
                           grad_norm=grad_norm, samples=len(policy_terms))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        torch.save({"kind_weights": self.kind_weights.detach(), "parameter_weights": self.parameter_weights.detach(),
                    "optimizer": self.optimizer.state_dict(), "kinds": self.kinds}, buffer)
        path.write_bytes(buffer.getvalue())

    def load(self, path: Path) -> None:
        saved = torch.load(path, weights_only=True)
        if saved["kinds"] != self.kinds or saved["parameter_weights"].shape != self.parameter_weights.shape:
            raise HdlrlError("the checkpoint's policy knows other actions (written by another version of hdlrl): "
                             "start the run again without --resume", path)
        with torch.no_grad():
            self.kind_weights.copy_(saved["kind_weights"])
            self.parameter_weights.copy_(saved["parameter_weights"])
        self.optimizer.load_state_dict(saved["optimizer"])


def exact_kl(log_p: torch.Tensor, log_q: torch.Tensor) -> torch.Tensor:
    """KL(p || q) = sum_a p(a) (log p(a) - log q(a)), exact over the state's actions."""
    return (log_p.exp() * (log_p - log_q)).sum()
