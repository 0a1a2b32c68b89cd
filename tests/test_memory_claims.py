"""Memory claims (issue 22): the write and read ports Yosys's memory cells show are written into the
summary, checked again on Icarus, and every seeded false variant is refuted by the simulation itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.memory_ports import ReadPort, WritePort
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.behaviour import module_behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, text_claims
from hdlrl.summarize.memory_evidence import MemoryEvidence
from hdlrl.summarize.spec_sentences import memory_sentences

RAMS = {
    "read_first": """module read_first (input clk, input we, input [3:0] addr, input [7:0] wdata, output reg [7:0] rdata);
  reg [7:0] mem [0:15];
  always @(posedge clk) begin
    if (we) mem[addr] <= wdata;
    rdata <= mem[addr];
  end
endmodule
""",
    "async_read": """module async_read (input clk, input wr_n, input [2:0] a, input [3:0] d, output [3:0] q);
  reg [3:0] cells [0:7];
  always @(posedge clk) if (!wr_n) cells[a] <= d;
  assign q = cells[a];
endmodule
""",
    "write_first": """module write_first (input clk, input we, input [3:0] addr, input [7:0] din, output reg [7:0] dout);
  reg [7:0] mem [0:15];
  always @(posedge clk) begin
    if (we) begin mem[addr] <= din; dout <= din; end
    else dout <= mem[addr];
  end
endmodule
""",
}


def _module(tmp_path: Path, name: str):
    path = tmp_path / f"{name}.v"
    path.write_text(RAMS[name])
    module = read_source(path)[0][0]
    facts = module_facts(module)
    return module, facts, module_behaviour(module, facts)


def test_ports_are_read_from_the_memory_cell(tmp_path: Path) -> None:
    _, _, behaviour = _module(tmp_path, "read_first")
    (memory,) = behaviour.memories
    assert (memory.name, memory.depth, memory.width) == ("mem", 16, 8)
    assert memory.writes == (WritePort("clk", "posedge", "addr", "wdata", "we", True),)
    assert memory.reads == (ReadPort("rdata", "addr", "clk", "posedge", False),)
    _, _, behaviour = _module(tmp_path, "async_read")
    assert behaviour.memories[0].writes == (WritePort("clk", "posedge", "a", "d", "wr_n", False),)
    assert behaviour.memories[0].reads == (ReadPort("q", "a"),)


@pytest.mark.parametrize("name", sorted(RAMS))
def test_the_sentences_state_verified_claims_and_every_variant_is_refuted(tmp_path: Path, name: str) -> None:
    module, facts, behaviour = _module(tmp_path, name)
    evidence = MemoryEvidence(module, facts, behaviour)
    sentences = memory_sentences(facts, behaviour)
    claims = [claim for claim in text_claims(" ".join(sentences)) if claim.kind.startswith("memory_")]
    assert claims, sentences
    for claim in claims:
        assert check(claim, Scope(facts, behaviour=behaviour)), claim
        assert evidence(claim).status == "verified", (claim, evidence(claim))
        if claim.kind == "memory_read":
            variants = [Claim(claim.kind, claim.names, timing) for timing in
                        ("asynchronous", "synchronous old", "synchronous new") if timing != claim.value]
        else:
            edge, level = claim.value.split()
            memory, address, data, *rest = claim.names
            variants = [Claim(claim.kind, claim.names, f"{edge} {'low' if level == 'high' else 'high'}"),
                        Claim(claim.kind, (memory, data, address, *rest), claim.value)]
        for variant in variants:
            assert not check(variant, Scope(facts, behaviour=behaviour)), variant
            assert evidence(variant).status != "verified", (variant, evidence(variant))


def test_a_write_first_port_reads_the_new_word(tmp_path: Path) -> None:
    _, facts, behaviour = _module(tmp_path, "write_first")
    text = " ".join(memory_sentences(facts, behaviour))
    assert "`dout` shows the word at address `addr` one clock cycle later, the new word during a write" in text
