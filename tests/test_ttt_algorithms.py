"""The optimiser's algorithms against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from hdlrl.ttt.advantages import (
    LN2,
    METHODS,
    effective_sample_size,
    entropic_beta,
    group_advantages,
    grpo_advantages,
    leave_one_out_weights,
    rank_advantages,
)
from hdlrl.ttt.kl_control import KlControlConfig, KlControlSignals, KlControlState, update_kl_budget
from hdlrl.ttt.pool import Pool, PoolState, puct_score, rank_prior, source_hash

SQRT3 = math.sqrt(3.0)


def state(state_id: str, reward: float, parent: str | None = None, **fields: object) -> PoolState:
    """A state whose one-file sources are named after its id, so each id is its own design."""
    sources = {"m.v": f"module m_{state_id}(output y);\n  assign y = 1'b1;\nendmodule\n"}
    return PoolState(id=state_id, sources=sources, reward=reward, parent=parent, **fields)


def family_pool(**pool_fields: object) -> Pool:
    """R (initial, 7.0) with children A (8.0) and B (7.5), and A's child A1 (9.0)."""
    pool = Pool(**pool_fields)
    for item in (state("R", 7.0, initial=True), state("A", 8.0, "R"), state("B", 7.5, "R"), state("A1", 9.0, "A")):
        pool.add(item)
    return pool


# --- PUCT -------------------------------------------------------------------------------------


def test_puct_score_by_hand() -> None:
    # 0.5 + 1 * 2 * 0.25 * sqrt(1 + 8) / (1 + 3) = 0.5 + 0.5 * 3 / 4 = 0.875
    assert puct_score(0.5, 0.25, 3, 8, 2.0, 1.0) == pytest.approx(0.875, abs=1e-12)
    # 1 + 2 * 1 * 0.5 * sqrt(1) / 1 = 2
    assert puct_score(1.0, 0.5, 0, 0, 1.0, 2.0) == pytest.approx(2.0, abs=1e-12)
    # -1 + 0.5 * 4 * 0.1 * sqrt(4) / 2 = -1 + 0.2 = -0.8
    assert puct_score(-1.0, 0.1, 1, 3, 4.0, 0.5) == pytest.approx(-0.8, abs=1e-12)


def test_rank_prior_is_linear_in_rank_with_shared_ties() -> None:
    # ascending ranks [3, 1, 2], sum 6
    assert rank_prior([3.0, 1.0, 2.0]) == pytest.approx([3 / 6, 1 / 6, 2 / 6], abs=1e-12)
    # the tie takes ranks 2 and 3 -> 2.5 each; the worst rank 1; sum still 6
    assert rank_prior([2.0, 2.0, 1.0]) == pytest.approx([2.5 / 6, 2.5 / 6, 1 / 6], abs=1e-12)
    assert rank_prior([5.0]) == [1.0]


def test_pool_scores_by_hand() -> None:
    pool = Pool()
    for item in (state("R", 7.0, initial=True), state("A", 8.0, "R"), state("B", 7.5, "R")):
        pool.add(item)
    pool.record_expansion("R", [8.0, 7.5])  # T = 2, n(R) = 2, Q(R) = 8.0
    # priors by reward [7.0, 8.0, 7.5]: ranks [1, 3, 2] / 6; scale over A, B = 8.0 - 7.5 = 0.5
    # R: 8.0 + 0.5 * (1/6) * sqrt(3) / 3 = 8 + sqrt(3) / 36
    # A: 8.0 + 0.5 * (3/6) * sqrt(3) / 1 = 8 + sqrt(3) / 4
    # B: 7.5 + 0.5 * (2/6) * sqrt(3) / 1 = 7.5 + sqrt(3) / 6
    assert pool.reward_scale() == pytest.approx(0.5, abs=1e-12)
    scores = pool.scores(exploration=1.0)
    assert scores["R"] == pytest.approx(8.0 + SQRT3 / 36, abs=1e-12)
    assert scores["A"] == pytest.approx(8.0 + SQRT3 / 4, abs=1e-12)
    assert scores["B"] == pytest.approx(7.5 + SQRT3 / 6, abs=1e-12)


