"""Merging LoRA adapters of a tiny randomly initialised Llama: no download, seconds.

Deltas are read back through peft (`get_delta_weight`) from policies that `load` the merged
folder, so the tests check the saved format and scale as well as the arithmetic.
"""

from __future__ import annotations

import json
import shutil

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

from peft.tuners.lora import LoraLayer  # noqa: E402
from tokenizers import Tokenizer, models  # noqa: E402

from hdlrl.errors import HdlrlError  # noqa: E402
from tiny_lm import END, tiny_llama  # noqa: E402
from hdlrl.policy.hf import OPTIMIZER_FILE, HuggingFacePolicy  # noqa: E402
from hdlrl.policy.merge import (disjoint_mean, elect_sign, merge_adapters, ties_merge,  # noqa: E402
                                trim)

INPUT_IDS = torch.arange(1, 12)[None]
pytestmark = [pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning"),  # peft
              pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(scope="module")
def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A word-level vocabulary: the tests feed token ids, the policy only needs an end-of-sequence token."""
    vocab = {END: 0, **{f"t{index}": index for index in range(1, 48)}}
    return transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token=END)),
                                                eos_token=END)


def _policy(tokenizer, rank: int = 4, hidden_size: int = 32, **options) -> HuggingFacePolicy:
    return HuggingFacePolicy(tiny_llama(tokenizer, hidden_size), tokenizer, lora_rank=rank, lora_alpha=8, **options)


def _deltas(policy: HuggingFacePolicy) -> dict[str, torch.Tensor]:
    """peft's own ΔW = s · B @ A of every adapted module."""
    with torch.no_grad():
        return {name: module.get_delta_weight("default") for name, module in policy.model.named_modules()
                if isinstance(module, LoraLayer)}


def _trained_adapter(tokenizer, folder, seed: int, hidden_size: int = 32) -> dict[str, torch.Tensor]:
    """Save an adapter with random non-zero A and B, as if trained; its deltas."""
    policy = _policy(tokenizer, hidden_size=hidden_size)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in policy.model.named_parameters():
            if "lora_" in name:
                parameter.copy_(0.3 * torch.randn(parameter.shape, generator=generator))
    policy.save(folder)
    return _deltas(policy)


@pytest.fixture(scope="module")
def adapters(tokenizer, tmp_path_factory) -> list[tuple]:
    """Two rank-4 adapters of the same base: (folder, deltas) each."""
    folders = [tmp_path_factory.mktemp(f"adapter{seed}") for seed in (1, 2)]
    return [(folder, _trained_adapter(tokenizer, folder, seed)) for seed, folder in zip((1, 2), folders)]


def _assert_deltas_close(actual: dict, expected: dict) -> None:
    assert actual.keys() == expected.keys()
    for name in expected:
        torch.testing.assert_close(actual[name], expected[name], atol=1e-5, rtol=1e-4)


def _loaded(tokenizer, folder, rank: int, **options) -> HuggingFacePolicy:
    policy = _policy(tokenizer, rank=rank, **options)
    policy.load(folder)
    return policy


def test_linear_merge_with_one_hot_weights_reproduces_the_first_adapter(tokenizer, adapters, tmp_path):
    (first, first_deltas), (second, _) = adapters
    report = merge_adapters([first, second], tmp_path, weights=[1.0, 0.0])
    assert (report.method, report.inputs, report.rank) == ("linear", [first, second], 4)
    assert len(report.reconstruction_errors) == len(first_deltas) and report.max_reconstruction_error < 1e-5
    _assert_deltas_close(_deltas(_loaded(tokenizer, tmp_path, rank=4)), first_deltas)


def test_linear_merge_with_equal_weights_gives_the_mean_delta(tokenizer, adapters, tmp_path):
    (first, first_deltas), (second, second_deltas) = adapters
    mean = {name: (first_deltas[name] + second_deltas[name]) / 2 for name in first_deltas}
    report = merge_adapters([first, second], tmp_path / "half", weights=[0.5, 0.5], rank=8)  # two rank-4 terms
    assert report.max_reconstruction_error < 1e-5
    _assert_deltas_close(_deltas(_loaded(tokenizer, tmp_path / "half", rank=8)), mean)
    merge_adapters([first, second], tmp_path / "default", rank=8)  # no weights: the mean
    _assert_deltas_close(_deltas(_loaded(tokenizer, tmp_path / "default", rank=8)), mean)


def test_a_lower_rank_loses_exactly_the_dropped_singular_values(adapters, tmp_path):
    (first, first_deltas), (second, second_deltas) = adapters
    report = merge_adapters([first, second], tmp_path, rank=2)
    assert report.rank == 2
    for name, error in report.reconstruction_errors.items():
        singular = torch.linalg.svdvals((first_deltas[name] + second_deltas[name]) / 2)
        assert error == pytest.approx((singular[2:].norm() / singular.norm()).item(), rel=1e-3)
    assert report.max_reconstruction_error == max(report.reconstruction_errors.values()) > 0.1


# Three hand-made task vectors: at density 0.5 each keeps its two largest entries.
TASK_VECTORS = [torch.tensor([[3.0, -1.0], [0.5, 2.0]]),
                torch.tensor([[-6.0, 2.0], [1.0, -0.1]]),
                torch.tensor([[2.0, 3.0], [-0.2, -1.0]])]
TRIMMED = torch.stack([torch.tensor([[3.0, 0.0], [0.0, 2.0]]),
                       torch.tensor([[-6.0, 2.0], [0.0, 0.0]]),
                       torch.tensor([[2.0, 3.0], [0.0, 0.0]])])


def test_ties_steps_on_a_hand_computed_example():
    assert torch.equal(torch.stack([trim(vector, 0.5) for vector in TASK_VECTORS]), TRIMMED)
    sign = elect_sign(TRIMMED)  # sums [[-1, 5], [0, 2]]: the -6 outweighs 3 and 2, by mass not by count
    assert torch.equal(sign, torch.tensor([[-1.0, 1.0], [0.0, 1.0]]))
    # (0,0): the -6 alone agrees; (0,1): mean of 2 and 3; (1,0): nothing left; (1,1): the 2 alone
    assert torch.equal(disjoint_mean(TRIMMED, sign), torch.tensor([[-6.0, 2.5], [0.0, 2.0]]))
    assert torch.equal(ties_merge(TASK_VECTORS, [1.0] * 3, 0.5, ties_lambda=0.5),
                       torch.tensor([[-3.0, 1.25], [0.0, 1.0]]))
    assert torch.equal(ties_merge(TASK_VECTORS, [1.0, 0.0, 0.0], 0.5, ties_lambda=1.0), TRIMMED[0])
    assert torch.equal(trim(TASK_VECTORS[0], 1.0), TASK_VECTORS[0])


def test_ties_merge_of_adapters_is_ties_of_their_deltas(tokenizer, adapters, tmp_path):
    (first, first_deltas), (second, second_deltas) = adapters
    report = merge_adapters([first, second], tmp_path, method="ties", rank=32)  # full rank: the SVD is exact
    assert report.method == "ties" and report.max_reconstruction_error < 1e-5
    expected = {name: ties_merge([first_deltas[name], second_deltas[name]], [1.0, 1.0], 0.2, ties_lambda=1.0)
                for name in first_deltas}
    assert all((delta != 0).float().mean() <= 0.4 for delta in expected.values())  # trimmed: sparse
    _assert_deltas_close(_deltas(_loaded(tokenizer, tmp_path, rank=32)), expected)


def test_merged_folder_loads_and_gives_the_logits_of_the_base_plus_the_merged_delta(tokenizer, adapters, tmp_path):
    (first, first_deltas), (second, second_deltas) = adapters
    merge_adapters([first, second], tmp_path, weights=[0.7, 0.3], rank=8)
    policy = _loaded(tokenizer, tmp_path, rank=8, learning_rate=1e-3)
    reference = tiny_llama(tokenizer)
    with torch.no_grad():
        for name in first_deltas:
            reference.get_submodule(name.removeprefix("base_model.model.")).weight += (
                0.7 * first_deltas[name] + 0.3 * second_deltas[name])
        merged = policy.model(input_ids=INPUT_IDS).logits
        with policy.model.disable_adapter():
            base = policy.model(input_ids=INPUT_IDS).logits
        expected = reference(input_ids=INPUT_IDS).logits
    assert not torch.allclose(merged, base, atol=1e-2)
    torch.testing.assert_close(merged, expected, atol=1e-5, rtol=1e-4)
    saved = torch.load(first / OPTIMIZER_FILE, weights_only=True)
    assert policy.optimizer.state_dict()["state"] == {}  # fresh moments
    assert policy.optimizer.param_groups[0]["lr"] == saved["param_groups"][0]["lr"]  # the first input's


def _other_base(tokenizer, folder, source) -> None:
    shutil.copytree(source, folder)
    config = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(json.dumps({**config, "base_model_name_or_path": "other/base"}))


def _other_targets(tokenizer, folder, source) -> None:
    config = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj"], task_type="CAUSAL_LM")
    peft.get_peft_model(tiny_llama(tokenizer), config).save_pretrained(folder)


def _other_shapes(tokenizer, folder, source) -> None:
    _trained_adapter(tokenizer, folder, seed=3, hidden_size=16)


@pytest.mark.parametrize("make, reason", [(_other_base, "adapter of base 'other/base'"),
                                          (_other_targets, "target modules differ"),
                                          (_other_shapes, r"is 16x64, but 32x64 in")])
def test_mismatched_adapters_are_refused_naming_the_folder(tokenizer, adapters, tmp_path, make, reason):
    (first, _), (second, _) = adapters
    odd = tmp_path / "odd"
    make(tokenizer, odd, second)
    with pytest.raises(HdlrlError, match=reason) as caught:
        merge_adapters([first, odd], tmp_path / "out")
    assert caught.value.path == odd and "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_bad_arguments_are_refused(adapters, tmp_path):
    (first, _), (second, _) = adapters
    with pytest.raises(HdlrlError, match="unknown merge method 'dare'"):
        merge_adapters([first, second], tmp_path, method="dare")
    with pytest.raises(HdlrlError, match="1 weights for 2 adapters"):
        merge_adapters([first, second], tmp_path, weights=[1.0])
    with pytest.raises(HdlrlError, match="density 0 is not in"):
        merge_adapters([first, second], tmp_path, method="ties", density=0)
    with pytest.raises(HdlrlError, match="rank 33 is not in 1..32"):
        merge_adapters([first, second], tmp_path, rank=33)
    with pytest.raises(HdlrlError, match="not a peft adapter folder") as caught:
        merge_adapters([first, tmp_path], tmp_path / "out")
    assert caught.value.path == tmp_path
