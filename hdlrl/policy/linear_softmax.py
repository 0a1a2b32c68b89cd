"""A softmax linear in state features, trained like an LLM policy: the embedded policies' core.

Both embedded policies (architecture rewrites for `hdlrl optimize`, stimulus generators for
`hdlrl cover`) choose among named actions, only some of them available in a state, with
logits linear in a few features of the state:

    pi(a | x) = softmax_a(W x) over the available actions

and learn at test time by the objective the LLM policies use: advantage-weighted
log-likelihood with an exact KL penalty to the initial policy pi_0 (W = 0: uniform over the
available actions),

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
    available: list[bool]  # per action
    choices: list[tuple[list[int], float]]  # per sample: the action indices it took, its advantage


class LinearSoftmax:
    def __init__(self, actions: list[str], feature_width: int, learning_rate: float):
        self.actions = actions
        self.weights = torch.zeros(len(actions), feature_width, requires_grad=True)  # zero: uniform at start
        self.optimizer = torch.optim.Adam([self.weights], lr=learning_rate, betas=(0.9, 0.95))

    def log_policy(self, features: list[float], available: list[bool],
                   weights: torch.Tensor | None = None) -> torch.Tensor:
        """log pi(action | x), -inf for the actions not available."""
        logits = (self.weights if weights is None else weights) @ torch.tensor(features)
        return torch.log_softmax(logits.masked_fill(~torch.tensor(available), -math.inf), dim=0)

    def update(self, decisions: list[Decision], kl_coef: float) -> UpdateStats:
        """One Adam step on the loss of the module docstring."""
        policy_terms, kl_terms = [], []
        for decision in decisions:
            log_policy = self.log_policy(decision.features, decision.available)
            available = torch.tensor(decision.available)
            uniform = -math.log(int(available.sum()))
            kl_terms.append((log_policy.exp()[available] * (log_policy[available] - uniform)).sum())
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
                old, new = (self.log_policy(decision.features, decision.available, weights)
                            for weights in (before, self.weights))
                available = torch.tensor(decision.available)
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
