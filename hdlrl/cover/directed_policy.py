"""The embedded stimulus policy: coverage-directed generation that learns which generators pay.

A stimulus program is a few segments (`hdlrl.cover.stimulus`); each segment is one action, a
generator and a length: random, corner values, held values, sparse or dense bits, protocol
bursts of the control inputs, a reset, `steer` (hold the input values that plausibly reach
an uncovered branch or bin, from `CoverState.steering`), `stretch` (inputs held for as long as
a count of an uncovered item waits for, longer than any generator's segment, from
`CoverState.stretches`), `stretch_after_solved` (a reset, the longest input sequence any model
check found, then that stretch: a timeout that starts only in a deep state, a carrier lost
after its preamble), or `solve` (a reset, then the input sequence a model checker found to
reach an uncovered item, from `CoverState.witnesses`).
Which generators pay depends on the design and on how far coverage has come, so the logits
are linear in the coverage fractions reached so far and learn, at test time, from the
coverage each program gained by the same objective as every policy here (`hdlrl.policy.linear_softmax`):

    pi(a | x) = softmax_a(W x + b_a),  x = (line, branch, toggle, functional coverage, 1)
    log pi(program | x) = sum over its segments s of log pi(a_s | x)

At the start every generator and length is equally likely (b_a = 0), and `solve` counts as
one action per item it has a sequence for (b_solve = ln n_witnesses): each such sequence is a
known way to an uncovered item, as likely as a generator that may reach nothing. A program's
solve segments take the sequences in turn, so a group replays each before it repeats one, and
come first, with the stretches after a solved sequence: each starts with a reset, which would
cut short a generator's sequence, and the generators then go on from the deep state the last
replay reached. The segments are drawn independently, so their order leaves log pi(program | x)
as it is.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from hdlrl.cover.cover_flow import CoverFlow
from hdlrl.cover.stimulus import Segment, StimulusProgram
from hdlrl.cover.prompt import CoverState
from hdlrl.ttt.protocol import Sample, UpdateStats
from hdlrl.cover.random_policy import RandomStimulusPolicy
from hdlrl.policy import make_policy
from hdlrl.policy.linear_softmax import Decision, LinearSoftmax

STATE_FILE = "cdg_policy.pt"
SEGMENT_GENERATORS = ("random", "corner", "hold", "sparse", "dense", "burst", "reset", "steer")
LENGTHS = (16, 64, 256)
SOLVE_ACTION = "solve"
STRETCH_ACTION = "stretch"
STRETCH_AFTER_SOLVED_ACTION = "stretch_after_solved"
_STARTS_WITH_RESET = (SOLVE_ACTION, STRETCH_AFTER_SOLVED_ACTION)
_FEATURES = ("line", "branch", "toggle", "functional")


def _long_stretches(state: CoverState) -> dict[str, int]:
    """The stretches longer than the longest generator segment, which that already spans."""
    return {item: cycles for item, cycles in state.stretches.items() if cycles > max(LENGTHS)}


def _replay(sequence: list[dict[str, int]]) -> list[Segment]:
    """A reset, then a solved input sequence cycle by cycle (its model check started from reset too)."""
    rows = tuple(tuple(sorted(row.items())) for row in sequence)
    return [Segment("reset", 1), Segment("vectors", len(rows), vectors=rows)]


def coverage_features(state: CoverState) -> list[float]:
    return [state.coverage.get(metric) or 0.0 for metric in _FEATURES] + [1.0]


class CoverageDirectedPolicy:
    name = "cdg"
    trainable = True
    replays_solved_sequences = True  # the run model-checks uncovered items for it (`CoverState.witnesses`)

    def __init__(self, segments: int = 6, learning_rate: float = 0.05):
        self.segments = segments
        self.actions = [f"{generator}:{length}" for generator in SEGMENT_GENERATORS for length in LENGTHS]
        self.actions += [STRETCH_ACTION, STRETCH_AFTER_SOLVED_ACTION, SOLVE_ACTION]
        self.softmax = LinearSoftmax(self.actions, len(_FEATURES) + 1, learning_rate)

    def _prior(self, state: CoverState) -> list[float]:
        """b_a: 0 for a generator, ln n for `solve` with n sequences, -inf where not available
        (`steer` needs something to steer to, `stretch` a count longer than the longest segment,
        `stretch_after_solved` that and a solved sequence, `solve` a solved sequence of an
        uncovered item, `reset` a reset input)."""
        def prior(action: str) -> float:
            if action == SOLVE_ACTION:
                return math.log(len(state.witnesses)) if state.witnesses else -math.inf
            unavailable = (action.startswith("steer:") and not state.steering) or (
                action.startswith("reset:") and state.reset is None) or (
                action == STRETCH_ACTION and not _long_stretches(state)) or (
                action == STRETCH_AFTER_SOLVED_ACTION and not (_long_stretches(state) and state.longest_solved))
            return -math.inf if unavailable else 0.0
        return [prior(action) for action in self.actions]

    def _segments(self, action: str, state: CoverState, generator: random.Random,
                  solve_order: list[str]) -> tuple[list[Segment], str | None]:
        """The segments of one action; a `solve` takes the next target of `solve_order`."""
        name, _, length = action.partition(":")
        if name == "steer":
            target = generator.choice(sorted(state.steering))
            return [Segment("hold", int(length), values=tuple(sorted(state.steering[target].items())))], target
        if name == STRETCH_ACTION:
            target, cycles = generator.choice(sorted(_long_stretches(state).items()))
            return [Segment("hold", cycles)], target
        if name == STRETCH_AFTER_SOLVED_ACTION:
            target, cycles = generator.choice(sorted(_long_stretches(state).items()))
            return [*_replay(state.longest_solved), Segment("hold", cycles)], target
        if name == SOLVE_ACTION:  # the sequence starts from reset, as the model checker's did
            if not solve_order:
                solve_order += generator.sample(sorted(state.witnesses), len(state.witnesses))
            target = solve_order.pop()
            return _replay(state.witnesses[target]), target
        return [Segment(name, int(length))], None

    def sample(self, state: CoverState, k: int, rng_seed: int) -> list[Sample]:
        """`k` programs of `segments` actions drawn from pi, each with its own render seed."""
        generator = random.Random(rng_seed)
        log_policy = self.softmax.log_policy(coverage_features(state), self._prior(state)).detach()
        probabilities = log_policy.exp().tolist()
        samples, solve_order = [], []
        for index in range(k):
            chosen = generator.choices(range(len(self.actions)), weights=probabilities, k=self.segments)
            # the replays first (see the module docstring)
            chosen.sort(key=lambda choice: self.actions[choice] not in _STARTS_WITH_RESET)
            built = [self._segments(self.actions[choice], state, generator, solve_order) for choice in chosen]
            program = StimulusProgram(tuple(segment for segments, _ in built for segment in segments))
            aimed = [(self.actions[choice] == SOLVE_ACTION, target) for choice, (_, target) in zip(chosen, built)
                     if target]
            samples.append(Sample({}, program.to_json(), float(log_policy[chosen].sum()),
                                  "+".join(self.actions[choice] for choice in chosen),
                                  {"seed": rng_seed * 1000 + index, "actions": chosen,
                                   "steered": [target for solved, target in aimed if not solved],
                                   "solved": [target for solved, target in aimed if solved]}))
        return samples

    def update(self, state_samples: list[tuple[CoverState, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        decisions = [Decision(coverage_features(state), self._prior(state),
                              [(sample.metadata["actions"], advantage) for sample, advantage in zip(samples, values)])
                     for (state, samples), values in zip(state_samples, advantages)]
        return self.softmax.update(decisions, kl_coef)

    def save(self, folder: Path) -> None:
        self.softmax.save(folder / STATE_FILE)

    def load(self, folder: Path) -> None:
        self.softmax.load(folder / STATE_FILE)


# what `hdlrl cover --policy` offers besides language models
EMBEDDED_POLICIES = {"cdg": CoverageDirectedPolicy, "random": RandomStimulusPolicy}


def stimulus_policy(spec: str, flow: CoverFlow, **options):
    """The policy `spec` names, the random baseline with the flow's `random_cycles` unless told otherwise."""
    if spec == "random":
        options = {"cycles": flow.random_cycles, **options}
    return make_policy(spec, EMBEDDED_POLICIES, **options)