def test_reward_scale_is_one_without_two_non_initial_states() -> None:
    pool = Pool()
    pool.add(state("R", 7.0, initial=True))
    pool.add(state("A", 9.0, "R"))
    assert pool.reward_scale() == 1.0
    pool.add(state("B", 9.0, "R"))  # two states, range 0
    assert pool.reward_scale() == 1.0


def test_q_is_the_best_child_reward_and_failed_expansions_are_visits() -> None:
    pool = Pool()
    parent = pool.add(state("S", 7.5, initial=True))
    assert parent.q_value == 7.5  # no child yet: its own reward
    pool.record_expansion("S", [None, 3.2, 8.1])  # one failure, one rejected (3.2), one accepted
    assert (parent.visits, pool.total_visits, parent.best_child_reward, parent.q_value) == (3, 3, 8.1, 8.1)
    pool.record_expansion("S", [None])  # a failure alone is still a visit
    assert (parent.visits, pool.total_visits, parent.q_value) == (4, 4, 8.1)
    pool.record_expansion("S", [7.9])  # a worse child keeps the best one
    assert (parent.visits, pool.total_visits, parent.q_value) == (5, 5, 8.1)
    worse = pool.add(state("W", 8.0, "S"))
    pool.record_expansion("W", [5.0])  # children only worse: Q falls below its own reward
    assert worse.q_value == 5.0
    pool.record_expansion("gone", [None, None])  # an evicted parent still counts toward T
    assert pool.total_visits == 8


def test_duplicates_merge_by_normalised_source() -> None:
    pool = Pool()
    written = {"m.v": "module m(output y);\n  assign y = 1'b1; // one\nendmodule\n"}
    first = pool.add(PoolState(id="a", sources=written, reward=7.5))
    same_layout = {"m.v": "module m(output y); /* a comment */ assign y =   1'b1;\n\nendmodule"}
    assert source_hash(same_layout) == first.source_hash
    assert source_hash({"m.v": "module m(output y); assign y = 1'b0; endmodule"}) != first.source_hash
    assert source_hash({"n.v": "module m(output y); assign y = 1'b1; endmodule"}) != first.source_hash
    merged = pool.add(PoolState(id="b", sources=same_layout, reward=8.2, level="proven", ppa={"area": 3.0}))
    assert merged is first and list(pool.states) == ["a"]
    assert (first.reward, first.level, first.ppa) == (8.2, "proven", {"area": 3.0})  # the higher reward kept
    pool.add(PoolState(id="c", sources=same_layout, reward=6.0, accepted=False))
    assert (first.reward, first.accepted, len(pool.states)) == (8.2, True, 1)  # a lower one changes nothing


def test_select_blocks_ancestors_within_a_batch() -> None:
    pool = family_pool()
    # T = 0, priors by reward [7, 8, 7.5, 9] -> ranks [1, 3, 2, 4] / 10, scale 9 - 7.5 = 1.5:
    # R 7 + 1.5 * 0.1 = 7.15, A 8 + 1.5 * 0.3 = 8.45, B 7.5 + 1.5 * 0.2 = 7.8, A1 9 + 1.5 * 0.4 = 9.6
    # A1 first blocks A and R; without blocking A would be second
    assert [item.id for item in pool.select(2)] == ["A1", "B"]


def test_select_blocks_descendants_within_a_batch() -> None:
    pool = family_pool()
    pool.record_expansion("A", [20.0])  # Q(A) = 20 puts A first; A1 is its descendant, R its ancestor
    # A 20 + 1.5 * 0.3 * sqrt(2) / 2 = 20.32, A1 9 + 1.5 * 0.4 * sqrt(2) = 9.85, B 7.92, R 7.21
    assert [item.id for item in pool.select(2)] == ["A", "B"]
    assert [item.id for item in pool.select(4)] == ["A", "B", "A", "B"]  # repeats fill the batch


def test_select_starts_from_the_initial_state_and_skips_rejected_ones() -> None:
    pool = Pool()
    pool.add(state("R", 7.0, initial=True))
    pool.add(state("X", 6.9, "R", accepted=False))
    assert [item.id for item in pool.select(3)] == ["R", "R", "R"]
    assert pool.best().id == "R"


