"""Stimulus programs: parsing refuses malformed ones with a reason, rendering is deterministic
and does what each generator says; steering values come from the branch's source line."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from hdlrl.cover.cover_flow import load_cover_flow
from hdlrl.cover.directed_policy import (SOLVE_ACTION, STRETCH_ACTION, STRETCH_AFTER_SOLVED_ACTION, CoverageDirectedPolicy, coverage_features,
                                        stimulus_policy)
from hdlrl.cover.prompt import CoverState
from hdlrl.cover.functional import Bin, Covergroup, Coverpoint
from hdlrl.cover.steer import steering_values, stretch_lengths
from hdlrl.cover.stimulus import ProgramError, StimulusSpace, parse_program, render
from hdlrl.verify.interface import Port

FIFO_SPACE = StimulusSpace((Port("rst_n", "input", 1), Port("wr_en", "input", 1), Port("rd_en", "input", 1),
                            Port("din", "input", 8)), Port("rst_n", "input", 1), 0, reset_cycles=3, max_cycles=512)


def columns(program_text: str, seed: int = 1) -> dict[str, list[int]]:
    stimulus = render(parse_program(program_text, FIFO_SPACE, seed), FIFO_SPACE)
    return {port.name: [row[index] for row in stimulus.rows] for index, port in enumerate(stimulus.ports)}


def test_reset_first_then_segments_with_pinned_values() -> None:
    values = columns('{"segments": [{"generator": "hold", "cycles": 20, "values": {"wr_en": 1, "rd_en": 0}},'
                     '{"generator": "reset", "cycles": 2}, {"generator": "random", "cycles": 5}]}')
    assert values["rst_n"] == [0, 0, 0] + [1] * 20 + [0, 0] + [1] * 5
    assert values["wr_en"][3:23] == [1] * 20 and values["rd_en"][3:23] == [0] * 20
    assert len(set(values["din"][3:23])) == 1  # hold: one value the whole segment


def test_rendering_is_deterministic_per_seed() -> None:
    program = '{"segments": [{"generator": "random", "cycles": 50}]}'
    assert columns(program, 1) == columns(program, 1)
    assert columns(program, 1) != columns(program, 2)


def test_generators_shape_their_ports() -> None:
    corner = columns('{"segments": [{"generator": "corner", "cycles": 200, "ports": ["din"]}]}')["din"][3:]
    assert set(corner) <= {0, 255, 128, 127, 1, 2, 4, 8, 16, 32, 64}
    sparse = columns('{"segments": [{"generator": "sparse", "cycles": 400}]}')["din"][3:]
    dense = columns('{"segments": [{"generator": "dense", "cycles": 400}]}')["din"][3:]
    assert sum(bin(value).count("1") for value in sparse) * 3 < sum(bin(value).count("1") for value in dense)
    burst = columns('{"segments": [{"generator": "burst", "cycles": 300}]}')["wr_en"][3:]
    runs = sum(1 for first, second in zip(burst, burst[1:]) if first != second)
    assert 2 <= runs <= 300 // 4  # phases of at least 4 cycles


def test_vectors_keep_unnamed_ports() -> None:
    values = columns('{"segments": [{"generator": "vectors", "vectors": [{"din": 7, "wr_en": 1}, {"din": 9}]}]}')
    assert values["din"][3:] == [7, 9] and values["wr_en"][3:] == [1, 1]


@pytest.mark.parametrize("text, reason", [
    ("write some stimulus", "no JSON object"),
    ('{"segments": [{"generator": "fuzz", "cycles": 4}]}', "generator 'fuzz'"),
    ('{"segments": [{"generator": "random", "cycles": 0}]}', "cycles must be an integer"),
    ('{"segments": [{"generator": "hold", "cycles": 4, "values": {"din": 300}}]}', "does not fit 8 bits"),
    ('{"segments": [{"generator": "hold", "cycles": 4, "values": {"clk": 1}}]}', "'clk' is not a driven input"),
    ('{"segments": [{"generator": "random", "cycles": 4, "speed": 2}]}', "unknown field 'speed'"),
    ('{"segments": []}', "at least one segment"),
    ('{"segments": [{"generator": "random", "cycles": 600}]}', "cycles must be an integer from 1 to 512"),
    ('{"segments": [{"generator": "random", "cycles": 300}, {"generator": "random", "cycles": 300}]}',
     "at most 509"),
    ('{"segments": [{"generator": "random", "cycles": 4}', "invalid JSON"),
])
def test_malformed_programs_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ProgramError, match=reason.replace("(", r"\(")):
        parse_program(text, FIFO_SPACE)


def test_json_in_prose_is_found() -> None:
    program = parse_program('Here is my program:\n```json\n{"segments": [{"generator": "random", "cycles": 9}]}\n```',
                            FIFO_SPACE)
    assert program.cycles == 9
    assert parse_program(program.to_json(), FIFO_SPACE) == program


DECODER = """module decoder (input [2:0] a, input en, input [1:0] mode, output reg [7:0] y);
    localparam [1:0] WIDE = 2'd3;
    always @* begin
        if (!en) y = 0;
        else if (mode == WIDE) y = 8'hff;
        else case (a)
            3'd5: y = 8'h20;
            default: y = 8'h01;
        endcase
    end
