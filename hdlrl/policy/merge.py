"""Training-free merging of LoRA adapters of one base, as CHORUS merges complementary experts.

The arithmetic is peft's own (`LoraModel.add_weighted_adapter`): this module only checks the
inputs, loads them into the base model, asks peft for the merge and saves the result in the
folder format `HuggingFacePolicy.save` writes, so the merged adapter loads into an hf policy
and keeps training. peft's methods, in short (weights w_t, deltas ΔW_t = s_t · B_t A_t):

- "svd": Σ w_t ΔW_t, truncated to `rank` by an SVD (exact at a high enough rank);
- "cat": the factors side by side, exactly Σ w_t ΔW_t at rank Σ r_t;
- "linear", "ties", "dare_*", "magnitude_prune": combine the A's and the B's separately (cheap,
  approximate: B'A' has cross terms), which needs inputs of one rank;
- "*_svd" variants: TIES, DARE or magnitude pruning of the deltas ΔW_t, then the SVD.

peft's TIES elects each entry's sign before weighting, so an adapter of weight 0 still votes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
from peft import LoraConfig, PeftConfig, PeftModel
from peft.utils import CONFIG_NAME
from transformers import AutoModelForCausalLM, PreTrainedModel

from hdlrl.errors import HdlrlError, first_line
from hdlrl.policy.hf import OPTIMIZER_FILE

METHODS = ("svd", "cat", "linear", "ties", "dare_linear", "dare_ties", "magnitude_prune",  # peft's, in full
           "ties_svd", "dare_linear_svd", "dare_ties_svd", "magnitude_prune_svd")
SVD_METHODS = tuple(method for method in METHODS if method.endswith("svd"))
DENSITY_METHODS = tuple(method for method in METHODS if method not in ("svd", "cat", "linear"))
SIGN_METHODS = ("total", "frequency")  # TIES's sign election: by total magnitude, or by count
MERGED = "default"  # peft saves the adapter named "default" at the folder's top, any other in a subfolder


@dataclass
class MergeReport:
    """What was merged; a policy loads `out` when built with lora_rank=`rank` and lora_alpha=`alpha`
    (`HuggingFacePolicy.load` reads the factors only, and scales them by its own alpha / rank)."""

    method: str
    rank: int
    alpha: float
    inputs: list[Path]
    weights: list[float]
    base: str
    out: Path


def read_configs(folders: list[Path], base: str | None) -> tuple[list[LoraConfig], str]:
    """Each folder's LoRA config and the base to load, refusing what peft would fail on later or silently."""
    configs = []
    for folder in folders:
        if not (folder / CONFIG_NAME).is_file():
            raise HdlrlError(f"not a peft adapter folder (no {CONFIG_NAME})" if folder.is_dir()
                             else "no such adapter folder", folder)
        config = PeftConfig.from_pretrained(str(folder))
        if not isinstance(config, LoraConfig):
            raise HdlrlError(f"a {config.peft_type} adapter, only LoRA adapters merge", folder)
        if configs and config.base_model_name_or_path != configs[0].base_model_name_or_path:
            raise HdlrlError(f"adapter of base {config.base_model_name_or_path!r}, but {folders[0]} is of "
                             f"{configs[0].base_model_name_or_path!r}", folder)
        configs.append(config)
    base = base or configs[0].base_model_name_or_path
    if not base:
        raise HdlrlError("the adapter names no base model: pass --base", folders[0])
    return configs, base


def default_weights(method: str, count: int) -> list[float]:
    """The mean (1/n each), except under TIES, whose disjoint merge already averages (1 each)."""
    return [1.0 if "ties" in method else 1 / count] * count


def check_options(method: str, count: int, weights: list[float], density: float | None, rank: int | None,
                  majority_sign_method: str) -> None:
    """Refuse, before the base is loaded, what peft would fail on deep inside or silently ignore."""
    if method not in METHODS:
        raise HdlrlError(f"unknown merge method {method!r}, expected one of {', '.join(METHODS)}")
    if len(weights) != count:
        raise HdlrlError(f"{len(weights)} weights for {count} adapters")
    if method in DENSITY_METHODS and density is None:
        raise HdlrlError(f"{method} needs a density (the fraction of entries kept, e.g. 0.2)")
    if density is not None and (method not in DENSITY_METHODS or not 0 < density <= 1):
        raise HdlrlError(f"density {density}: a fraction in (0, 1], for {', '.join(DENSITY_METHODS)} only")
    if rank is not None and (method not in SVD_METHODS or rank < 1):
        raise HdlrlError(f"rank {rank}: a positive rank, for {', '.join(SVD_METHODS)} only")
    if majority_sign_method not in SIGN_METHODS:
        raise HdlrlError(f"unknown majority sign method {majority_sign_method!r}, expected total or frequency")


