"""One learning step of a test-time-training loop: group rewards to advantages, the policy
update, and the KL-budget controller's next knobs. The one loop (`hdlrl.ttt.loop`) takes it every
step, so `hdlrl optimize`, `cover` and `summarize` train by exactly the same objective."""

from __future__ import annotations

from dataclasses import dataclass
from hdlrl.ttt.advantages import GroupAdvantages, group_advantages
from hdlrl.ttt.kl_control import KlControlConfig, KlControlSignals, KlControlState, update_kl_budget
from hdlrl.ttt.protocol import Policy, Sample, State, UpdateStats


@dataclass
class LearningStep:
    stats: UpdateStats | None  # None: no update (frozen policy, or no group with a signal)
    advantages: GroupAdvantages
    controller: KlControlState  # the knobs for the next step


def learn(policy: Policy, groups: list[tuple[State, list[Sample]]], rewards: list[list[float]], method: str,
          controller: KlControlState, config: KlControlConfig, update: bool) -> LearningStep:
    """Advantages of every group with two or more rollouts (fewer cannot be compared), one policy
    update when `update` and the policy can learn, then the controller's update from the signals."""
    learning = [index for index, group_rewards in enumerate(rewards) if len(group_rewards) >= 2]
    advantages = group_advantages([rewards[index] for index in learning], method, controller.delta)
    stats = None
    if update and policy.trainable:
        signal = [(index, values) for index, values in zip(learning, advantages.advantages) if values is not None]
        if signal:
            stats = policy.update([groups[index] for index, _ in signal], [values for _, values in signal],
                                  controller.kl_coef)
    next_controller = update_kl_budget(controller, KlControlSignals(
        reference_kl=stats.kl if stats else 0.0,
        effective_sample_size=advantages.mean_effective_sample_size,
        constant_fraction=advantages.constant_fraction,
        saturated_fraction=advantages.saturated_fraction), config)
    return LearningStep(stats, advantages, next_controller)