def test_eviction_drops_the_lowest_leaf_and_keeps_ancestors() -> None:
    pool = Pool(max_size=4)
    for item in (state("R", 7.0, initial=True), state("A", 7.2, "R"), state("A1", 8.0, "A"), state("C", 7.8, "R")):
        pool.add(item)
    pool.add(state("B", 7.5, "R"))
    # five states; leaves C (7.8), B (7.5) and A1 (the best); A (7.2) is A1's ancestor -> B goes
    assert list(pool.states) == ["R", "A", "A1", "C"]
    assert pool.add(state("B", 7.5, "R")).id == "B"  # its hash was forgotten: it is new again (and goes again)
    assert "B" not in pool.states


def test_eviction_never_drops_initial_or_best_states() -> None:
    pool = Pool(max_size=1)
    for item in (state("R", 7.0, initial=True), state("I2", 6.0, initial=True), state("A", 9.0, "R")):
        pool.add(item)
    assert list(pool.states) == ["R", "I2", "A"]  # all protected: above max_size
    pool.add(state("B", 8.0, "R"))
    pool.add(state("Z", 9.5, "R", accepted=False))  # a rejected state is never the best one
    assert list(pool.states) == ["R", "I2", "A"]
    assert pool.best().id == "A"


def test_reported_best_is_proven_unless_unproven_levels_are_accepted() -> None:
    pool = Pool()
    pool.add(state("R", 7.0, initial=True, level="simulated"))  # the reference itself: always reportable
    pool.add(state("P", 8.0, "R", level="proven"))
    pool.add(state("B", 9.0, "R", level="bounded(20)"))
    pool.add(state("S", 9.5, "R", level="simulated"))
    assert pool.best().id == "S"
    assert pool.best(proven_only=True).id == "P"
    lone = Pool()
    lone.add(state("R", 7.0, initial=True, level="simulated"))
    lone.add(state("B", 9.0, "R", level="bounded(20)"))
    assert lone.best(proven_only=True).id == "R"


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    pool = family_pool(max_size=50)
    pool.record_expansion("A", [None, 8.5, 3.0])
    pool.states["A1"].ppa = {"area": 12.5, "delay": 0.3, "power": 1e-3}
    pool.states["A1"].metadata = {"prompt": "make it smaller", "tokens": [1, 2, 3]}
    path = tmp_path / "pool.json"
    pool.save(path)
    loaded = Pool.load(path)
    assert loaded == pool
    assert loaded.ids_by_hash == pool.ids_by_hash
    assert (loaded.total_visits, loaded.states["A"].q_value) == (3, 8.5)
    assert [item.name for item in tmp_path.iterdir()] == ["pool.json"]  # no temporary file left
    assert loaded.add(state("A1", 9.0, "A")) is loaded.states["A1"]  # deduplication survives the trip


# --- advantages -------------------------------------------------------------------------------


def independent_kl(rewards: list[float], beta: float) -> float:
    """KL(q || uniform) written out again: q_i = exp(beta r_i) / sum, KL = sum q_i ln(k q_i)."""
    exponentials = [math.exp(beta * reward) for reward in rewards]
    total = sum(exponentials)
    return sum(e / total * math.log(len(rewards) * e / total) for e in exponentials)


def test_entropic_beta_reaches_ln2() -> None:
    rewards = [0.0, 1.0, 2.0, 3.0]  # unique best of 4: up to ln 4 is reachable
    beta, saturated = entropic_beta(rewards)
    assert not saturated
    assert independent_kl(rewards, beta) == pytest.approx(LN2, abs=1e-9)
    assert independent_kl(rewards, beta * 0.99) < LN2 < independent_kl(rewards, beta * 1.01)


