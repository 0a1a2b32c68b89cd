"""The LM stimulus path of `hdlrl cover` end to end, on a tiny randomly initialised model built
here (no download): the prompt shows the coverage holes, the model's completions go through
the same parser as every program, the malformed ones are refused with a reason and the run
goes on to spend its budget."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

from conftest import DESIGNS_DIR  # noqa: E402
from test_policy_hf import tokenizer  # noqa: E402,F401  (a fixture)
from tiny_lm import tiny_llama  # noqa: E402

from hdlrl.cover.cover_flow import load_cover_flow  # noqa: E402
from hdlrl.cover.loop import CoverRun  # noqa: E402
from hdlrl.design import load_design  # noqa: E402
from hdlrl.eda.toolchain import has_tool  # noqa: E402
from hdlrl.policy.hf import HuggingFacePolicy  # noqa: E402

pytestmark = [pytest.mark.skipif(not has_tool("verilator"), reason="needs verilator"),
              pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning"),
              pytest.mark.usefixtures("one_torch_thread")]


def test_a_language_model_proposes_programs_and_the_run_continues(tokenizer, tmp_path: Path) -> None:  # noqa: F811
    policy = HuggingFacePolicy(tiny_llama(tokenizer), tokenizer, lora_rank=4, lora_alpha=8, max_new_tokens=16)
    flow = replace(load_cover_flow(), budget=6, group_size=3, mutants=0)
    run = CoverRun(load_design(DESIGNS_DIR / "decoder3to8"), policy, flow, tmp_path / "run", progress=False)
    run.run()
    assert run.proposed == 6 and run.loop.state.step == 2
    assert run.state.refused + run.state.simulations == 6
    assert run.state.refused and all(reason.startswith("refused: ") for reason in run.state.feedback)

    state = run.cover_state()
    prompt = state.messages()[1]["content"]
    assert "Inputs you drive each clock cycle: a (3 bits), en (1 bit)." in prompt
    assert "Not reached yet" in prompt and state.uncovered[0] in prompt
    assert "Your last programs were refused" in prompt and state.feedback[-1] in prompt
    samples = policy.sample(state, 2, rng_seed=1)
    assert all(sample.sources == {} and sample.logprob < 0 for sample in samples)  # programs, not RTL
