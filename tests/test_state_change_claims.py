"""State changes with the inputs they wait for, and outputs of the state alone (issue 22): written
from Yosys's netlist in the source's state names, checked again on Icarus, and seeded false
conditions and levels refuted there."""

from __future__ import annotations

from pathlib import Path

from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.behaviour import module_behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, text_claims
from hdlrl.summarize.fsm_evidence import StateChangeEvidence
from hdlrl.summarize.spec_sentences import state_machine_sentences

DOOR = """module door (input clk, input rst_n, input button, input at_top, input at_bottom, input obstacle,
             output motor_up);
  localparam CLOSED = 2'd0, OPENING = 2'd1, OPEN = 2'd2, CLOSING = 2'd3;
  reg [1:0] state, next;
  always @(posedge clk or negedge rst_n) if (!rst_n) state <= CLOSED; else state <= next;
  always @* begin
    next = state;
    case (state)
      CLOSED:  if (button) next = OPENING;
      OPENING: if (at_top) next = OPEN;
      OPEN:    if (button) next = CLOSING;
      CLOSING: if (obstacle) next = OPENING; else if (at_bottom) next = CLOSED;
    endcase
  end
  assign motor_up = state == OPENING;
endmodule
"""


def _door(tmp_path: Path):
    """The door's module, facts, netlist behaviour and state-machine sentences."""
    path = tmp_path / "door.v"
    path.write_text(DOOR)
    module = read_source(path)[0][0]
    facts = module_facts(module)
    behaviour = module_behaviour(module, facts)
    return module, facts, behaviour, " ".join(state_machine_sentences(facts, behaviour))


def test_changes_are_stated_with_their_conditions_and_checked_in_simulation(tmp_path: Path) -> None:
    module, facts, behaviour, text = _door(tmp_path)
    assert "Its states: `CLOSED`, `OPENING`, `OPEN` and `CLOSING`." in text
    assert "from `CLOSING` to `CLOSED` when `at_bottom` is high and `obstacle` is low" in text, text
    evidence = StateChangeEvidence(module, facts, behaviour)
    claims = [claim for claim in text_claims(text) if claim.kind == "transition_when"]
    assert len(claims) == 5, claims
    for claim in claims:
        assert check(claim, Scope(facts, behaviour=behaviour)), claim
        assert evidence(claim).status == "verified", (claim, evidence(claim))
        levels = claim.value.split()
        for index in range(len(levels)):
            flipped = " ".join(("low" if level == "high" else "high") if position == index else level
                               for position, level in enumerate(levels))
            variant = Claim(claim.kind, claim.names, flipped)
            assert not check(variant, Scope(facts, behaviour=behaviour)), variant
            assert evidence(variant).status == "refuted", (variant, evidence(variant))


def test_an_output_of_the_state_alone_is_stated_and_checked(tmp_path: Path) -> None:
    module, facts, behaviour, text = _door(tmp_path)
    assert "`motor_up` is high in `OPENING` and low in every other state." in text, text
    evidence = StateChangeEvidence(module, facts, behaviour)
    claim = Claim("state_output", ("motor_up", "OPENING"), "high")
    assert check(claim, Scope(facts, behaviour=behaviour)) and evidence(claim).status == "verified"
    for variant in (Claim("state_output", ("motor_up", "OPENING"), "low"), Claim("state_output", ("motor_up", "OPEN"), "high")):
        assert not check(variant, Scope(facts, behaviour=behaviour)), variant
        assert evidence(variant).status == "refuted", (variant, evidence(variant))
