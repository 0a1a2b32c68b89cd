"""Claims written from the netlist (issue 22): what a module is (a function from its truth table),
its reset values, its enables, its counters' ranges, what its registers load, its status flags
and its latches.
Each sentence the writer makes reads back as the claims it came from, the facts verify them,
and a simulation on Icarus agrees; seeded false claims, and a module that simulates
differently from how it synthesises, are not verified."""

from __future__ import annotations

import pytest

from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.behaviour import module_behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, sentence_claims
from hdlrl.summarize.compose_policy import compress_candidates
from hdlrl.summarize.count_evidence import CountEvidence
from hdlrl.summarize.counting import claim_value, count_of, range_of
from hdlrl.summarize.data_evidence import DataPathEvidence
from hdlrl.summarize.document import Document
from hdlrl.summarize.enable_evidence import EnableEvidence
from hdlrl.summarize.prompt import SummaryState, summary_user_prompt
from hdlrl.summarize.flag_evidence import FlagEvidence
from hdlrl.summarize.flip_flop_evidence import FlipFlopEvidence
from hdlrl.summarize.function_evidence import FunctionEvidence
from hdlrl.summarize.reset_evidence import ResetEvidence
from hdlrl.summarize.spec_sentences import (count_sentences, data_path_sentences, enable_sentences, flag_sentences,
                                            flip_flop_sentences, function_sentences, reset_sentences, spec_opening,
                                            what_it_is)

MODULES = """module pick(input [3:0] a, input [3:0] b, input s, output [3:0] y);
  assign y = s ? b : a;
endmodule

module stale(input [3:0] a, input [3:0] b, input s, output reg [3:0] y);
  always @(s) y = s ? b : a;  // Icarus updates y only when s changes; Yosys reads a multiplexer
endmodule

module bigger(input [5:0] a, input [5:0] b, output gt);
  assign gt = a > b;
endmodule

module rom4(input [2:0] a, output reg [5:0] d);
  always @* case (a) 3'd0: d = 6'd7; 3'd1: d = 6'd12; 3'd2: d = 6'd40; 3'd3: d = 6'd3;
                     3'd4: d = 6'd63; 3'd5: d = 6'd9; 3'd6: d = 6'd21; default: d = 6'd30; endcase
endmodule

module count9(input clk, input rst_n, input en, input [3:0] unused, output reg [3:0] c);
  always @(posedge clk or negedge rst_n)
    if (!rst_n) c <= 4'd9;
    else if (en) c <= c + 4'd1;
endmodule

module sat12(input clk, input rst, input go, output reg [3:0] c);
  always @(posedge clk)
    if (rst) c <= 4'd0;
    else if (!go && c != 4'd12) c <= c + 4'd1;
endmodule

module mod6(input clk, input rst, output reg [2:0] c);
  always @(posedge clk)
    if (rst) c <= 3'd0;
    else c <= (c == 3'd5) ? 3'd0 : c + 3'd1;
endmodule

module loadreg(input clk, input load, input [7:0] d, output reg [7:0] q);
  always @(posedge clk)
    if (load) q <= d;
endmodule

module dff_en(input clk, input en, input [3:0] d, output reg [3:0] q);
  always @(posedge clk) if (en) q <= d;
endmodule

module shift_right(input clk, input rst, input sin, output reg [5:0] r);
  always @(posedge clk) if (rst) r <= 6'd0; else r <= {sin, r[5:1]};
endmodule

module two_clocks(input wclk, input rclk, input [3:0] d, output reg [3:0] w, output reg [3:0] r);
  always @(posedge wclk) w <= d;
  always @(negedge rclk) r <= d;
endmodule

module hold_latch(input g, input [3:0] d, output reg [3:0] q);
  always @* if (g) q = d;
endmodule

module vote3(input [7:0] a, input [7:0] b, input [7:0] c, output [7:0] v);
  assign v = (a & b) | (b & c) | (a & c);  // 24 input bits: recognised one bit at a time
endmodule

module stale_vote(input [7:0] a, input [7:0] b, input [7:0] c, output reg [7:0] v);
  always @(a) v = (a & b) | (b & c) | (a & c);  // Icarus updates v only when a changes
endmodule

module jk(input clk, input rst, input j, input k, output reg q);
  always @(posedge clk)
    if (rst) q <= 1'b0;
    else case ({j, k}) 2'b01: q <= 1'b0; 2'b10: q <= 1'b1; 2'b11: q <= ~q; default: q <= q; endcase
endmodule

module tog(input clk, input rst_n, input t, output reg q);
  always @(posedge clk or negedge rst_n) if (!rst_n) q <= 1'b0; else if (t) q <= !q;
endmodule

module sr_reset_wins(input clk, input s, input r, output reg q);
  always @(posedge clk) if (r) q <= 1'b0; else if (s) q <= 1'b1;
endmodule

module two_inputs(input clk, input a, input b, output reg q);
  always @(posedge clk) q <= a & ~b;  // reads two inputs, but no flip-flop kind: it never holds
endmodule

module lfsr4(input clk, input rst, output reg [3:0] q);
  always @(posedge clk) if (rst) q <= 4'd1; else q <= {q[2:0], q[3] ^ q[2]};  // x^4 + x^3 + 1: 15 states
endmodule

module johnson4(input clk, input rst_n, input hold, output reg [3:0] j);
  always @(posedge clk or negedge rst_n) if (!rst_n) j <= 4'd0; else if (!hold) j <= {j[2:0], ~j[3]};
endmodule

module flags(input clk, input rst, input en, output reg [3:0] c, output zero, output last);
  always @(posedge clk) if (rst) c <= 4'd0; else if (en) c <= c + 4'd1;
  assign zero = c == 4'd0;
  assign last = en && c == 4'd11;
endmodule

module stale_flag(input clk, input rst, input en, output reg [3:0] c, output reg zero);
  always @(posedge clk) if (rst) c <= 4'd0; else if (en) c <= c + 4'd1;
  always @(en) zero = c == 4'd0;  // Icarus updates zero only when en changes; Yosys reads a comparator
endmodule

module shifter(input clk, input si, output so);
  reg [3:0] stages;
  always @(posedge clk) stages <= {stages[2:0], si};
  assign so = stages[3];
endmodule
"""


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("netlist_claims") / "modules.v"
    path.write_text(MODULES)
    found = {}
    for module in read_source(path)[0]:
        facts = module_facts(module)
        found[module.name] = (module, facts, module_behaviour(module, facts))
    return found