endmodule
"""
INPUTS = {"a": 3, "en": 1, "mode": 2}


def test_steering_values_from_the_branch_line() -> None:
    sources = {"rtl/decoder.v": DECODER}
    assert steering_values("branch|rtl/decoder.v|4|0|4|if|", sources, INPUTS) == {"en": 0}
    assert steering_values("branch|rtl/decoder.v|4|0|4|else|", sources, INPUTS) == {"en": 1}
    assert steering_values("branch|rtl/decoder.v|5|0|5|elsif|", sources, INPUTS) == {"mode": 3}
    assert steering_values("branch|rtl/decoder.v|7|0|7|case|", sources, INPUTS) == {"a": 5}
    assert steering_values("toggle|rtl/decoder.v|1|0|1|a[0]|", sources, INPUTS) == {}


HUNTER = """module hunter (input clk, input rst, input bit_valid, input [7:0] key, output reg [10:0] hunt);
    localparam [10:0] HUNT_MAX = 11'd1500;
    reg [2:0] frames;
    always @(posedge clk)
        if (rst) hunt <= 11'd0;
        else if (hunt != HUNT_MAX) hunt <= hunt + 11'd1;
        else if (key == 8'd255) hunt <= 11'd400;
        else if (frames != 3'd7) frames <= frames + 3'd1;
endmodule
"""


def test_a_count_compared_with_a_large_constant_asks_for_a_stretch_a_quarter_longer() -> None:
    """The bound comes from the if's condition on a register: not from an input's comparison
    (a magic key), nor from a non-blocking assignment, nor from an unbounded coverpoint expression."""
    sources = {"rtl/hunter.v": HUNTER}
    inputs = {"bit_valid": 1, "key": 8}
    hunting = Coverpoint("hunting", "hunt", 11, (Bin("very_long", ((1024, 1499),)), Bin("low", ((3, 3),)),
                                                Bin("times_out", transition=(frozenset({1499}), frozenset({1500})))))
    keyed = Coverpoint("keyed", "{key, bit_valid}", 9, (Bin("magic", ((511, 511),)),))
    groups = [Covergroup("g", None, None, (hunting, keyed))]
    uncovered = ["branch|rtl/hunter.v|6|0|6|else|", "branch|rtl/hunter.v|7|0|7|if|", "branch|rtl/hunter.v|8|0|8|if|",
                 "g.hunting.very_long", "g.hunting.low", "g.hunting.times_out", "g.keyed.magic"]
    assert stretch_lengths(uncovered, sources, inputs, groups, longest=4093) == {
        "branch|rtl/hunter.v|6|0|6|else|": 1875, "branch|rtl/hunter.v|8|0|8|if|": 8,
        "g.hunting.very_long": 1280, "g.hunting.low": 3, "g.hunting.times_out": 1873}
    assert stretch_lengths(uncovered, sources, inputs, groups, longest=1500) == {
        "branch|rtl/hunter.v|8|0|8|if|": 8, "g.hunting.very_long": 1280, "g.hunting.low": 3}


def test_the_stretch_action_holds_inputs_only_past_the_longest_segment() -> None:
    policy = CoverageDirectedPolicy()
    stretch = policy.actions.index(STRETCH_ACTION)
    short = CoverState("d", "", {}, {"din": 8}, "rst", {"functional": 0.5}, ["g.c.b"], stretches={"g.c.b": 40})
    assert policy._prior(short)[stretch] == float("-inf")  # a 64-cycle hold already spans it
    long = replace(short, stretches={"g.c.b": 40, "g.c.timeout": 1875})
    assert policy._prior(long)[stretch] == 0.0
    held = [program for sample in policy.sample(long, 64, rng_seed=1)
            for program in json.loads(sample.text)["segments"] if program.get("cycles") == 1875]
    assert held and all(segment["generator"] == "hold" for segment in held)


def test_the_prompts_example_program_is_valid_and_names_the_designs_own_inputs() -> None:
    from hdlrl.cover.prompt import example_program

    inputs = {port.name: port.width for port in FIFO_SPACE.ports if port.name != "rst_n"}
    text = example_program(inputs)
    program = parse_program(text, FIFO_SPACE)
    assert len(program.segments) == 3 and '"wr_en": 1' in text and '"din": 0' in text


def test_the_random_baseline_runs_the_flow_s_random_cycles() -> None:
    flow = replace(load_cover_flow(), random_cycles=32)
    program = json.loads(stimulus_policy("random", flow).sample(None, 1, 0)[0].text)
    assert program == {"segments": [{"generator": "random", "cycles": 32}]}
    told = json.loads(stimulus_policy("random", flow, cycles=8).sample(None, 1, 0)[0].text)
    assert told["segments"][0]["cycles"] == 8


def test_a_stretch_after_the_longest_solved_sequence_replays_it_then_holds() -> None:
    """A carrier lost after its preamble: the quiet count starts only in the state the sequence reaches."""
    policy = CoverageDirectedPolicy()
    after = policy.actions.index(STRETCH_AFTER_SOLVED_ACTION)
    preamble = [{"din": cycle % 2} for cycle in range(96)]
    state = CoverState("d", "", {}, {"din": 1}, "rst", {"functional": 0.5}, ["g.carrier.lost"],
                       stretches={"g.carrier.lost": 375}, longest_solved=preamble)
    assert policy._prior(replace(state, longest_solved=[]))[after] == float("-inf")
    assert policy._prior(replace(state, stretches={"g.carrier.lost": 40}))[after] == float("-inf")
    assert policy._prior(state)[after] == 0.0
    programs = [json.loads(sample.text)["segments"] for sample in policy.sample(state, 16, rng_seed=1)
                if STRETCH_AFTER_SOLVED_ACTION in sample.action.split("+")]
    assert programs
    for segments in programs:  # first, since it starts with a reset
        assert [segment["generator"] for segment in segments[:3]] == ["reset", "vectors", "hold"], segments[:3]
        assert len(segments[1]["vectors"]) == 96 and segments[2]["cycles"] == 375


def _state_with_witnesses(count: int) -> CoverState:
    witnesses = {f"fsm.state.bin{index}": [{"din": index}] for index in range(count)}
    return CoverState("d", "", {}, {"din": 8}, "rst", {"functional": 0.5}, list(witnesses), witnesses=witnesses)


def test_solved_sequences_are_likelier_the_more_there_are_and_each_is_replayed_before_any_repeats() -> None:
    policy = CoverageDirectedPolicy()
    solve = policy.actions.index(SOLVE_ACTION)

    def solve_probability(count: int) -> float:
        state = _state_with_witnesses(count)
        return float(policy.softmax.log_policy(coverage_features(state), policy._prior(state))[solve].detach().exp())

    assert solve_probability(1) < solve_probability(4) < solve_probability(12)
    assert abs(solve_probability(4) - 4 / (4 + 21)) < 1e-6  # 21 generators (no steering, no stretch): each witness counts as one
    state = _state_with_witnesses(5)
    replayed = [item for sample in policy.sample(state, 8, rng_seed=3) for item in sample.metadata["solved"]]
    assert len(replayed) >= 5 and sorted(replayed[:5]) == sorted(state.witnesses)


def test_replays_of_solved_sequences_come_first_in_a_program() -> None:
    """A replay starts with a reset: after a generator's segment it would cut that sequence short."""
    policy = CoverageDirectedPolicy()
    for sample in policy.sample(_state_with_witnesses(6), 8, rng_seed=5):
        actions = sample.action.split("+")
        solved = [action == SOLVE_ACTION for action in actions]
        assert solved == sorted(solved, reverse=True), sample.action