def test_entropic_beta_by_hand_for_two_rollouts() -> None:
    # k = 2, rewards [1, 0]: q = (p, 1 - p) with p = 1 / (1 + e^-beta); p = 0.8 <=> beta = ln 4
    # delta = KL = ln 2 + 0.8 ln 0.8 + 0.2 ln 0.2 = 0.19274475702175753
    delta = LN2 + 0.8 * math.log(0.8) + 0.2 * math.log(0.2)
    beta, saturated = entropic_beta([1.0, 0.0], delta)
    assert not saturated
    assert beta == pytest.approx(math.log(4.0), abs=1e-8)


def test_entropic_beta_saturates_when_ln2_is_out_of_reach() -> None:
    # k = 2: ln 2 is the supremum, never reached; beta_max = 30 / (1 - 0)
    assert entropic_beta([0.0, 1.0]) == (30.0, True)
    # three tied at the max of 4: at most ln(4 / 3) = 0.288 < ln 2; beta_max = 30 / (1 - 0)
    assert entropic_beta([1.0, 1.0, 1.0, 0.0]) == (30.0, True)
    # with beta_max = 1000, e^-1000 underflows and KL reads ln 2 exactly: the bound ln(k / m) still saturates
    assert entropic_beta([0.0, 1.0], beta_max=1000.0) == (1000.0, True)
    # reachable in the limit but not below an explicit beta_max of 0.1
    assert entropic_beta([0.0, 1.0, 2.0, 3.0], beta_max=0.1) == (0.1, True)
    with pytest.raises(ValueError):
        entropic_beta([2.0, 2.0, 2.0])


def test_leave_one_out_weights_by_hand() -> None:
    # beta = ln 2, rewards [0, 1, 2]: e = 2^(r - 2) = [1/4, 1/2, 1]
    # w0 = (1/4) / mean(1/2, 1) = (1/4) / (3/4) = 1/3
    # w1 = (1/2) / mean(1/4, 1) = (1/2) / (5/8) = 4/5
    # w2 = 1 / mean(1/4, 1/2) = 1 / (3/8) = 8/3
    weights = leave_one_out_weights([0.0, 1.0, 2.0], LN2)
    assert weights == pytest.approx([1 / 3, 4 / 5, 8 / 3], abs=1e-12)