def load_base(base: str) -> PreTrainedModel:
    """float32 on the CPU: the merge touches only the small adapters, and peft gives a new adapter
    the dtype of the base layer, so a bf16 base would round the merged factors."""
    try:
        return AutoModelForCausalLM.from_pretrained(base, local_files_only=True, dtype=torch.float32,
                                                    adapter_kwargs={"local_files_only": True})  # else it asks the Hub
    except (OSError, ValueError) as error:
        raise HdlrlError(f"cannot load base model {base!r} offline: {first_line(error)}") from error


def load_adapters(model: PreTrainedModel, folders: list[Path]) -> tuple[PeftModel, list[str]]:
    """The base with every input adapter beside it, named input0, input1, ..."""
    names = [f"input{index}" for index in range(len(folders))]
    peft_model = PeftModel.from_pretrained(model, str(folders[0]), adapter_name=names[0])
    for folder, name in zip(folders[1:], names[1:]):
        peft_model.load_adapter(str(folder), adapter_name=name)
    return peft_model, names


def rescale_to_alpha(model: PeftModel, alpha: float) -> None:
    """peft's merged factors satisfy B'A' = ΔW (they are made for lora_alpha = r, scale 1), but
    `HuggingFacePolicy.load` applies the policy's own scale, alpha / r: carry the inputs' alpha
    instead, dividing each factor by sqrt(alpha / r), so a policy built as the inputs' were
    (same lora_alpha, lora_rank = the report's rank) reproduces ΔW."""
    config = model.peft_config[MERGED]
    scale = alpha / (math.sqrt(config.r) if config.use_rslora else config.r)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if ".lora_" in name and name.endswith(f".{MERGED}.weight"):
                parameter /= math.sqrt(scale)
    config.lora_alpha = alpha


def write_fresh_optimizer_state(source: Path, out: Path) -> None:
    """An Adam state with no moments and the first input's hyperparameters, which `load` requires;
    the inputs' moments describe their own trajectories, not the merge's."""
    if (source / OPTIMIZER_FILE).is_file():
        saved = torch.load(source / OPTIMIZER_FILE, map_location="cpu", weights_only=True)
        torch.save({"state": {}, "param_groups": saved["param_groups"]}, out / OPTIMIZER_FILE)


def merge_adapters(folders: list[Path], out: Path, method: str = "svd", weights: list[float] | None = None,
                   density: float | None = None, rank: int | None = None, base: str | None = None,
                   majority_sign_method: str = "total", seed: int = 0) -> MergeReport:
    """Merge LoRA adapters of one base into a new adapter folder `out`, without training.

    `weights` default to `default_weights`; `density` (fraction of entries kept) is for the
    TIES, DARE and magnitude-pruning methods; `rank` for the SVD ones (default: the largest
    input rank); `base` replaces the adapters' recorded base model; `seed` fixes DARE's draw.
    """
    folders = [Path(folder) for folder in folders]
    if not folders:
        raise HdlrlError("no adapters to merge")
    weights = default_weights(method, len(folders)) if weights is None else list(weights)
    check_options(method, len(folders), weights, density, rank, majority_sign_method)
    configs, base = read_configs(folders, base)
    model, names = load_adapters(load_base(base), folders)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model.add_weighted_adapter(names, weights, MERGED, combination_type=method, svd_rank=rank,
                                       svd_full_matrices=False, density=density,
                                       majority_sign_method=majority_sign_method)
    except ValueError as error:  # e.g. inputs of different ranks under "linear"
        raise HdlrlError(f"peft cannot merge these adapters by {method}: {first_line(error)}",
                         folders[0]) from error
    rescale_to_alpha(model, configs[0].lora_alpha)
    model.peft_config[MERGED].base_model_name_or_path = base
    out = Path(out)
    model.save_pretrained(str(out), selected_adapters=[MERGED])
    write_fresh_optimizer_state(folders[0], out)
    config = model.peft_config[MERGED]
    return MergeReport(method, config.r, config.lora_alpha, folders, weights, base, out)
