"""Constrained-random stimulus, the baseline of `hdlrl cover`: uniform values on every driven
input after the reset, a fresh seed per program. It never learns."""

from __future__ import annotations

from pathlib import Path

from hdlrl.cover.stimulus import Segment, StimulusProgram
from hdlrl.cover.prompt import CoverState
from hdlrl.ttt.protocol import Sample, UpdateStats


class RandomStimulusPolicy:
    name = "random"
    trainable = False

    def __init__(self, cycles: int = 256):
        self.cycles = cycles

    def sample(self, state: CoverState, k: int, rng_seed: int) -> list[Sample]:
        program = StimulusProgram((Segment("random", self.cycles),))
        return [Sample({}, program.to_json(), None, "random", {"seed": rng_seed * 1000 + index}) for index in range(k)]

    def update(self, state_samples: list[tuple[CoverState, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        return UpdateStats()

    def save(self, folder: Path) -> None:
        """Nothing to save: the policy has no parameters."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""