def test_effective_sample_size_by_hand() -> None:
    # (1/3 + 4/5 + 8/3)^2 = 3.8^2 = 361/25; sum w^2 = 1/9 + 16/25 + 64/9 = 1769/225
    # ESS = (361/25) / (1769/225) = 3249/1769; divided by k = 3: 1083/1769
    assert effective_sample_size([1 / 3, 4 / 5, 8 / 3]) == pytest.approx(1083 / 1769, abs=1e-12)
    assert effective_sample_size([1.0, 1.0, 1.0, 1.0]) == pytest.approx(1.0, abs=1e-12)
    assert effective_sample_size([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25, abs=1e-12)


def test_grpo_advantages_by_hand() -> None:
    # [1, 2, 3]: mean 2, population std sqrt(2/3) = 0.816496580927726
    spread = math.sqrt(2 / 3) + 1e-6
    assert grpo_advantages([1.0, 2.0, 3.0]) == pytest.approx([-1 / spread, 0.0, 1 / spread], abs=1e-12)
    # [0, 0, 0, 4]: mean 1, variance (1 + 1 + 1 + 9) / 4 = 3, std sqrt(3)
    spread = SQRT3 + 1e-6
    assert grpo_advantages([0.0, 0.0, 0.0, 4.0]) == pytest.approx([-1 / spread] * 3 + [3 / spread], abs=1e-12)
    assert grpo_advantages([1.0, 2.0, 3.0])[2] == pytest.approx(1.2247434, abs=1e-6)


def test_rank_advantages_by_hand() -> None:
    # [10, 30, 20, 20]: ranks [1, 4, 2.5, 2.5]; A = 2 (rank - 1) / 3 - 1 = [-1, 1, 0, 0]
    assert rank_advantages([10.0, 30.0, 20.0, 20.0]) == pytest.approx([-1.0, 1.0, 0.0, 0.0], abs=1e-12)
    # [5, 1, 3]: ranks [3, 1, 2]; A = (rank - 1) - 1 = [1, -1, 0]
    assert rank_advantages([5.0, 1.0, 3.0]) == pytest.approx([1.0, -1.0, 0.0], abs=1e-12)


def test_group_advantages_drop_and_count_constant_groups() -> None:
    groups = [[0.0, 1.0, 2.0], [5.0, 5.0, 5.0], [0.0, 1.0], [2.0]]
    result = group_advantages(groups, "entropic")
    assert result.advantages[1] is None and result.advantages[3] is None
    assert (result.constant_groups, result.constant_fraction) == (2, 0.5)
    assert result.betas[1] is None and result.betas[3] is None
    # group 0 reaches ln 2 (unique best of 3, up to ln 3); group 2 (k = 2) saturates at beta = 30
    assert result.saturated_fraction == 0.5
    assert result.betas[2] == 30.0
    # group 2: e = [e^-30, 1]; w = [e^-30 / 1, 1 / e^-30], saturated so clipped at k = 2: [e^-30, 2];
    # A = w - mean w, mean w = (e^-30 + 2) / 2
    assert result.advantages[2] == pytest.approx([(math.exp(-30) - 2) / 2, (2 - math.exp(-30)) / 2], rel=1e-9)
    weights = leave_one_out_weights(groups[0], result.betas[0])
    centre = sum(weights) / 3
    assert centre > 1.1  # leave-one-out weights do not average 1: the -1 baseline would push every rollout up
    assert result.advantages[0] == pytest.approx([weight - centre for weight in weights], abs=1e-12)
    # ESS / k of group 2: (e^-30 + 2)^2 / (2 (e^-60 + 4)) = 1/2 to within e^-30
    expected = (effective_sample_size(weights) + 0.5) / 2
    assert result.mean_effective_sample_size == pytest.approx(expected, abs=1e-9)


def test_a_saturated_group_clips_a_lone_winner_at_k_and_keeps_tied_winners() -> None:
    lone = group_advantages([[0.0, 0.0, 0.0, 1.0]], "entropic", delta=1.5)  # ln 4 < 1.5: out of reach
    assert lone.saturated_fraction == 1.0
    assert lone.advantages[0] == pytest.approx([-1.0, -1.0, -1.0, 3.0], abs=1e-9)
    tied = group_advantages([[0.0, 0.0, 1.0, 1.0]], "entropic")  # delta = ln 2 = ln(4 / 2): saturated
    # the winners keep their leave-one-out weight 1 / ((1 + 2 e^-30) / 3), about 3 < k; mean w 3/2
    assert tied.saturated_fraction == 1.0
    assert tied.advantages[0] == pytest.approx([-1.5, -1.5, 1.5, 1.5], abs=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_advantages_sum_to_zero_in_every_group(method: str) -> None:
    """A group's advantages must not favour the rollouts it drew over those it did not."""
    groups = [[-0.08, -0.18, -0.0, -0.25], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.3, -2.0, 0.1, 0.2]]
    for advantages in group_advantages(groups, method).advantages:
        assert math.fsum(advantages) == pytest.approx(0.0, abs=1e-9)


def test_group_advantages_grpo_and_rank() -> None:
    groups = [[1.0, 2.0, 3.0], [4.0, 4.0]]
    grpo = group_advantages(groups, "grpo")
    assert grpo.advantages[0] == pytest.approx(grpo_advantages([1.0, 2.0, 3.0]), abs=1e-12)
    assert grpo.advantages[1] is None and grpo.constant_groups == 1
    assert (grpo.betas, grpo.mean_effective_sample_size, grpo.saturated_fraction) == ([None, None], None, 0.0)
    assert group_advantages(groups, "rank").advantages[0] == pytest.approx([-1.0, 0.0, 1.0], abs=1e-12)
    with pytest.raises(ValueError):
        group_advantages(groups, "ppo")


# --- the KL controller ------------------------------------------------------------------------

CONFIG = KlControlConfig()  # target 0.05, band 1.5: raise above 0.075, lower below 0.0333


def signals(
    reference_kl: float = 0.05, ess: float | None = 0.5, constant: float = 0.0, saturated: float = 0.0
) -> KlControlSignals:
    return KlControlSignals(reference_kl, ess, constant, saturated)


def test_kl_coef_doubles_halves_and_holds() -> None:
    start = KlControlState.initial(CONFIG)
    assert (start.delta, start.kl_coef) == (LN2, 0.1)
    raised = update_kl_budget(start, signals(reference_kl=0.1), CONFIG)  # 0.1 > 0.075
    assert (raised.kl_coef, raised.kl_coef_action) == (pytest.approx(0.2, abs=1e-12), "raise")
    lowered = update_kl_budget(start, signals(reference_kl=0.01), CONFIG)  # 0.01 < 0.0333
    assert (lowered.kl_coef, lowered.kl_coef_action) == (pytest.approx(0.05, abs=1e-12), "lower")
    held = update_kl_budget(start, signals(reference_kl=0.06), CONFIG)
    assert (held.kl_coef, held.kl_coef_action, held.delta, held.delta_action) == (0.1, "hold", LN2, "hold")


def test_kl_coef_is_clamped() -> None:
    high = update_kl_budget(KlControlState(delta=LN2, kl_coef=8.0), signals(reference_kl=1.0), CONFIG)
    assert high.kl_coef == 10.0  # 16 clamped to kl_coef_max
    low = update_kl_budget(KlControlState(delta=LN2, kl_coef=1.5e-4), signals(reference_kl=0.0), CONFIG)
    assert low.kl_coef == 1e-4  # 7.5e-5 clamped to kl_coef_min


def test_delta_shrinks_and_grows() -> None:
    start = KlControlState.initial(CONFIG)
    # ln 2 / 1.25 = 0.5545177444479562; ln 2 * 1.25 = 0.8664339756999316
    peaked = update_kl_budget(start, signals(ess=0.1), CONFIG)  # ESS 0.1 < floor 0.25
    assert (peaked.delta, peaked.delta_action) == (pytest.approx(0.5545177444479562, abs=1e-12), "shrink")
    unreachable = update_kl_budget(start, signals(saturated=0.75), CONFIG)  # 0.75 > 0.5
    assert unreachable.delta == pytest.approx(0.5545177444479562, abs=1e-12)
    sparse = update_kl_budget(start, signals(constant=0.75), CONFIG)  # 0.75 > 0.5
    assert (sparse.delta, sparse.delta_action) == (pytest.approx(0.8664339756999316, abs=1e-12), "grow")
    both = update_kl_budget(start, signals(ess=0.1, constant=0.9), CONFIG)  # shrinking comes first
    assert both.delta_action == "shrink"
    no_weights = update_kl_budget(start, signals(ess=None, constant=0.2), CONFIG)  # grpo: no ESS test
    assert (no_weights.delta, no_weights.delta_action) == (LN2, "hold")


def test_delta_is_clamped() -> None:
    grown = update_kl_budget(KlControlState(delta=1.4, kl_coef=0.1), signals(constant=1.0), CONFIG)
    assert grown.delta == 1.5  # 1.75 clamped to delta_max
    shrunk = update_kl_budget(KlControlState(delta=0.06, kl_coef=0.1), signals(ess=0.01), CONFIG)
    assert shrunk.delta == 0.05  # 0.048 clamped to delta_min


def test_state_logs_knobs_actions_and_signals() -> None:
    batch = signals(reference_kl=0.2, ess=0.1, constant=0.25, saturated=0.5)
    state_after = update_kl_budget(KlControlState.initial(CONFIG), batch, CONFIG)
    assert state_after.to_dict() == {
        "delta": pytest.approx(LN2 / 1.25, abs=1e-12),
        "kl_coef": pytest.approx(0.2, abs=1e-12),
        "delta_action": "shrink",
        "kl_coef_action": "raise",
        "reference_kl": 0.2,
        "effective_sample_size": 0.1,
        "constant_fraction": 0.25,
        "saturated_fraction": 0.5,
    }
    initial_row = {"delta": LN2, "kl_coef": 0.1, "delta_action": "hold", "kl_coef_action": "hold"}
    assert KlControlState.initial(CONFIG).to_dict() == initial_row