def _claims(sentences: list[str]) -> list[Claim]:
    return [claim for sentence in sentences for claim in sentence_claims(sentence)]


def _verdicts(modules: dict, name: str, claim: Claim) -> tuple[bool, str | None]:
    """(the facts verify it, the simulation's status) for one claim."""
    module, facts, behaviour = modules[name]
    scope = Scope(facts, behaviour=behaviour)
    if claim.kind == "function":
        status = FunctionEvidence(module, facts, behaviour)(claim).status
    elif claim.kind == "enable":
        status = EnableEvidence(module, facts, behaviour)(claim).status
    elif claim.kind == "data_path":
        status = DataPathEvidence(module, facts, behaviour)(claim).status
    elif claim.kind == "flip_flop":
        status = FlipFlopEvidence(module, facts, behaviour)(claim).status
    elif claim.kind == "flag":
        status = FlagEvidence(module, facts, behaviour)(claim).status
    elif claim.kind == "count_range":
        status = CountEvidence(module, facts, behaviour.netlist)(claim).status
    elif claim.kind == "reset_value":
        value = next((each for each in behaviour.reset_values if (each.signal, each.register) == claim.names), None)
        status = ResetEvidence(module, facts).value_evidence(value).status if value else None
    else:
        status = None
    return check(claim, scope), status


