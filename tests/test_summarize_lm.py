"""The LM path of `hdlrl summarize`: the prompt a language model sees, the one answer format every
single shot is read in (the embedded policy's included), and a tiny randomly initialised model
built here (no download) run through the batch job's module summariser, with SLOR fluency."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from conftest import DESIGNS_DIR  # noqa: E402
from test_policy_hf import tokenizer  # noqa: E402,F401  (a fixture)
from tiny_lm import tiny_llama  # noqa: E402

from hdlrl.errors import HdlrlError  # noqa: E402
from hdlrl.hdl.facts import module_facts  # noqa: E402
from hdlrl.hdl.ir import Module  # noqa: E402
from hdlrl.hdl.sources import read_source  # noqa: E402
from hdlrl.summarize.prompt import SummaryState  # noqa: E402
from hdlrl.summarize.compose_policy import (LEVELS, PHRASINGS, ComposePolicy, block_sentences, join,  # noqa: E402
                                  module_candidates)
from hdlrl.policy.hf import HuggingFacePolicy  # noqa: E402
from hdlrl.summarize.prompt import format_document, parse_document  # noqa: E402
from hdlrl.summarize.batch import fluency_function, summarize_module  # noqa: E402
from hdlrl.summarize.claim import Claim  # noqa: E402
from hdlrl.summarize.claims import hallucination  # noqa: E402
from hdlrl.summarize.document import Document  # noqa: E402
from hdlrl.summarize.summarize_flow import load_summarize_flow  # noqa: E402
from hdlrl.summarize.fluency import LanguageModelFluency, embedded_fluency  # noqa: E402
from hdlrl.summarize.rewards import DocumentScorer  # noqa: E402
from hdlrl.summarize.search import SummarySearch  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning"),  # peft
              pytest.mark.usefixtures("one_torch_thread")]


def _module(design: str) -> Module:
    modules, unread = read_source(DESIGNS_DIR / design / "rtl" / f"{design}.v")
    assert not unread
    return modules[0]


def _state(module: Module, action: str, document: Document | None = None, block: int | None = None) -> SummaryState:
    facts = module_facts(module)
    return SummaryState(module.name, module.source, facts, action,
                        document or Document("", ("",) * len(facts.blocks)), block)


def test_the_prompt_holds_source_facts_blocks_and_the_single_shot_format():
    alu8 = _module("alu8")
    state = _state(alu8, "single_shot")
    system, user = (message["content"] for message in state.messages())
    assert "hardware engineer" in system
    assert alu8.source.strip() in user
    assert "input `a` (8 bits), input `b` (8 bits), input `op` (3 bits), output `y` (8 bits)" in user
    assert "Clocks: none (purely combinational)" in user and "`OP_ADD` = 0 (local)" in user
    assert "Block 1: assign, line 28, drives `sum`" in user
    assert "Block 3: combinational, lines 31-45, drives `y`, `carry`" in user
    assert ("Module: <the module summary>\nBlock 1: <the summary of block 1>\nBlock 2: <the summary of block 2>\n"
            "Block 3: <the summary of block 3>\nBlock 4: <the summary of block 4>") in user
    assert "in backticks" in user and '"N bits"' in user
    assert "The summary so far" not in user  # nothing written yet
    assert state.sources_from(f"```verilog\n{alu8.source}```") == {}  # a summary, not RTL


def test_each_action_has_its_instruction_and_sees_the_document_and_children():
    fifo = _module("sync_fifo")
    document = Document("`sync_fifo` is a sequential module.", ("Drives `do_wr`.", "", "", "", "", ""))
    instructions = {"refine_block": "Rewrite the summary of block 3 only",
                    "merge": "Write the module summary from the block summaries",
                    "context": "using the summaries of the modules it instantiates",
                    "compress": "Shorten the module summary without losing any fact"}
    for action, words in instructions.items():
        state = replace(_state(fifo, action, document, 2 if action == "refine_block" else None),
                        children={"ram8": "`ram8` stores words."})
        user = state.messages()[1]["content"]
        assert words in user, action
        assert "The summary so far:\nModule: `sync_fifo` is a sequential module.\nBlock 1: Drives `do_wr`." in user
        assert "- `ram8`: `ram8` stores words." in user
        assert "Module: <the module summary>" not in user  # only the single shot writes a whole document
    user = _state(fifo, "single_shot").messages()[1]["content"]
    assert "Resets: active-low asynchronous `rst_n`" in user and "Memories: `mem` of 8 words of 8 bits" in user
    assert "`count` counts up" in user and "rising edge of `clk`" in user


def test_parse_document_reads_the_format_back_and_tolerates_loose_answers():
    document = Document("`alu8` is a purely combinational module.",
                        ("Drives `sum`.", "Drives `diff`.", "", "Drives `zero`."))
    assert parse_document(format_document(document), 4) == (document.summary, list(document.blocks))
    loose = ("Here is the summary.\n\n- **Module:** `alu8` adds.\n  It has inputs.\n* **Block 2**: Drives `diff`.\n"
             "**Block 9:** no such block\n### Block 2: said twice")
    assert parse_document(loose, 4) == ("`alu8` adds.\n  It has inputs.", ["", "Drives `diff`.", "", ""])
    assert parse_document("Just prose about `alu8`.", 2) == ("Just prose about `alu8`.", ["", ""])
    assert parse_document("`alu8` adds.\n1. Block 1: Drives `sum`.", 1) == ("`alu8` adds.", ["Drives `sum`."])


def test_compose_single_shots_parse_back_to_the_documents_they_were_composed_from():
    fifo = _module("sync_fifo")
    state = _state(fifo, "single_shot")
    facts = state.facts
    expected = []
    for level in LEVELS:
        for phrasing in PHRASINGS:
            blocks = tuple(join(block_sentences(block, level), phrasing) for block in facts.blocks)
            expected.append(Document(module_candidates(facts, Document("", blocks))[1], blocks))
    samples = ComposePolicy().sample(state, 6, rng_seed=0)
    assert [parse_document(sample.text, len(facts.blocks)) for sample in samples] == \
           [(document.summary, list(document.blocks)) for document in expected]
    search = SummarySearch(ComposePolicy(), fifo.name, fifo.source, facts, lambda document: None,
                           load_summarize_flow().search)
    assert search.single_shot_documents() == expected


def test_lm_fluency_is_the_logistic_of_slor_computed_by_hand(tokenizer):  # noqa: F811
    model = tiny_llama(tokenizer)
    fluency = LanguageModelFluency(model, tokenizer)
    text = "endmodule add"
    first, second = tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([[tokenizer.eos_token_id, first, second]])).logits[0]
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    lm = logprobs[0, first] + logprobs[1, second]  # ln p(first | BOS) + ln p(second | BOS first)
    unigram = logprobs[0, first] + logprobs[0, second]  # the first-token distribution as the unigram model
    slor = ((lm - unigram) / 2).item()
    assert fluency(text) == pytest.approx(1 / (1 + math.exp(-slor)), abs=1e-6)
    assert fluency("") == 0.0


def test_the_fluency_key_is_checked_and_lm_needs_an_hf_policy(tmp_path: Path):
    path = tmp_path / "summarize.yaml"
    path.write_text("search:\n  iterations: 2\nfluency: gpt\n")
    with pytest.raises(HdlrlError, match=r"summarize.yaml:3: fluency: must be 'embedded' or 'lm', got 'gpt'"):
        load_summarize_flow(path)
    path.write_text("fluency: lm\n")
    flow = load_summarize_flow(path)
    with pytest.raises(HdlrlError, match="fluency: lm needs an hf policy") as error:
        fluency_function(flow, ComposePolicy())
    assert "\n" not in str(error.value)
    assert fluency_function(load_summarize_flow(), ComposePolicy()) is embedded_fluency


def test_an_hf_policy_summarises_a_module_and_lm_fluency_is_its_slor(tokenizer):  # noqa: F811
    policy = HuggingFacePolicy(tiny_llama(tokenizer), tokenizer, lora_rank=4, lora_alpha=8, max_new_tokens=24)
    flow = load_summarize_flow()
    flow = replace(flow, search=replace(flow.search, iterations=3, candidates=2, time_limit_s=600.0))
    alu8 = _module("alu8")
    for fluency in ("embedded", "lm"):
        row = summarize_module(alu8, policy, replace(flow, fluency=fluency), {})
        assert row["status"] == "ok" and row["iterations"] == 3
        assert [block["index"] for block in row["blocks"]] == [0, 1, 2, 3]
        for scores in (row["scores"], row["single_shot"]):
            assert all(0.0 <= value <= 1.0 for value in scores.values())
        assert row["scores"]["total"] >= row["single_shot"]["total"]
        verified = [claim[3] for claim in row["claims"]]
        assert row["scores"]["fc"] == round(sum(verified) / len(verified) if verified else 0.0, 4)
        assert row["hallucinated"] == list(dict.fromkeys(
            line for kind, names, value, holds in row["claims"]
            if (line := hallucination(Claim(kind, tuple(names), value), holds)) is not None))
        text = Document(row["summary"], tuple(block["summary"] for block in row["blocks"])).text
        assert text  # the model wrote something
        if fluency == "embedded":
            assert row["scores"]["fluency"] == round(embedded_fluency(text), 4)
        else:
            slor_fluency = LanguageModelFluency(policy.model, tokenizer)(text)
            assert 0.0 < slor_fluency < 1.0 and row["scores"]["fluency"] == round(slor_fluency, 4)
            assert slor_fluency != pytest.approx(embedded_fluency(text), abs=1e-3)


def test_the_search_trains_an_hf_policy_on_the_rollouts_rewards_only_with_update(tokenizer):  # noqa: F811
    """The same loop as `hdlrl optimize`: with `update`, every expansion's rewards move the adapter."""
    alu8 = _module("alu8")
    facts = module_facts(alu8)
    flow = load_summarize_flow()

    def lora_weights(policy: HuggingFacePolicy) -> list[torch.Tensor]:
        return [parameter.detach().clone() for name, parameter in policy.model.named_parameters() if "lora_" in name]

    for update in (False, True):
        torch.manual_seed(0)
        policy = HuggingFacePolicy(tiny_llama(tokenizer), tokenizer, lora_rank=4, lora_alpha=8, max_new_tokens=12,
                                   learning_rate=1e-2)
        before = lora_weights(policy)
        settings = replace(flow.search, iterations=4, candidates=2, time_limit_s=600.0, update=update)
        score = DocumentScorer(facts, flow.rewards, frozenset(), embedded_fluency)
        result = SummarySearch(policy, alu8.name, alu8.source, facts, score, settings).run()
        assert result.iterations == 4
        moved = any(not torch.equal(old, new) for old, new in zip(before, lora_weights(policy)))
        assert moved == update, f"update={update}: the adapter {'stayed' if update else 'moved'}"
