"""The adaptive KL budget: how far each update may move, retuned from what the last batch showed.

Two knobs bound a test-time-training step. delta is the entropic KL budget inside each group
(how sharply the best rollouts are favoured); kl_coef is the per-token penalty toward the
initial policy. No fixed pair suits every design, so both follow four signals of the batch,
and every value is kept for the history log.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from hdlrl.config import Bounded, Factor, Fraction, Positive
from hdlrl.ttt.advantages import LN2


@dataclass
class KlControlConfig:
    """Targets, bands and bounds of `update_kl_budget`."""

    initial_delta: Positive = LN2  # TTT-Discover's entropic budget
    initial_kl_coef: Bounded(1e3) = 0.1
    target_reference_kl: Positive = 0.05  # nats per token from the initial policy
    reference_kl_band: Factor = 1.5  # kl_coef moves outside [target / band, target * band] (PPO)
    kl_coef_factor: Factor = 2.0  # kl_coef is multiplied or divided by this
    kl_coef_min: Bounded(1e3) = 1e-4
    kl_coef_max: Bounded(1e3) = 10.0
    ess_floor: Fraction = 0.25  # mean ESS / k below this: the weights rest on too few rollouts
    saturation_limit: Fraction = 0.5  # beta searches at beta_max above this fraction: delta unreachable
    constant_limit: Fraction = 0.5  # constant-reward groups above this fraction: too little signal
    delta_factor: Factor = 1.25  # delta is multiplied or divided by this
    delta_min: Positive = 0.05
    delta_max: Positive = 1.5  # reachable by groups of 5 or more with a unique best (ln 5 = 1.61)


@dataclass
class KlControlSignals:
    """What one batch showed: the inputs of one controller update."""

    reference_kl: float  # mean per-token KL of the policy to the initial policy
    effective_sample_size: float | None  # mean ESS / k of the entropic weights; None without them
    constant_fraction: float  # groups whose rollouts all earned one reward
    saturated_fraction: float  # entropic beta searches that hit beta_max


@dataclass
class KlControlState:
    """The two knobs, the signals that set them and what the last update did."""

    delta: float
    kl_coef: float
    signals: KlControlSignals | None = None
    delta_action: str = "hold"  # shrink, grow or hold
    kl_coef_action: str = "hold"  # raise, lower or hold

    @classmethod
    def initial(cls, config: KlControlConfig) -> KlControlState:
        return cls(delta=config.initial_delta, kl_coef=config.initial_kl_coef)

    @classmethod
    def from_dict(cls, data: dict) -> KlControlState:
        """The state as a checkpoint stored it (`to_jsonable`), signals included."""
        signals = data.get("signals")
        return cls(**{**data, "signals": KlControlSignals(**signals) if signals else None})

    def to_dict(self) -> dict:
        """One flat row of the history log: knobs, actions and signals."""
        row = {
            "delta": self.delta,
            "kl_coef": self.kl_coef,
            "delta_action": self.delta_action,
            "kl_coef_action": self.kl_coef_action,
        }
        if self.signals is not None:
            row.update(asdict(self.signals))
        return row


def update_kl_budget(state: KlControlState, signals: KlControlSignals, config: KlControlConfig) -> KlControlState:
    """The next (delta, kl_coef) from one batch's signals.

    kl_coef, PPO's adaptive KL coefficient (Schulman et al. 2017), with band b and factor f:
        reference KL > target * b   ->  kl_coef * f    (raise: the policy drifts too far)
        reference KL < target / b   ->  kl_coef / f    (lower: the penalty holds it back)
        clamped to [kl_coef_min, kl_coef_max].
    delta, with factor g, the first rule that applies:
        ESS / k < ess_floor  or  saturated fraction > saturation_limit
                                    ->  delta / g      (shrink: too few rollouts carry the
                                                        weights, or the budget is unreachable)
        constant fraction > constant_limit
                                    ->  delta * g      (grow: lean harder on the few groups
                                                        with a signal)
        clamped to [delta_min, delta_max]. A missing ESS (no entropic weights) skips its test.
    """
    kl_coef, kl_coef_action = state.kl_coef, "hold"
    if signals.reference_kl > config.target_reference_kl * config.reference_kl_band:
        kl_coef, kl_coef_action = kl_coef * config.kl_coef_factor, "raise"
    elif signals.reference_kl < config.target_reference_kl / config.reference_kl_band:
        kl_coef, kl_coef_action = kl_coef / config.kl_coef_factor, "lower"
    delta, delta_action = state.delta, "hold"
    peaked = signals.effective_sample_size is not None and signals.effective_sample_size < config.ess_floor
    if peaked or signals.saturated_fraction > config.saturation_limit:
        delta, delta_action = delta / config.delta_factor, "shrink"
    elif signals.constant_fraction > config.constant_limit:
        delta, delta_action = delta * config.delta_factor, "grow"
    return KlControlState(
        delta=min(max(delta, config.delta_min), config.delta_max),
        kl_coef=min(max(kl_coef, config.kl_coef_min), config.kl_coef_max),
        signals=signals,
        delta_action=delta_action,
        kl_coef_action=kl_coef_action,
    )