def test_written_sentences_read_back_and_are_verified_twice(modules: dict) -> None:
    written = {
        "pick": function_sentences(modules["pick"][2]),
        "bigger": function_sentences(modules["bigger"][2]),
        "vote3": function_sentences(modules["vote3"][2]),
        "rom4": function_sentences(modules["rom4"][2]),
        "count9": reset_sentences(modules["count9"][1], modules["count9"][2])
        + enable_sentences(modules["count9"][1], modules["count9"][2]),
        "loadreg": enable_sentences(modules["loadreg"][1], modules["loadreg"][2]),
        "sat12": count_sentences(modules["sat12"][1], modules["sat12"][2]),
        "mod6": count_sentences(modules["mod6"][1], modules["mod6"][2]),
        "shifter": [what_it_is(modules["shifter"][1], modules["shifter"][2])],
        "shift_right": data_path_sentences(modules["shift_right"][1], modules["shift_right"][2]),
        "dff_en": [what_it_is(modules["dff_en"][1], modules["dff_en"][2])],
        **{name: flip_flop_sentences(modules[name][1], modules[name][2]) for name in ("jk", "tog", "sr_reset_wins")},
        **{name: count_sentences(modules[name][1], modules[name][2]) for name in ("lfsr4", "johnson4")},
        "flags": flag_sentences(modules["flags"][1], modules["flags"][2]),
    }
    assert written["pick"] == ["`y` is a 2-to-1 multiplexer selected by `s`."]
    assert written["bigger"] == ["`gt` is a 6-bit comparator: `a` > `b` (unsigned)."]
    assert written["rom4"] == ["`d` is an 8-entry lookup table (ROM) addressed by `a`, its 6-bit entries from 3 to 63."]
    assert written["vote3"] == ["`v` is an 8-bit bitwise majority (2-of-3 vote) of `a`, `b`, `c`."]
    assert written["count9"] == ["It has an active-low asynchronous reset `rst_n`, which sets `c` to 9.",
                                 "`c` changes only while `en` is high; with `en` low it holds its value."]
    assert written["loadreg"] == ["`q` changes only while `load` is high; with `load` low it holds its value."]
    assert written["sat12"] == ["With `go` low, `c` counts up from 0 to 12, then stays at 12."]
    assert written["mod6"] == ["`c` counts up from 0 to 5, then wraps to 0."]
    assert written["shifter"] == ["`shifter` contains a 4-bit shift register: `stages` shifts left by one bit at "
                                  "each rising edge of `clk`, taking `si` into bit 0."]
    assert written["shift_right"] == ["`r` shifts right by one bit at each rising edge of `clk`, taking `sin` "
                                      "into bit 5."]
    assert written["dff_en"] == ["`dff_en` is a 4-bit register: `q` takes the value of `d` at each rising edge "
                                 "of `clk`."]
    assert written["jk"] == ["`q` is a JK flip-flop on `j` and `k`: both low hold it, `j` alone sets it, `k` alone "
                             "clears it, and both high toggle it."]
    assert written["tog"] == ["`q` is a T flip-flop on `t`: it toggles while `t` is high and holds while `t` is low."]
    assert written["sr_reset_wins"] == ["`q` is an SR flip-flop on `s` and `r`: `s` sets it, `r` clears it, and `r` "
                                        "wins when both are high."]
    assert modules["two_inputs"][2].flip_flops == {}
    assert written["lfsr4"] == ["`q` cycles through 15 distinct states from its reset value before repeating."]
    assert written["johnson4"] == ["With `hold` low, `j` cycles through 8 distinct states from its reset value before "
                                   "repeating."]
    assert written["flags"] == ["`zero` is high when `c` is 0.", "`last` is high when `c` is 11 and `en` is high."]
    for name, sentences in written.items():
        netlist_claims = [claim for claim in _claims(sentences) if claim.kind in (
            "function", "reset_value", "enable", "count_range", "data_path", "flip_flop", "flag")]
        assert netlist_claims, name
        for claim in netlist_claims:
            assert _verdicts(modules, name, claim) == (True, "verified"), (name, claim)


@pytest.mark.parametrize("name, claim", [
    ("pick", Claim("function", ("y", "a"), "2-to-1 multiplexer selected by `{}`")),  # the wrong select
    ("bigger", Claim("function", ("gt", "a", "b"), "6-bit comparator: `{}` < `{}` (unsigned)")),
    ("vote3", Claim("function", ("v", "a", "b", "c"), "4-bit bitwise majority (2-of-3 vote) of `{}`, `{}`, `{}`")),
    ("rom4", Claim("function", ("d", "a"), "8-entry lookup table (ROM) addressed by `{}`, its 6-bit entries from 0 "
                                           "to 63")),  # its least entry is 3
    ("jk", Claim("flip_flop", ("q", "k", "j"), "JK")),  # J and K swapped
    ("jk", Claim("flip_flop", ("q", "j", "k"), "SR set wins")),  # both high toggle, not set
    ("tog", Claim("flip_flop", ("q", "rst_n"), "T")),  # the reset is no toggle
    ("sr_reset_wins", Claim("flip_flop", ("q", "s", "r"), "SR set wins")),
    ("two_inputs", Claim("flip_flop", ("q", "a", "b"), "SR reset wins")),
    ("lfsr4", Claim("count_range", ("q",), "cycle 16")),  # never 0
    ("johnson4", Claim("count_range", ("j",), "cycle 4")),
    ("johnson4", Claim("count_range", ("j",), "up 0 7 0")),
    ("count9", Claim("reset_value", ("rst_n", "c"), "0")),  # the reset loads 9
    ("count9", Claim("enable", ("c", "en"), "low")),  # the other level
    ("count9", Claim("enable", ("c", "rst_n"), "high")),  # a reset is no enable
    ("loadreg", Claim("enable", ("q", "d"), "high")),  # not even 1 bit
    ("hold_latch", Claim("combinational")),  # no clocked block, but a latch
    ("count9", Claim("no_reset")),
    ("shifter", Claim("latch", ("stages",))),
    ("sat12", Claim("count_range", ("c",), "up 0 12 0")),  # it stays at 12
    ("sat12", Claim("count_range", ("c",), "up 0 15 0")),
    ("mod6", Claim("count_range", ("c",), "up 0 7 0")),  # the natural wrap would be 7
    ("count9", Claim("count_range", ("c",), "down 15 0 15")),
    ("shifter", Claim("data_path", ("stages", "si"), "right")),  # the other way
    ("shift_right", Claim("data_path", ("r", "sin"), "load")),
    ("dff_en", Claim("data_path", ("q", "en"), "load")),
    ("loadreg", Claim("data_path", ("q", "load"), "left")),
    ("flags", Claim("flag", ("zero", "c"), "when 1")),  # another value
    ("flags", Claim("flag", ("zero", "c"), "unless 0")),  # the other level
    ("flags", Claim("flag", ("last", "c", "en"), "when 11 low")),  # the input at the other level
    ("flags", Claim("flag", ("last", "c"), "when 11")),  # the input left out
])
def test_seeded_false_netlist_claims_are_not_verified(modules: dict, name: str, claim: Claim) -> None:
    verified, status = _verdicts(modules, name, claim)
    assert not verified or status in ("refuted", "unverified")


