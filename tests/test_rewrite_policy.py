"""The embedded rewrite policy: distinct seeded samples with factored log-probs, learning that carries across actions."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.ttt.advantages import group_advantages
from hdlrl.ttt.pool import source_hash
from hdlrl.eda.synth.recipes import recipe_fields
from hdlrl.eda.synth.yosys import ABC_MAPPERS
from hdlrl.optimize.recipe_space import neighbours, sequence_recipes
from hdlrl.optimize.report import normalised_levenshtein
from hdlrl.optimize.rewrite_policy import EMBEDDED_POLICIES, NEIGHBOUR_ACTION, SEQUENCE_ACTION
from hdlrl.ttt.protocol import Sample
from hdlrl.policy import make_policy
from hdlrl.optimize.prompt import DesignState


def _state(name: str) -> DesignState:
    design = load_design(DESIGNS_DIR / name)
    sources = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    return DesignState(design.name, design.top, design.description, sources)


def _probability(policy, state: DesignState, action: str, choice: int = 0) -> float:
    menu = policy.menu(state)
    index = policy.position(menu, Sample({}, "", action=action, metadata={"site": choice}))
    with torch.no_grad():
        return float(policy.softmax.log_policy(policy.table(state, menu))[index].exp())


def test_samples_are_distinct_seeded_actions_with_factored_log_probabilities() -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = _state("traffic_light")  # rewrites with a site: two state encodings and gated accumulate
    samples = policy.sample(state, 12, rng_seed=5)
    assert [sample.text for sample in samples] == [sample.text for sample in policy.sample(state, 12, rng_seed=5)]
    assert len({source_hash(sample.sources, sample.recipe) for sample in samples}) == 12
    # at the start pi picks one of the four kinds with an action (the two rules with a site:
    # state_encoding with its gray and one-hot options, gated_accumulate; the three named recipes
    # other than the flow's; the recipe sequences) in proportion to ln(1 + its actions), then
    # one of the kind's actions uniformly
    within = {"state_encoding:gray": 2, "state_encoding:one_hot": 2, "gated_accumulate": 1,
              "synthesis:abc_fast": 3, "synthesis:abc_delay_target": 3, "synthesis:hierarchical": 3,
              SEQUENCE_ACTION: len(sequence_recipes())}
    total = sum(math.log1p(size) for size in (2, 1, 3, len(sequence_recipes())))
    assert {sample.action for sample in samples} <= set(within)
    for sample in samples:
        size = within[sample.action]
        assert math.isclose(sample.logprob, math.log(math.log1p(size) / total) - math.log(size), rel_tol=1e-5)
        if sample.action.startswith("synthesis:"):  # the same RTL under another recipe
            assert sample.sources == state.sources and sample.recipe != "flow"
            recipe_fields(sample.recipe)  # a recipe `hdlrl eval --recipe` reads back
        else:
            assert sample.sources != state.sources and sample.recipe == "flow"


def test_candidates_the_run_has_judged_are_not_proposed_again() -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = _state("traffic_light")
    first = policy.sample(state, 4, rng_seed=3)
    known = frozenset(source_hash(sample.sources, sample.recipe) for sample in first)
    rest = policy.sample(replace(state, known=known), 8, rng_seed=3)
    assert len(rest) == 8 and not known & {source_hash(sample.sources, sample.recipe) for sample in rest}
    own = policy.sample(replace(state, recipe="hierarchical"), 60, rng_seed=3)
    assert len(own) == 60 and any(sample.action.startswith("synthesis:") for sample in own)
    assert not any(sample.sources == state.sources and sample.recipe == "hierarchical" for sample in own)


def test_an_update_moves_probability_towards_the_positive_advantage(tmp_path: Path) -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES, learning_rate=0.5)
    state = _state("traffic_light")
    samples = policy.sample(state, 2, rng_seed=1)
    first, second = ((sample.action, sample.metadata["site"]) for sample in samples)
    before = _probability(policy, state, *first)
    stats = policy.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.0)
    assert stats.kl == 0.0 and stats.samples == 2  # the KL is measured before the step: still uniform
    assert _probability(policy, state, *first) > before > _probability(policy, state, *second)
    again = policy.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.1)
    assert again.kl > 0 and again.step_kl > 0

    policy.save(tmp_path / "policy")
    restored = make_policy("rewrite", EMBEDDED_POLICIES)
    restored.load(tmp_path / "policy")
    assert torch.equal(restored.softmax.kind_weights, policy.softmax.kind_weights)
    assert torch.equal(restored.softmax.parameter_weights, policy.softmax.parameter_weights)
    assert [sample.logprob for sample in restored.sample(state, 2, rng_seed=9)] == \
           [sample.logprob for sample in policy.sample(state, 2, rng_seed=9)]


def test_a_rewarded_recipe_raises_the_recipes_that_share_its_parts() -> None:
    """Generalisation across actions: rewarding one area-mapped sequence raises every area-mapped
    sequence, ones never drawn included, above the same sequence with another mapper."""
    policy = make_policy("rewrite", EMBEDDED_POLICIES, learning_rate=0.1)
    state = _state("traffic_light")
    recipes = sequence_recipes()
    rewarded, punished = recipes.index("abc=balance map=amap"), recipes.index("abc=balance map=nf")
    unseen_area, unseen_delay = recipes.index("abc=dc2,resub map=amap"), recipes.index("abc=dc2,resub map=nf")
    samples = [Sample(state.sources, "", action=SEQUENCE_ACTION, metadata={"site": index}, recipe=recipes[index])
               for index in (rewarded, punished)]
    assert _probability(policy, state, SEQUENCE_ACTION, unseen_area) == \
        pytest.approx(_probability(policy, state, SEQUENCE_ACTION, unseen_delay))
    for _ in range(3):
        policy.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.0)
    assert _probability(policy, state, SEQUENCE_ACTION, unseen_area) > \
        1.5 * _probability(policy, state, SEQUENCE_ACTION, unseen_delay)
    # the ablation without action features cannot tell them apart, however often it learns
    blind = make_policy("rewrite", EMBEDDED_POLICIES, learning_rate=0.1, action_features=False)
    for _ in range(3):
        blind.update([(state, samples)], [[1.0, -1.0]], kl_coef=0.0)
    assert _probability(blind, state, SEQUENCE_ACTION, unseen_area) == \
        pytest.approx(_probability(blind, state, SEQUENCE_ACTION, unseen_delay))


def test_a_group_drawn_from_one_kind_leaves_the_kinds_shares_alone() -> None:
    """Seed 2 of issue 20's acceptance run: groups of recipe sequences, all worse than their parent,
    raised the sequences' share until the RTL rules were never drawn. The group's rewards say
    which sequence beats which, nothing about the kinds it did not draw."""
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = _state("traffic_light")
    recipes = sequence_recipes()
    drawn = [recipes.index(recipe) for recipe in ("abc=balance map=amap", "abc=dc2 map=nf", "abc=resub map=map",
                                                   "coarse=wreduce abc=rewrite map=amap")]
    samples = [Sample(state.sources, "", action=SEQUENCE_ACTION, metadata={"site": index}, recipe=recipes[index])
               for index in drawn]

    def shares() -> torch.Tensor:
        table = policy.table(state, policy.menu(state))
        with torch.no_grad():
            probabilities = policy.softmax.log_policy(table).exp()
        return torch.zeros(len(policy.kinds), dtype=torch.float64).index_add(0, table.kinds, probabilities)

    before = shares()
    advantages = group_advantages([[-0.08, -0.18, -0.25, -0.01]], "entropic").advantages
    for _ in range(5):
        policy.update([(state, samples)], advantages, kl_coef=0.0)
    assert torch.allclose(shares(), before, atol=1e-9)
    best, worst = drawn[3], drawn[2]  # within the kind the group still ranks its draws
    assert _probability(policy, state, SEQUENCE_ACTION, best) > _probability(policy, state, SEQUENCE_ACTION, worst)


def _edits(recipe: str, other: str) -> int:
    """How many parts differ: the pass, the mapper, and the ABC commands by edit distance."""
    first, second = recipe_fields(recipe), recipe_fields(other)
    commands, others = first.get("abc_commands", ()), second.get("abc_commands", ())
    command_edits = round(normalised_levenshtein(commands, others) * max(len(commands), len(others)))
    return command_edits + sum(first.get(field) != second.get(field) for field in ("coarse_passes", "abc_mapper"))


def test_a_state_under_a_recipe_sequence_offers_every_recipe_one_edit_away() -> None:
    """So that the pool climbs in recipe space: from a recipe that paid, the next draws can change
    one pass, one mapper or one ABC command of it rather than start again."""
    recipes = sequence_recipes()
    own = "coarse=wreduce abc=balance,resub map=amap"
    near = {recipes[index] for index in neighbours(own)}
    assert all(_edits(own, recipe) == 1 for recipe in near)
    one_edit = {recipe for recipe in recipes if _edits(own, recipe) == 1}
    assert near == one_edit and len(near) > 30  # 6 other passes, 3 mappers, 2 + 18 + 30 command edits
    assert all(own in {recipes[index] for index in neighbours(recipe)} for recipe in near)
    assert neighbours("flow") == neighbours("hierarchical") == ()

    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    state = replace(_state("traffic_light"), recipe=own)
    samples = policy.sample(state, 40, rng_seed=2)
    drawn = [sample for sample in samples if sample.action == NEIGHBOUR_ACTION]
    assert drawn and all(sample.recipe in near and sample.sources == state.sources for sample in drawn)
    menu = policy.menu(state)
    assert all(menu[policy.position(menu, sample)].choice == sample.metadata["site"] for sample in drawn)
    assert not any(sample.action == NEIGHBOUR_ACTION for sample in policy.sample(_state("traffic_light"), 40, 2))


def test_random_action_search_is_uniform_over_concrete_actions_and_never_learns() -> None:
    policy = make_policy("random", EMBEDDED_POLICIES)
    state = _state("traffic_light")
    samples = policy.sample(state, 8, rng_seed=0)
    size = len(policy.menu(state))
    assert size > len(sequence_recipes()) and all(math.isclose(sample.logprob, -math.log(size), rel_tol=1e-5) for sample in samples)
    assert not policy.trainable and policy.update([(state, samples)], [[1.0] * 8], 0.1).samples == 0


def test_a_language_models_menu_is_short() -> None:
    policy = make_policy("rewrite", EMBEDDED_POLICIES)
    menu = policy.menu(_state("traffic_light"), every_sequence=False)
    assert len(menu) == 6 + 4  # the rewrites and named recipes, and each mapper alone
    assert [entry.words for entry in menu][-4:] == [f"synthesis recipe map={mapper}" for mapper in ABC_MAPPERS]
