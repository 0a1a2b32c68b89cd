"""Advantages for one group of k rollouts started from the same design state.

TTT-Discover replaces the mean baseline with entropic weights: each rollout is reweighted by
exp(beta r), with beta solved per group so that the reweighting moves a fixed KL away from
uniform. The pull toward the group's best rollout is then the same whether rewards differ by
0.001 or by 1. GRPO's mean baseline and LEAP's rank advantage are kept to compare against.

Every method's advantages sum to zero within a group. TTT-Discover's -1 baseline assumes the
weights average 1, which leave-one-out weights do only for large groups: with k = 4 they
average 2 to 3, so every sampled rollout was pushed up, the worst ones too. A factored policy
then raised whichever kind of action a group happened to draw, and on RTLLM seed 2 the
embedded policy collapsed onto recipe sequences whose rewards were all negative.
"""

from __future__ import annotations

import math
import statistics
import typing
from dataclasses import dataclass
from typing import Literal

LN2 = math.log(2.0)

# beta_max * (max r - min r) when beta_max is not given: the worst rollout keeps at least
# e^-30 of the best one's weight, so leave-one-out weights stay finite.
MAX_EXPONENT = 30.0

Method = Literal["entropic", "grpo", "rank"]
METHODS: tuple[str, ...] = typing.get_args(Method)


