"""Merging LoRA adapters with peft, on a tiny randomly initialised Llama saved to disk: no download, seconds.

The adapters record the saved base's folder, as adapters of a real checkpoint do. Merged
folders are read back by `HuggingFacePolicy.load`, so the tests check the saved format and
the LoRA scale as well as peft's arithmetic.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")

from peft.tuners.lora import LoraLayer  # noqa: E402
from tokenizers import Tokenizer, models  # noqa: E402

from hdlrl.errors import HdlrlError  # noqa: E402
from tiny_lm import END, tiny_llama  # noqa: E402
from hdlrl.policy.hf import OPTIMIZER_FILE, HuggingFacePolicy  # noqa: E402
from hdlrl.policy.merge import DENSITY_METHODS, METHODS, merge_adapters  # noqa: E402
from hdlrl.ttt.protocol import Sample  # noqa: E402

HDLRL = Path(sys.executable).with_name("hdlrl")
INPUT_IDS = torch.arange(1, 12)[None]
pytestmark = [pytest.mark.filterwarnings("ignore:`is_gradient_checkpointing` is deprecated:FutureWarning"),  # peft
              pytest.mark.filterwarnings("ignore:The density 1.0 is greater than or equal to 1:UserWarning"),
              pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(scope="module")
def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A word-level vocabulary: the tests feed token ids, the policy only needs an end-of-sequence token."""
    vocab = {END: 0, **{f"t{index}": index for index in range(1, 48)}}
    return transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel(vocab, unk_token=END)),
                                                eos_token=END)


@pytest.fixture(scope="module")
def base(tokenizer, tmp_path_factory) -> Path:
    """The tiny Llama as a checkpoint folder, which the adapters then name as their base."""
    folder = tmp_path_factory.mktemp("base")
    tiny_llama(tokenizer).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def _policy(tokenizer, base: Path, rank: int = 4, **options) -> HuggingFacePolicy:
    model = transformers.AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    return HuggingFacePolicy(model, tokenizer, lora_rank=rank, lora_alpha=8, **options)


def _deltas(policy: HuggingFacePolicy) -> dict[str, torch.Tensor]:
    """peft's own ΔW = s · B @ A of every adapted module."""
    with torch.no_grad():
        return {name: module.get_delta_weight("default") for name, module in policy.model.named_modules()
                if isinstance(module, LoraLayer)}


def _logits(policy: HuggingFacePolicy) -> torch.Tensor:
    with torch.no_grad():
        return policy.model(input_ids=INPUT_IDS).logits


def _trained_adapter(tokenizer, base, folder, seed: int, rank: int = 4) -> HuggingFacePolicy:
    """Save an adapter with random non-zero A and B, as if trained."""
    policy = _policy(tokenizer, base, rank, learning_rate=1e-3 * seed)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in policy.model.named_parameters():
            if "lora_" in name:
                parameter.copy_(0.3 * torch.randn(parameter.shape, generator=generator))
    policy.save(folder)
    return policy


@pytest.fixture(scope="module")
def adapters(tokenizer, base, tmp_path_factory) -> list[tuple[Path, HuggingFacePolicy]]:
    """Two rank-4 adapters of the same base: (folder, policy) each."""
    folders = [tmp_path_factory.mktemp(f"adapter{seed}") for seed in (1, 2)]
    return [(folder, _trained_adapter(tokenizer, base, folder, seed)) for seed, folder in zip((1, 2), folders)]


def _loaded(tokenizer, base, folder, rank: int, **options) -> HuggingFacePolicy:
    policy = _policy(tokenizer, base, rank, **options)
    policy.load(folder)
    return policy


@pytest.mark.parametrize("method", METHODS)
def test_every_method_can_give_back_the_first_adapter(tokenizer, base, adapters, tmp_path, method):
    """Nothing pruned (density 1), the second adapter weighted 0, every peft method must return the first.

    Not so under TIES: peft elects the signs before weighting, so a weight of 0 still votes. An
    adapter merged with itself is then the check: both copies agree everywhere.
    """
    (first, first_policy), (second, _) = adapters
    inputs, weights = ([first, first], [1.0, 1.0]) if "ties" in method else ([first, second], [1.0, 0.0])
    density = 1.0 if method in DENSITY_METHODS else None
    report = merge_adapters(inputs, tmp_path, method=method, weights=weights, density=density)
    rank = 8 if method == "cat" else 4
    assert (report.method, report.rank, report.alpha, report.inputs) == (method, rank, 8, inputs)
    assert report.base == str(base) and report.out == tmp_path and report.weights == weights
    merged = _logits(_loaded(tokenizer, base, tmp_path, rank))
    with first_policy.model.disable_adapter():
        assert not torch.allclose(merged, _logits(first_policy), atol=1e-2)  # the adapter matters
    torch.testing.assert_close(merged, _logits(first_policy), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("method, rank", [("cat", 8), ("svd", 8)])
def test_exact_methods_give_the_mean_delta_by_default(tokenizer, base, adapters, tmp_path, method, rank):
    (first, first_policy), (second, second_policy) = adapters
    report = merge_adapters([first, second], tmp_path, method=method, rank=rank if method == "svd" else None)
    assert report.weights == [0.5, 0.5] and report.rank == rank
    first_deltas, second_deltas = _deltas(first_policy), _deltas(second_policy)
    merged = _deltas(_loaded(tokenizer, base, tmp_path, rank))
    assert merged.keys() == first_deltas.keys()
    for name, delta in merged.items():
        torch.testing.assert_close(delta, (first_deltas[name] + second_deltas[name]) / 2, atol=1e-5, rtol=1e-4)


def test_svd_at_the_input_rank_truncates(tokenizer, base, adapters, tmp_path):
    (first, first_policy), (second, second_policy) = adapters
    assert merge_adapters([first, second], tmp_path).rank == 4  # the mean of two rank-4 deltas has rank 8
    name, delta = next(iter(_deltas(_loaded(tokenizer, base, tmp_path, 4)).items()))
    mean = (_deltas(first_policy)[name] + _deltas(second_policy)[name]) / 2
    singular = torch.linalg.svdvals(mean)
    error = torch.linalg.matrix_norm(delta - mean) / torch.linalg.matrix_norm(mean)
    assert error.item() == pytest.approx((singular[4:].norm() / singular.norm()).item(), rel=1e-3)  # Eckart-Young


@dataclass
class _State:
    state_id: str = "s"

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "user", "content": "t1 t2 t3"}]

    def sources_from(self, completion: str) -> dict[str, str]:
        return {}


