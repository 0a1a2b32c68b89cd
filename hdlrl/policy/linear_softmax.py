"""A softmax linear in state features over a prior, trained like an LLM policy.

The embedded stimulus policy of `hdlrl cover` chooses among named actions, only some of them
available in a state, some standing for more concrete choices than others, with logits linear
in a few features of the state on top of a prior b(x) that the state sets (-inf: not available):

    pi(a | x) = softmax_a(W x + b_a(x))

and learns at test time by the objective the LLM policies use: advantage-weighted
log-likelihood with an exact KL penalty to the initial policy pi_0 (W = 0: softmax_a(b_a(x))),

    loss = -mean_i A_i sum_t log pi(a_it | x_i) + kl_coef * mean_x KL(pi(. | x) || pi_0(. | x)),

where a sample may take several actions in a row (a stimulus program's segments), each
drawn from the same pi(. | x).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from hdlrl.ttt.protocol import UpdateStats


@dataclass
class Decision:
    """What one state offered and what its samples chose, for an update."""

    features: list[float]
    prior: list[float]  # per action: b_a(x), -inf where not available
    choices: list[tuple[list[int], float]]  # per sample: the action indices it took, its advantage


class LinearSoftmax:
    def __init__(self, actions: list[str], feature_width: int, learning_rate: float):
        self.actions = actions
        self.weights = torch.zeros(len(actions), feature_width, requires_grad=True)  # zero: uniform at start
        self.optimizer = torch.optim.Adam([self.weights], lr=learning_rate, betas=(0.9, 0.95))

    def log_policy(self, features: list[float], prior: list[float],
                   weights: torch.Tensor | None = None) -> torch.Tensor:
        """log pi(action | x), -inf for the actions not available."""
        logits = (self.weights if weights is None else weights) @ torch.tensor(features)
        return torch.log_softmax(logits + torch.tensor(prior), dim=0)

    def update(self, decisions: list[Decision], kl_coef: float) -> UpdateStats:
        """One Adam step on the loss of the module docstring."""
        policy_terms, kl_terms = [], []
        for decision in decisions:
            log_policy = self.log_policy(decision.features, decision.prior)
            initial = torch.log_softmax(torch.tensor(decision.prior), dim=0)
            available = initial > -math.inf
            kl_terms.append((log_policy.exp()[available] * (log_policy[available] - initial[available])).sum())
            for indices, advantage in decision.choices:
                policy_terms.append(-advantage * log_policy[indices].sum())
        if not policy_terms:
            return UpdateStats()
        kl = torch.stack(kl_terms).mean()
        loss = torch.stack(policy_terms).mean() + kl_coef * kl
        before = self.weights.detach().clone()
        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = float(self.weights.grad.norm())
        self.optimizer.step()
        return UpdateStats(loss=float(loss.detach()), kl=float(kl.detach()),
                           step_kl=self._step_kl(decisions, before), grad_norm=grad_norm, samples=len(policy_terms))

    def _step_kl(self, decisions: list[Decision], before: torch.Tensor) -> float:
        """Mean over the states of KL(pi_before || pi_after): how far this step moved the policy."""
        divergences = []
        with torch.no_grad():
            for decision in decisions:
                old, new = (self.log_policy(decision.features, decision.prior, weights)
                            for weights in (before, self.weights))
                available = old > -math.inf
                divergences.append(float((old.exp()[available] * (old[available] - new[available])).sum()))
        return sum(divergences) / len(divergences)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        buffer = io.BytesIO()
        torch.save({"weights": self.weights.detach(), "optimizer": self.optimizer.state_dict(),
                    "actions": self.actions}, buffer)
        path.write_bytes(buffer.getvalue())

    def load(self, path: Path) -> None:
        saved = torch.load(path, weights_only=True)
        with torch.no_grad():
            self.weights.copy_(saved["weights"])
        self.optimizer.load_state_dict(saved["optimizer"])
