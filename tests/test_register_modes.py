"""Register modes (issue 22): what a register does under each setting of the inputs that steer it,
read exactly from Yosys's gate-level netlist, said in one sentence that reads back as its claim,
and checked again on Icarus; each seeded false variant is refuted by both."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.behaviour import module_behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, sentence_claims
from hdlrl.summarize.mode_evidence import RegisterModeEvidence, claimed_chain
from hdlrl.summarize.netlist_claims import register_mode_claim
from hdlrl.summarize.spec_sentences import register_mode_sentences, what_it_is

MODULES = """
module steer8(input clk, input rst, input load, input [1:0] op, input [7:0] d, input fill, output reg [7:0] r);
  always @(posedge clk)
    if (rst) r <= 8'd0;
    else if (load) r <= d;
    else case (op)
      2'b01: r <= {r[6:0], fill};
      2'b10: r <= {r[0], r[7:1]};
      2'b11: r <= {1'b0, r[7:1]};
      default: r <= r;
    endcase
endmodule

module chooser(input clk, input sel, input [3:0] a, input [3:0] b, output reg [3:0] q);
  always @(posedge clk) q <= sel ? a : b;
endmodule

module walker(input clk, input rst_n, input go, output reg [3:0] s);
  always @(posedge clk or negedge rst_n)
    if (!rst_n) s <= 4'd1;
    else if (go && s[3]) s <= s + 4'd1;
    else if (go) s <= {s[2:0], s[3]};
endmodule
"""


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("register_modes") / "modules.v"
    path.write_text(MODULES)
    read, unread = read_source(Path(path))
    assert not unread
    found = {}
    for module in read:
        facts = module_facts(module)
        found[module.name] = (module, facts, module_behaviour(module, facts))
    return found


def test_modes_are_read_exactly_and_said_as_a_priority_chain(modules: dict) -> None:
    _, facts, behaviour = modules["steer8"]
    (modes,) = behaviour.register_modes
    assert modes.controls == (("load", 1), ("op", 2))  # the reset held inactive is no control
    assert register_mode_sentences(facts, behaviour) == [
        "At each rising edge of `clk`, `r` takes `d` when `load` is high, else shifts left by one bit, filled by "
        "`fill` when `op` is 01, "
        "else rotates right by one bit when `op` is 10, else shifts right by one bit, filled with 0 when `op` "
        "is 11, else holds its value."]
    assert what_it_is(facts, behaviour).startswith("`steer8` is an 8-bit shift register: at each rising edge of `clk`, "
                                                   "`r` takes `d` when")
    claim = register_mode_claim(modes)
    assert claim in sentence_claims(register_mode_sentences(facts, behaviour)[0])
    assert not any(each.kind in ("drives", "reads", "data_path", "behaviour")
                   for each in sentence_claims(register_mode_sentences(facts, behaviour)[0]))
    assert check(claim, Scope(facts, behaviour=behaviour))
    evidence = RegisterModeEvidence(*modules["steer8"])(claim)
    assert evidence.status == "verified", evidence.reason


def test_a_registered_choice_has_modes_and_a_select_read_from_state_has_none(modules: dict) -> None:
    _, facts, behaviour = modules["chooser"]
    assert register_mode_sentences(facts, behaviour) == [
        "At each rising edge of `clk`, `q` takes `a` when `sel` is high, else takes `b`."]
    assert RegisterModeEvidence(*modules["chooser"])(register_mode_claim(behaviour.register_modes[0])).status \
        == "verified"
    assert modules["walker"][2].register_modes == ()  # an adder in its D logic, a select on its own bit


def _false_variants(claim: Claim) -> list[Claim]:
    swaps = [("left", "right"), ("right", "left"), ("is 01", "is 10"), ("is high", "is low"),
             ("filled with 0", "filled with 1")]
    variants = [Claim(claim.kind, claim.names, claim.value.replace(old, new, 1)) for old, new in swaps
                if old in claim.value]
    register, source, *rest = claim.names
    variants.append(Claim(claim.kind, (register, "fill", *rest), claim.value))  # loads another input
    return variants


def test_every_seeded_false_mode_claim_is_refuted_by_the_facts_and_by_simulation(modules: dict) -> None:
    module, facts, behaviour = modules["steer8"]
    claim = register_mode_claim(behaviour.register_modes[0])
    evidence = RegisterModeEvidence(module, facts, behaviour)
    variants = _false_variants(claim)
    assert len(variants) == 6
    for variant in variants:
        assert claimed_chain(variant) is not None
        assert not check(variant, Scope(facts, behaviour=behaviour)), variant
        found = evidence(variant)
        assert found.status == "refuted", (variant, found)
