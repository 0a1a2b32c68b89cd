"""The LM policies' prompt carries what the model must see, and code comes back out of loose answers."""

from __future__ import annotations

import pytest

from hdlrl.errors import HdlrlError
from hdlrl.optimize.rewrite_policy import EMBEDDED_POLICIES
from hdlrl.policy import make_policy
from hdlrl.optimize.prompt import DesignState
from hdlrl.optimize.prompt import extract_sources

ADDER = "module add8(input [7:0] a, b, output [7:0] y);\n  assign y = a + b;\nendmodule"
HELPER = "module half(input a, b, output s, c);\n  assign {c, s} = a + b;\nendmodule"


def _state(**changes) -> DesignState:
    fields = dict(design_name="add8", top="add8", description="An 8-bit adder without carry out.",
                  sources={"rtl/add8.v": ADDER + "\n"},
                  ppa={"area_um2": 41.5, "delay_ns": 1.25, "power_mw": 0.0123},
                  reference_ppa={"area_um2": 40.0, "delay_ns": 1.5, "power_mw": 0.011},
                  feedback=["interface changed: port y width 8 -> 9", "testbench failed: y=3 expected 4"],
                  state_id="s1")
    return DesignState(**{**fields, **changes})


def test_prompt_carries_description_rtl_ppa_feedback_and_rules():
    system, user = _state().messages()
    assert system["role"] == "system" and user["role"] == "user"
    text = user["content"]
    assert "An 8-bit adder without carry out." in text
    assert "```verilog\n// file: rtl/add8.v\n" + ADDER in text
    assert "area 41.5 um^2, delay 1.25 ns, power 0.0123 mW" in text
    assert "area 40 um^2, delay 1.5 ns, power 0.011 mW" in text
    assert "- interface changed: port y width 8 -> 9" in text and "- testbench failed: y=3 expected 4" in text
    assert "module name `add8`" in text and "every port" in text and "every parameter" in text
    assert "Edit minimally" in text


def test_prompt_without_ppa_or_feedback():
    text = _state(ppa=None, reference_ppa=None, feedback=[]).messages()[1]["content"]
    assert "PPA of the current RTL: not measured yet." in text
    assert "rejected" not in text


def test_fenced_block_with_and_without_language_tag():
    for fence in ("```verilog", "```", "```systemverilog", "~~~v"):
        closing = fence[:3]
        completion = f"Here is a faster version.\n{fence}\n{ADDER}\n{closing}\nIt uses fewer cells."
        assert extract_sources(completion, ["rtl/add8.v"]) == {"rtl/add8.v": ADDER + "\n"}


def test_two_files_by_marker_and_in_order():
    marked = (f"```verilog\n// file: rtl/half.v\n{HELPER}\n```\ntext between\n"
              f"```verilog\n// file: add8.v\n{ADDER}\n```")  # a bare file name still finds rtl/add8.v
    assert extract_sources(marked, ["rtl/add8.v", "rtl/half.v"]) == {"rtl/add8.v": ADDER + "\n",
                                                                     "rtl/half.v": HELPER + "\n"}
    in_order = f"```\n{ADDER}\n```\n\n```verilog\n{HELPER}\n```"
    assert extract_sources(in_order, ["rtl/add8.v", "rtl/half.v"]) == {"rtl/add8.v": ADDER + "\n",
                                                                       "rtl/half.v": HELPER + "\n"}
    one_block = f"```verilog\n// file: rtl/add8.v\n{ADDER}\n// file: rtl/half.v\n{HELPER}\n```"
    assert extract_sources(one_block, ["rtl/add8.v", "rtl/half.v"])["rtl/half.v"] == HELPER + "\n"


def test_extra_blocks_of_a_one_file_design_join_its_file():
    completion = f"```verilog\n{HELPER}\n```\nand the top:\n```verilog\n{ADDER}\n```"
    assert extract_sources(completion, ["rtl/add8.v"]) == {"rtl/add8.v": f"{HELPER}\n\n{ADDER}\n"}


def test_bare_module_text_with_prose_around_it():
    completion = f"Sure! The optimised design:\n\n`timescale 1ns/1ps\n{ADDER}\n\nThis saves two gates."
    assert extract_sources(completion, ["rtl/add8.v"]) == {"rtl/add8.v": f"`timescale 1ns/1ps\n{ADDER}\n"}


def test_unterminated_fence_of_a_truncated_answer():
    assert extract_sources(f"```verilog\n{ADDER}\n", ["rtl/add8.v"]) == {"rtl/add8.v": ADDER + "\n"}


def test_prose_only_is_none():
    assert extract_sources("I cannot improve this design; the module is already minimal.", ["rtl/add8.v"]) is None
    assert extract_sources("```python\nprint('module')\n```", ["rtl/add8.v"]) is None
    assert _state().sources_from("no code here") == {}


def test_candidate_keeps_the_files_the_answer_leaves_out():
    state = _state(sources={"rtl/add8.v": ADDER + "\n", "rtl/half.v": HELPER + "\n"})
    rewritten = ADDER.replace("a + b", "b + a")
    sources = state.sources_from(f"```verilog\n// file: rtl/add8.v\n{rewritten}\n```")
    assert sources == {"rtl/add8.v": rewritten + "\n", "rtl/half.v": HELPER + "\n"}


def test_unknown_policy_spec_is_one_clear_error():
    for spec in ("gpt", "hf:", "openai", "cdg"):  # cdg is cover's, not optimize's
        with pytest.raises(HdlrlError, match=r"unknown policy .* \(known: rewrite, random, hf:PATH_OR_NAME, openai:URL\)"):
            make_policy(spec, EMBEDDED_POLICIES)
