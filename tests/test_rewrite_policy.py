"""The embedded rewrite policy: distinct seeded samples with log-probs, learning in the advantages' direction."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import torch

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.ttt.pool import source_hash
from hdlrl.optimize.rewrite_policy import EMBEDDED_POLICIES
from hdlrl.policy import make_policy
from hdlrl.optimize.prompt import DesignState


def _state(name: str) -> DesignState:
    design = load_design(DESIGNS_DIR / name)
    sources = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    return DesignState(design.name, design.top, design.description, sources)


def test_samples_are_distinct_seeded_rewrites_with_log_probabilities() -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = _state("traffic_light")  # rewrites with a site: two state encodings and gated accumulate
    samples = policy.sample(state, 7, rng_seed=5)
    assert [sample.text for sample in samples] == [sample.text for sample in policy.sample(state, 7, rng_seed=5)]
    # at the start pi is uniform over the six actions with a site, each of which has one: the three
    # rewrites and the three synthesis recipes other than the flow's; a seventh draw has nothing new
    assert sorted(sample.action for sample in samples) == sorted(
        ["state_encoding:gray", "state_encoding:one_hot", "gated_accumulate",
         "synthesis:abc_fast", "synthesis:abc_delay_target", "synthesis:hierarchical"])
    assert all(math.isclose(math.exp(sample.logprob), 1 / 6, rel_tol=1e-6) for sample in samples)
    for sample in samples:
        if sample.action.startswith("synthesis:"):  # the same RTL under another recipe
            assert sample.sources == state.sources and sample.recipe == sample.action.removeprefix("synthesis:")
        else:
            assert sample.sources != state.sources and sample.recipe == "flow"


def test_candidates_the_run_has_judged_are_not_proposed_again() -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = _state("traffic_light")
    first = policy.sample(state, 2, rng_seed=3)
    known = frozenset(source_hash(sample.sources, sample.recipe) for sample in first)
    rest = policy.sample(replace(state, known=known), 6, rng_seed=3)
    assert len(rest) == 4 and not {sample.action for sample in first} & {sample.action for sample in rest}


def test_an_update_moves_probability_towards_the_positive_advantage(tmp_path: Path) -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES, learning_rate=0.5)
    state = _state("traffic_light")
    samples = policy.sample(state, 2, rng_seed=1)
    assert samples[0].action != samples[1].action

    def probability(action: str) -> float:
        features, sites = policy._state(state)
        with torch.no_grad():
            return float(policy.softmax.log_policy(features, policy._available(sites))[policy.actions.index(action)].exp())

    first, second = samples[0].action, samples[1].action
    before = probability(first)
    stats = policy.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.0)
    assert stats.kl == 0.0 and stats.samples == 2  # the KL is measured before the step: still uniform
    assert probability(first) > before > probability(second)
    again = policy.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.1)
    assert again.kl > 0 and again.step_kl > 0

    policy.save(tmp_path / "policy")
    restored = make_policy("rewrite", EMBEDDED_POLICIES)
    restored.load(tmp_path / "policy")
    assert torch.equal(restored.softmax.weights, policy.softmax.weights)
    assert [sample.logprob for sample in restored.sample(state, 2, rng_seed=9)] == \
           [sample.logprob for sample in policy.sample(state, 2, rng_seed=9)]