def test_a_merged_adapter_loads_into_a_policy_and_keeps_training(tokenizer, base, adapters, tmp_path):
    (first, _), (second, _) = adapters
    merge_adapters([first, second], tmp_path, method="ties", density=0.5)
    assert sorted(path.name for path in tmp_path.iterdir() if path.name != "README.md") == [
        "adapter_config.json", "adapter_model.safetensors", OPTIMIZER_FILE]
    policy = _loaded(tokenizer, base, tmp_path, rank=4)
    assert policy.optimizer.state_dict()["state"] == {}  # fresh moments, the first input's learning rate
    assert policy.optimizer.param_groups[0]["lr"] == pytest.approx(1e-3)
    before = {name: parameter.detach().clone() for name, parameter in policy.model.named_parameters()}
    samples = [Sample({}, "", metadata={"completion_ids": ids}) for ids in ([5, 6, 7], [8, 9])]
    stats = policy.update([(_State(), samples)], [[1.0, -1.0]], kl_coef=0.1)
    assert stats.samples == 2 and stats.grad_norm > 0 and stats.kl > 0  # the merge moved it off the base
    changed = {name for name, parameter in policy.model.named_parameters() if not torch.equal(parameter, before[name])}
    assert changed and all("lora_" in name for name in changed)


def _other_base(tokenizer, base, folder, source) -> None:
    shutil.copytree(source, folder)
    config = json.loads((folder / "adapter_config.json").read_text())
    (folder / "adapter_config.json").write_text(json.dumps({**config, "base_model_name_or_path": "other/base"}))


def _other_rank(tokenizer, base, folder, source) -> None:
    _trained_adapter(tokenizer, base, folder, seed=3, rank=8)


def _missing(tokenizer, base, folder, source) -> None:
    pass


def _not_an_adapter(tokenizer, base, folder, source) -> None:
    folder.mkdir()


@pytest.mark.parametrize("make, reason", [(_other_base, "adapter of base 'other/base', but"),
                                          (_other_rank, "peft cannot merge these adapters by linear"),
                                          (_missing, "no such adapter folder"),
                                          (_not_an_adapter, r"not a peft adapter folder \(no adapter_config.json\)")])
def test_bad_adapters_are_refused_naming_the_folder(tokenizer, base, adapters, tmp_path, make, reason):
    (first, _), (second, _) = adapters
    odd = tmp_path / "odd"
    make(tokenizer, base, odd, second)
    with pytest.raises(HdlrlError, match=reason) as caught:
        merge_adapters([odd, first] if make is _other_rank else [first, odd], tmp_path / "out", method="linear")
    assert caught.value.path == odd and "\n" not in str(caught.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("options, reason", [({"method": "dare"}, "unknown merge method 'dare'"),
                                             ({"weights": [1.0]}, "1 weights for 2 adapters"),
                                             ({"method": "ties"}, "ties needs a density"),
                                             ({"method": "ties", "density": 0}, "density 0: a fraction in"),
                                             ({"density": 0.5}, "density 0.5: a fraction in .* for ties"),
                                             ({"method": "cat", "rank": 2}, "rank 2: a positive rank, for svd"),
                                             ({"base": "no/such-model"}, "cannot load base model 'no/such-model'")])
def test_bad_options_are_refused_in_one_line(adapters, tmp_path, options, reason):
    (first, _), (second, _) = adapters
    with pytest.raises(HdlrlError, match=reason) as caught:
        merge_adapters([first, second], tmp_path / "out", **options)
    assert "\n" not in str(caught.value) and not (tmp_path / "out").exists()


def test_the_command_writes_a_folder_a_policy_loads(tokenizer, base, adapters, tmp_path):
    (first, first_policy), (second, second_policy) = adapters
    done = subprocess.run([HDLRL, "merge", first, second, "--out", tmp_path / "merged", "--method", "cat",
                           "--weights", "0.7", "0.3", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["method"], report["rank"], report["alpha"], report["weights"]) == ("cat", 8, 8, [0.7, 0.3])
    assert report["out"] == str(tmp_path / "merged") and report["base"] == str(base)
    policy = HuggingFacePolicy.from_pretrained(str(base), lora_rank=8, lora_alpha=8)
    policy.load(tmp_path / "merged")
    first_deltas, second_deltas = _deltas(first_policy), _deltas(second_policy)
    for name, delta in _deltas(policy).items():
        torch.testing.assert_close(delta, 0.7 * first_deltas[name] + 0.3 * second_deltas[name],
                                   atol=1e-5, rtol=1e-4)


def test_the_command_refuses_bad_weights_in_one_line(adapters, tmp_path):
    (first, _), (second, _) = adapters
    done = subprocess.run([HDLRL, "merge", first, second, "--out", tmp_path / "merged", "--weights", "1", "0", "1"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "hdlrl: error: 3 weights for 2 adapters"
    assert not (tmp_path / "merged").exists()