def test_a_module_that_simulates_unlike_its_netlist_has_its_function_refuted(modules: dict) -> None:
    module, facts, behaviour = modules["stale"]
    (sentence,) = function_sentences(behaviour)  # Yosys ignores the sensitivity list
    (claim,) = [claim for claim in sentence_claims(sentence) if claim.kind == "function"]
    assert check(claim, Scope(facts, behaviour=behaviour))
    evidence = FunctionEvidence(module, facts, behaviour)(claim)
    assert evidence.status == "refuted" and "Icarus gives y=" in evidence.reason


@pytest.mark.parametrize("name, claim", [
    ("jk", Claim("flip_flop", ("q", "k", "j"), "JK")),
    ("sr_reset_wins", Claim("flip_flop", ("q", "s", "r"), "SR set wins")),
    ("two_inputs", Claim("flip_flop", ("q", "a", "b"), "SR reset wins")),
])
def test_the_simulation_alone_refutes_a_false_flip_flop_kind(modules: dict, name: str, claim: Claim) -> None:
    module, facts, behaviour = modules[name]
    evidence = FlipFlopEvidence(module, facts, behaviour)(claim)
    assert evidence.status == "refuted", evidence


@pytest.mark.parametrize("claim", [
    Claim("flag", ("zero", "c"), "when 1"),
    Claim("flag", ("last", "c", "en"), "when 11 low"),
    Claim("flag", ("last", "c"), "when 11"),
])
def test_the_simulation_alone_refutes_a_false_flag(modules: dict, claim: Claim) -> None:
    module, facts, behaviour = modules["flags"]
    evidence = FlagEvidence(module, facts, behaviour)(claim)
    assert evidence.status == "refuted", evidence


def test_a_flag_that_simulates_unlike_its_netlist_is_refuted(modules: dict) -> None:
    module, facts, behaviour = modules["stale_flag"]
    (sentence,) = flag_sentences(facts, behaviour)
    (claim,) = [claim for claim in sentence_claims(sentence) if claim.kind == "flag"]
    assert check(claim, Scope(facts, behaviour=behaviour))
    evidence = FlagEvidence(module, facts, behaviour)(claim)
    assert evidence.status == "refuted" and "zero was" in evidence.reason


def test_a_bitwise_vote_that_simulates_unlike_its_netlist_is_refuted(modules: dict) -> None:
    module, facts, behaviour = modules["stale_vote"]
    (sentence,) = function_sentences(behaviour)
    (claim,) = [claim for claim in sentence_claims(sentence) if claim.kind == "function"]
    assert check(claim, Scope(facts, behaviour=behaviour))
    evidence = FunctionEvidence(module, facts, behaviour)(claim)
    assert evidence.status == "refuted" and "Icarus gives v=" in evidence.reason


def test_what_it_is_tells_a_latch_and_a_module_without_reset(modules: dict) -> None:
    _, facts, behaviour = modules["hold_latch"]
    sentence = what_it_is(facts, behaviour)
    assert sentence == "`hold_latch` is level-sensitive, with no clock: it holds `q` in a latch."
    assert all(check(claim, Scope(facts, behaviour=behaviour)) for claim in sentence_claims(sentence))
    _, facts, behaviour = modules["shifter"]
    assert reset_sentences(facts, behaviour) == ["There is no reset."]
    assert check(Claim("no_reset"), Scope(facts, behaviour=behaviour))


