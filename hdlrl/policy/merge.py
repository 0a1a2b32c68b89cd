"""Training-free merging of LoRA adapters trained on one base, as CHORUS merges complementary experts.

Each adapter is a task vector: per target module it adds ΔW = s · B @ A to the frozen weight,
with s = alpha / r (alpha / sqrt(r) under rsLoRA). Factors cannot be merged one by one (the mean
of the Bs times the mean of the As is not the mean of the products), so every method here
combines the deltas ΔW themselves and then re-factorises the result into a LoRA of rank r' with
a truncated SVD (the best rank-r' approximation in Frobenius norm, Eckart-Young):

    ΔW / s' ≈ U_r' diag(σ_r') V_r'ᵀ,   B' = U_r' diag(√σ_r'),   A' = diag(√σ_r') V_r'ᵀ

where s' is the merged adapter's own scale (the first input's alpha at rank r'). The square root
is split evenly so neither factor is tiny, which keeps the merged adapter trainable.

Everything works on the saved tensors alone; the base model is never loaded. The output folder
has what `HuggingFacePolicy.save` writes (adapter_config.json, adapter_model.safetensors, and
optimizer.pt when the first input has one), so `HuggingFacePolicy.load` accepts it in a policy
built with `lora_rank` = the report's rank and the first input's `lora_alpha`. The optimizer
state is fresh: the inputs' Adam moments describe their own trajectories, not the merge's; the
hyperparameters (learning rate, betas) are the first input's, which `load` restores.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from pathlib import Path

import torch
from peft import LoraConfig, PeftConfig
from peft.utils import CONFIG_NAME, SAFETENSORS_WEIGHTS_NAME
from safetensors.torch import load_file, save_file

from hdlrl.errors import HdlrlError
from hdlrl.policy.hf import OPTIMIZER_FILE

METHODS = ("linear", "ties")
FACTOR_SUFFIXES = (".lora_A.weight", ".lora_B.weight")
COMPUTE_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # a full SVD per module is slow on the CPU


@dataclass
class MergeReport:
    """What was merged, and how much the rank-`rank` re-factorisation lost per module."""

    method: str
    inputs: list[Path]
    rank: int
    reconstruction_errors: dict[str, float]  # module -> ‖ΔW - s'·B'A'‖_F / ‖ΔW‖_F (0 where ΔW = 0)

    @property
    def max_reconstruction_error(self) -> float:
        return max(self.reconstruction_errors.values(), default=0.0)


@dataclass
class LoraAdapter:
    """One saved adapter: its config and its (A, B) factors per target module."""

    folder: Path
    config: LoraConfig
    factors: dict[str, tuple[torch.Tensor, torch.Tensor]]

    @property
    def rank(self) -> int:
        return self.config.r

    @property
    def scale(self) -> float:
        return lora_scale(self.config.lora_alpha, self.config.r, self.config.use_rslora)

    def delta(self, module: str) -> torch.Tensor:
        return lora_delta(*self.factors[module], self.scale)


def lora_delta(lora_a: torch.Tensor, lora_b: torch.Tensor, scale: float) -> torch.Tensor:
    """ΔW = s · B @ A, in float32 on the compute device."""
    return scale * lora_b.to(COMPUTE_DEVICE, torch.float32) @ lora_a.to(COMPUTE_DEVICE, torch.float32)


def lora_scale(alpha: float, rank: int, use_rslora: bool) -> float:
    """The factor peft multiplies B @ A by."""
    return alpha / math.sqrt(rank) if use_rslora else alpha / rank


def read_adapter(folder: Path) -> LoraAdapter:
    """A plain LoRA adapter folder (what peft's `save_pretrained` writes), or HdlrlError saying why not."""
    folder = Path(folder)
    if not (folder / CONFIG_NAME).is_file() or not (folder / SAFETENSORS_WEIGHTS_NAME).is_file():
        raise HdlrlError(f"not a peft adapter folder (needs {CONFIG_NAME} and {SAFETENSORS_WEIGHTS_NAME})", folder)
    config = PeftConfig.from_pretrained(str(folder))
    if not isinstance(config, LoraConfig):
        raise HdlrlError(f"a {config.peft_type} adapter, only LoRA adapters merge", folder)
    if config.rank_pattern or config.alpha_pattern:
        raise HdlrlError("per-module rank_pattern or alpha_pattern is not supported", folder)
    tensors = load_file(str(folder / SAFETENSORS_WEIGHTS_NAME))
    unsupported = sorted(key for key in tensors if not key.endswith(FACTOR_SUFFIXES) or tensors[key].ndim != 2)
    if unsupported:
        raise HdlrlError(f"{unsupported[0]} is not a LoRA A/B matrix (DoRA, biases and saved modules do not merge)",
                         folder)
    modules = {key.removesuffix(suffix) for key in tensors for suffix in FACTOR_SUFFIXES if key.endswith(suffix)}
    factors = {}
    for module in sorted(modules):
        lora_a, lora_b = (tensors.get(module + suffix) for suffix in FACTOR_SUFFIXES)
        if lora_a is None or lora_b is None:
            raise HdlrlError(f"{module} lacks its lora_A or lora_B factor", folder)
        factors[module] = (lora_a, lora_b)
    return LoraAdapter(folder, config, factors)


def check_compatible(adapters: list[LoraAdapter]) -> None:
    """The adapters must share a base, target modules and weight shapes, or their deltas do not add up."""
    first = adapters[0]
    for adapter in adapters[1:]:
        if adapter.config.base_model_name_or_path != first.config.base_model_name_or_path:
            raise HdlrlError(f"adapter of base {adapter.config.base_model_name_or_path!r}, but {first.folder} "
                             f"is of {first.config.base_model_name_or_path!r}", adapter.folder)
        if adapter.factors.keys() != first.factors.keys():
            differing = sorted(adapter.factors.keys() ^ first.factors.keys())
            raise HdlrlError(f"target modules differ from {first.folder}'s (e.g. {differing[0]})", adapter.folder)
        for module, (lora_a, lora_b) in adapter.factors.items():
            first_a, first_b = first.factors[module]
            if (lora_b.shape[0], lora_a.shape[1]) != (first_b.shape[0], first_a.shape[1]):
                raise HdlrlError(f"{module} is {lora_b.shape[0]}x{lora_a.shape[1]}, but "
                                 f"{first_b.shape[0]}x{first_a.shape[1]} in {first.folder}", adapter.folder)


def linear_merge(deltas: list[torch.Tensor], weights: list[float]) -> torch.Tensor:
    """Task arithmetic: ΔW = Σ_t w_t ΔW_t."""
    return sum(weight * delta for weight, delta in zip(weights, deltas, strict=True))


def trim(task_vector: torch.Tensor, density: float) -> torch.Tensor:
    """TIES step 1: keep the round(density · n) entries of largest magnitude, zero the rest."""
    keep = round(density * task_vector.numel())
    mask = torch.zeros(task_vector.numel(), dtype=torch.bool, device=task_vector.device)
    mask[task_vector.abs().flatten().topk(keep).indices] = True
    return task_vector * mask.view_as(task_vector)


def elect_sign(trimmed: torch.Tensor) -> torch.Tensor:
    """TIES step 2: per entry, γ = sgn(Σ_t τ̂_t), the sign carrying more total magnitude (stacked on dim 0)."""
    return torch.sign(trimmed.sum(dim=0))


def disjoint_mean(trimmed: torch.Tensor, sign: torch.Tensor) -> torch.Tensor:
    """TIES step 3: per entry, the mean over the task vectors whose value has the elected sign.

    A trimmed (zero) entry has sign 0 and so never counts towards a non-zero elected sign.
    """
    agrees = torch.sign(trimmed) == sign
    return (trimmed * agrees).sum(dim=0) / agrees.sum(dim=0).clamp(min=1)


def ties_merge(deltas: list[torch.Tensor], weights: list[float], density: float,
               ties_lambda: float) -> torch.Tensor:
    """TIES-merging (Yadav et al., 2023): ΔW = λ · disjoint_mean(τ̂, sgn(Σ_t τ̂_t)), τ̂_t = trim(w_t ΔW_t).

    A weight scales its task vector before trimming, so a weight of 0 drops that adapter entirely.
    """
    trimmed = torch.stack([trim(weight * delta, density)
                           for weight, delta in zip(weights, deltas, strict=True)])
    return ties_lambda * disjoint_mean(trimmed, elect_sign(trimmed))


def refactorise(delta: torch.Tensor, rank: int, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(A', B') with scale · B' @ A' the best rank-`rank` approximation of `delta` (truncated SVD)."""
    left, singular, right = torch.linalg.svd(delta / scale, full_matrices=False)
    root = singular[:rank].sqrt()
    return root[:, None] * right[:rank], left[:, :rank] * root


def relative_error(delta: torch.Tensor, approximation: torch.Tensor) -> float:
    """‖ΔW - approximation‖_F / ‖ΔW‖_F, 0 for a zero ΔW reproduced exactly."""
    norm = torch.linalg.matrix_norm(delta).item()
    error = torch.linalg.matrix_norm(delta - approximation).item()
    return error / norm if norm else error


def _write_fresh_optimizer_state(source: Path, out_folder: Path) -> None:
    """An Adam state with no moments and the source checkpoint's hyperparameters, which `load` requires."""
    if (source / OPTIMIZER_FILE).is_file():
        saved = torch.load(source / OPTIMIZER_FILE, map_location="cpu", weights_only=True)
        torch.save({"state": {}, "param_groups": saved["param_groups"]}, out_folder / OPTIMIZER_FILE)


def merge_adapters(adapter_folders: list[Path], out_folder: Path, method: str = "linear",
                   weights: list[float] | None = None, density: float = 0.2, rank: int | None = None,
                   ties_lambda: float = 1.0) -> MergeReport:
    """Merge LoRA adapters of one base into a new adapter folder, without training.

    `linear`: ΔW = Σ_t w_t ΔW_t, weights 1/n each by default (the mean task vector).
    `ties`: TIES-merging with `density` (fraction of entries each task vector keeps) and
    `ties_lambda` (λ, the merged vector's scale); weights 1 each by default, as in the paper.
    `rank` is the merged adapter's rank, the largest input rank by default.
    """
    if method not in METHODS:
        raise HdlrlError(f"unknown merge method {method!r}, expected one of {', '.join(METHODS)}")
    if not adapter_folders:
        raise HdlrlError("no adapters to merge")
    if weights is not None and len(weights) != len(adapter_folders):
        raise HdlrlError(f"{len(weights)} weights for {len(adapter_folders)} adapters")
    if method == "ties" and not 0 < density <= 1:
        raise HdlrlError(f"density {density} is not in (0, 1]")
    adapters = [read_adapter(folder) for folder in adapter_folders]
    check_compatible(adapters)
    first = adapters[0]
    rank = max(adapter.rank for adapter in adapters) if rank is None else rank
    smallest_side = min(min(lora_b.shape[0], lora_a.shape[1]) for lora_a, lora_b in first.factors.values())
    if not 0 < rank <= smallest_side:
        raise HdlrlError(f"rank {rank} is not in 1..{smallest_side} (the smallest side of a target module)")
    merged_config = copy.deepcopy(first.config)
    merged_config.r = rank
    merged_scale = lora_scale(merged_config.lora_alpha, rank, merged_config.use_rslora)

    tensors, errors = {}, {}
    for module, (first_a, _) in first.factors.items():
        deltas = [adapter.delta(module) for adapter in adapters]
        if method == "linear":
            delta = linear_merge(deltas, weights or [1 / len(adapters)] * len(adapters))
        else:
            delta = ties_merge(deltas, weights or [1.0] * len(adapters), density, ties_lambda)
        lora_a, lora_b = (factor.to(first_a.dtype).cpu().contiguous()
                          for factor in refactorise(delta, rank, merged_scale))
        errors[module] = relative_error(delta, lora_delta(lora_a, lora_b, merged_scale))
        tensors[module + ".lora_A.weight"], tensors[module + ".lora_B.weight"] = lora_a, lora_b

    out_folder = Path(out_folder)
    out_folder.mkdir(parents=True, exist_ok=True)
    merged_config.save_pretrained(str(out_folder))
    save_file(tensors, str(out_folder / SAFETENSORS_WEIGHTS_NAME), metadata={"format": "pt"})
    _write_fresh_optimizer_state(first.folder, out_folder)
    return MergeReport(method, [adapter.folder for adapter in adapters], rank, errors)