def average_ranks(values: list[float]) -> list[float]:
    """Ascending ranks 1..k (the least value 1), tied values sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def tilted_distribution(rewards: list[float], beta: float) -> list[float]:
    """q_i = exp(beta (r_i - max r)) / sum_j exp(beta (r_j - max r)); the shift keeps exp <= 1."""
    best = max(rewards)
    exponentials = [math.exp(beta * (reward - best)) for reward in rewards]
    total = math.fsum(exponentials)
    return [value / total for value in exponentials]


def kl_to_uniform(distribution: list[float]) -> float:
    """KL(q || uniform) = sum_i q_i ln(k q_i), with 0 ln 0 = 0; it lies in [0, ln k]."""
    k = len(distribution)
    return math.fsum(q * math.log(k * q) for q in distribution if q > 0)


def entropic_beta(
    rewards: list[float],
    delta: float = LN2,
    beta_max: float | None = None,
    tolerance: float = 1e-10,
    iterations: int = 200,
) -> tuple[float, bool]:
    """(beta, saturated): beta >= 0 with KL(q_beta || uniform) = delta, found by bisection.

    KL rises monotonically from 0 at beta = 0 toward ln(k / m), m the number of rollouts tied at
    the maximum. When delta >= ln(k / m) - tolerance, or KL(q_beta_max) < delta, the target is out
    of reach: the search saturates and returns (beta_max, True). beta_max defaults to
    MAX_EXPONENT / (max r - min r). Bisection on [0, beta_max] stops when |KL - delta| <=
    tolerance or after `iterations` halvings of the bracket.
    """
    best, worst = max(rewards), min(rewards)
    if best == worst:
        raise ValueError("a constant group has no tilt: every beta gives the uniform distribution")
    upper = beta_max if beta_max is not None else MAX_EXPONENT / (best - worst)
    maxima = sum(1 for reward in rewards if reward == best)
    reachable = math.log(len(rewards) / maxima)
    if delta >= reachable - tolerance or kl_to_uniform(tilted_distribution(rewards, upper)) < delta:
        return upper, True
    low, high = 0.0, upper
    for _ in range(iterations):
        beta = (low + high) / 2
        divergence = kl_to_uniform(tilted_distribution(rewards, beta))
        if abs(divergence - delta) <= tolerance:
            return beta, False
        if divergence < delta:
            low = beta
        else:
            high = beta
    return (low + high) / 2, False


def leave_one_out_weights(rewards: list[float], beta: float) -> list[float]:
    """w_i = e_i / mean_{j != i} e_j with e_i = exp(beta (r_i - max r)); the advantage is w_i - mean w.

    Leaving rollout i out of its own baseline keeps the weight of a lone winner from being
    damped by itself. Needs k >= 2.
    """
    best = max(rewards)
    exponentials = [math.exp(beta * (reward - best)) for reward in rewards]
    others = len(rewards) - 1
    return [
        value / (math.fsum(exponentials[:index] + exponentials[index + 1 :]) / others)
        for index, value in enumerate(exponentials)
    ]


def saturated_weights(weights: list[float]) -> list[float]:
    """min(w_i, k): the weights of a group whose beta search saturated.

    There beta is beta_max, not a solution for delta, and a lone best rollout's leave-one-out
    weight is about e^MAX_EXPONENT (always so for k = 2, where delta = ln 2 is out of reach), an
    advantage that would swamp the KL penalty and every other group. k is the weight the plain
    tilt k q_i gives a lone winner in the limit; rollouts tied at the best keep theirs (at most k - 1).
    """
    return [min(weight, float(len(weights))) for weight in weights]


def grpo_advantages(rewards: list[float], epsilon: float = 1e-6) -> list[float]:
    """A_i = (r_i - mean r) / (std r + epsilon), std the population one (divide by k).

    epsilon keeps a nearly constant group from dividing by almost zero.
    """
    mean = statistics.fmean(rewards)
    spread = statistics.pstdev(rewards)
    return [(reward - mean) / (spread + epsilon) for reward in rewards]


def rank_advantages(rewards: list[float]) -> list[float]:
    """A_i = 2 (rho_i - 1) / (k - 1) - 1, rho_i the ascending rank with ties averaged (LEAP).

    The worst rollout gets -1, the best +1, the median 0, whatever the reward gaps. Needs k >= 2.
    """
    k = len(rewards)
    return [2 * (rank - 1) / (k - 1) - 1 for rank in average_ranks(rewards)]


def effective_sample_size(weights: list[float]) -> float:
    """ESS / k = (sum w)^2 / (k sum w^2): 1 for equal weights, 1/k when one weight holds all."""
    return math.fsum(weights) ** 2 / (len(weights) * math.fsum(weight * weight for weight in weights))


@dataclass
class GroupAdvantages:
    """Advantages of a batch of groups plus the statistics the KL controller reads."""

    advantages: list[list[float] | None]  # per group; None for a constant-reward group
    betas: list[float | None]  # entropic beta per group; None when constant or not entropic
    constant_groups: int
    mean_effective_sample_size: float | None  # mean ESS / k of the entropic groups with signal
    saturated_fraction: float  # of the entropic beta searches; 0.0 for grpo and rank

    @property
    def constant_fraction(self) -> float:
        return self.constant_groups / len(self.advantages) if self.advantages else 0.0


def group_advantages(groups: list[list[float]], method: str = "entropic", delta: float = LN2) -> GroupAdvantages:
    """Advantages of each group by `method`; a group with one reward value carries no signal and is dropped.

    entropic: A_i = w_i - (1/k) sum_j w_j with leave-one-out weights w at the group's beta(delta),
    clipped when saturated.
    grpo: the mean baseline. rank: LEAP's centred ranks.
    """
    if method not in METHODS:
        raise ValueError(f"unknown advantage method {method!r}: expected one of {', '.join(METHODS)}")
    advantages: list[list[float] | None] = []
    betas: list[float | None] = []
    sample_sizes: list[float] = []
    saturated = 0
    for rewards in groups:
        if len(set(rewards)) <= 1:
            advantages.append(None)
            betas.append(None)
        elif method == "entropic":
            beta, hit_bound = entropic_beta(rewards, delta)
            weights = leave_one_out_weights(rewards, beta)
            if hit_bound:
                weights = saturated_weights(weights)
            centre = math.fsum(weights) / len(weights)
            advantages.append([weight - centre for weight in weights])
            betas.append(beta)
            sample_sizes.append(effective_sample_size(weights))
            saturated += hit_bound
        else:
            advantages.append(grpo_advantages(rewards) if method == "grpo" else rank_advantages(rewards))
            betas.append(None)
    return GroupAdvantages(
        advantages=advantages,
        betas=betas,
        constant_groups=sum(1 for item in advantages if item is None),
        mean_effective_sample_size=statistics.fmean(sample_sizes) if sample_sizes else None,
        saturated_fraction=saturated / len(sample_sizes) if sample_sizes else 0.0,
    )