def test_a_language_model_is_shown_the_netlist_behaviour(modules: dict) -> None:
    module, facts, behaviour = modules["count9"]
    state = SummaryState(module.name, module.source, facts, "single_shot", Document("", ()), behaviour=behaviour)
    prompt = summary_user_prompt(state)
    assert "Behaviour read from the netlist" in prompt
    assert "- It has an active-low asynchronous reset `rst_n`, which sets `c` to 9." in prompt
    assert "Behaviour read from the netlist" not in summary_user_prompt(
        SummaryState(module.name, module.source, facts, "single_shot", Document("", ())))


@pytest.mark.parametrize("trace, width, expected", [
    ([0, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0], 3, "up 0 5 0"),  # a modulo-6 counter
    ([9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 4, "up 0 15 0"),  # the natural wrap, from 9
    ([7, 6, 5, 4, 4, 4, 4], 3, "down 7 4 stays"),  # saturates
    ([0, 1, 0, 1, 0, 1], 4, "up 0 1 0"),
    ([0, 0, 1, 3, 2, 6, 7, 5, 4, 12, 13, 15, 14, 10, 11, 9, 8, 0, 1], 4, None),  # a Gray code is no count
    ([0, 1, 2, 3, 4, 5, 0, 1, 2, 7, 4, 5, 0], 3, None),  # breaks its cycle
    ([1, 2, 4, 8, 1, 2, 4, 8], 4, None),  # a ring
    ([3, 3, 3, 3], 2, None),
])
def test_a_count_range_is_a_run_of_steps_that_stays_or_repeats(trace: list[int], width: int, expected: str | None,
                                                             ) -> None:
    found = range_of("c", trace, width)
    assert (claim_value(found) if found else None) == expected


@pytest.mark.parametrize("trace, expected", [
    ([1, 1, 2, 4, 8, 1, 2, 4, 8, 1], "cycle 4"),  # a ring counter, from its reset value
    ([0, 1, 3, 7, 15, 14, 12, 8, 0, 1, 3], "cycle 8"),  # a Johnson counter
    ([0, 0, 1, 2, 3, 0, 1, 2, 3], "up 0 3 0"),  # a count is a range, not a cycle
    ([5, 2, 1, 0, 0, 0], None),  # a shift register filling with zeros settles
    ([6, 1, 2, 4, 1, 2, 4], None),  # repeats, but not from where it started
    ([1, 4, 1, 4], None),  # two values: too few to call a cycle
    ([1, 3, 2, 1, 3, 7], None),  # breaks its cycle
])
def test_a_register_that_counts_by_other_steps_has_a_cycle(trace: list[int], expected: str | None) -> None:
    found = count_of("c", trace, 4)
    assert (claim_value(found) if found else None) == expected


def test_the_search_offers_the_summary_without_its_unverified_sentences(modules: dict) -> None:
    module, facts, behaviour = modules["count9"]
    wrong = "It has an active-low asynchronous reset `rst_n`, which sets `c` to 0."
    summary = f"`count9` is a sequential module clocked on the rising edge of `clk`. {wrong}"
    document = Document(summary, tuple("" for _ in facts.blocks))
    unverified = tuple(claim for claim in sentence_claims(wrong) if not check(claim, Scope(facts, behaviour=behaviour)))
    assert unverified == (Claim("reset_value", ("rst_n", "c"), "0"),)
    assert summary.replace(f" {wrong}", "") in compress_candidates(facts, document, unverified)
    state = SummaryState(module.name, module.source, facts, "compress", document, behaviour=behaviour,
                         unverified=unverified)
    assert "- reset_value rst_n, c 0" in summary_user_prompt(state)


def test_every_clock_is_named_and_a_register_loads_on_its_own(modules: dict) -> None:
    _, facts, behaviour = modules["two_clocks"]
    opening = spec_opening(facts, behaviour)
    assert opening[0].startswith("`two_clocks` is a 4-bit register: ")
    assert "`r` takes the value of `d` at each falling edge of `rclk`." in " ".join(opening)
    assert what_it_is(facts, None) == ("`two_clocks` is a sequential module clocked on the rising edge of `wclk` "
                                       "and the falling edge of `rclk`.")
    claims = [claim for sentence in opening for claim in sentence_claims(sentence)]
    assert Claim("clock", ("rclk",), "negedge") in claims
    assert all(check(claim, Scope(facts, behaviour=behaviour)) for claim in claims)
