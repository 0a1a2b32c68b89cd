"""A local transformers causal LM with a LoRA adapter, trained at test time by policy gradient.

The base weights stay frozen; only the adapter learns, so the frozen base is the same model
with the adapter disabled and the KL penalty needs no second copy in memory. Defaults follow
TTT-Discover: LoRA rank 32, learning rate 4e-5, Adam with betas (0.9, 0.95).

Log-probs come from a forward pass over prompt + completion, never from `generate`'s scores,
so a sample's `logprob` is exactly the quantity `update` differentiates. Sampling is pure
(temperature only, no top-k, top-p or repetition penalty from the checkpoint's generation
config) and log-probs are of the same temperature-scaled distribution: the samples must come
from the distribution whose log-probs the update uses.
"""

from __future__ import annotations

from pathlib import Path

import torch
from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
from peft.utils import load_peft_weights
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from hdlrl.errors import HdlrlError, first_line
from hdlrl.ttt.protocol import Sample, State, UpdateStats

OPTIMIZER_FILE = "optimizer.pt"


def _per_token_kl(logprobs: torch.Tensor, other_logprobs: torch.Tensor) -> torch.Tensor:
    """KL(p || q) per token from tokens drawn from p (Schulman's k3 estimator: unbiased, never negative)."""
    log_ratio = other_logprobs - logprobs
    return torch.exp(log_ratio) - log_ratio - 1


class HuggingFacePolicy:
    """`model` and `tokenizer` are already built; `from_pretrained` loads them from a checkpoint."""

    trainable = True

    def __init__(self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, lora_rank: int = 32,
                 lora_alpha: float = 32.0, learning_rate: float = 4e-5, betas: tuple[float, float] = (0.9, 0.95),
                 max_grad_norm: float = 1.0, max_new_tokens: int = 2048, temperature: float = 1.0,
                 name: str | None = None):
        self.name = name or f"hf:{model.config.name_or_path or model.config.model_type}"
        self.tokenizer = tokenizer
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens
        self.max_grad_norm = max_grad_norm
        self.device = next(model.parameters()).device
        config = LoraConfig(r=lora_rank, lora_alpha=lora_alpha, lora_dropout=0.0, target_modules="all-linear",
                            task_type="CAUSAL_LM")
        self.model = get_peft_model(model, config)
        self.model.eval()  # no dropout: a sample's log-prob must not depend on when it is computed
        self.optimizer = torch.optim.Adam([parameter for parameter in self.model.parameters()
                                           if parameter.requires_grad], lr=learning_rate, betas=betas)
        stop = model.generation_config.eos_token_id  # one id or a list (chat models end turns several ways)
        stop_ids = [*(stop if isinstance(stop, list) else [stop]), tokenizer.eos_token_id]
        self.stop_ids = {token for token in stop_ids if token is not None}
        if not self.stop_ids:
            raise HdlrlError(f"{self.name}: the tokenizer and generation config name no end-of-sequence token")

    @classmethod
    def from_pretrained(cls, path_or_name: str, **options) -> "HuggingFacePolicy":
        """Load offline from a local folder or the Hugging Face cache: bf16 on a GPU, float32 on the CPU."""
        on_gpu = torch.cuda.is_available()
        try:
            tokenizer = AutoTokenizer.from_pretrained(path_or_name, local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(path_or_name, local_files_only=True,
                                                         dtype=torch.bfloat16 if on_gpu else torch.float32,
                                                         device_map="cuda" if on_gpu else "cpu")
        except (OSError, ValueError) as error:
            raise HdlrlError(f"cannot load model {path_or_name!r} offline: {first_line(error)}") from error
        return cls(model, tokenizer, name=f"hf:{path_or_name}", **options)

    def prompt_ids(self, state: State) -> list[int]:
        """The prompt's token ids: the tokenizer's chat template where it has one, else the plain messages."""
        messages = state.messages()
        if self.tokenizer.chat_template:
            text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        else:
            text = "\n\n".join(message["content"] for message in messages) + "\n\n"
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _token_logprobs(self, prompt: list[int], completion: list[int]) -> torch.Tensor:
        """Log-probs of each completion token given the prompt and the tokens before it."""
        ids = torch.tensor([prompt + completion], device=self.device)
        logits = self.model(input_ids=ids, logits_to_keep=len(completion) + 1).logits[0, :-1]
        logprobs = torch.log_softmax(logits.float() / self.temperature, dim=-1)
        return logprobs.gather(-1, ids[0, len(prompt):, None])[:, 0]

    def _completion_ids(self, generated: list[int]) -> list[int]:
        """The generated tokens up to and including the first stop token (the padding after it dropped)."""
        for index, token in enumerate(generated):
            if token in self.stop_ids:
                return generated[:index + 1]
        return generated

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        prompt = self.prompt_ids(state)
        input_ids = torch.tensor([prompt], device=self.device)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []), torch.no_grad():
            torch.manual_seed(rng_seed)
            generated = self.model.generate(
                input_ids=input_ids, attention_mask=torch.ones_like(input_ids), do_sample=True,
                temperature=self.temperature, top_k=0, top_p=1.0, repetition_penalty=1.0,
                max_new_tokens=self.max_new_tokens, num_return_sequences=k,
                pad_token_id=min(self.stop_ids), eos_token_id=sorted(self.stop_ids))
        samples = []
        for sequence in generated[:, len(prompt):].tolist():
            completion = self._completion_ids(sequence)
            with torch.no_grad():
                logprob = self._token_logprobs(prompt, completion).sum().item()
            text = self.tokenizer.decode(completion, skip_special_tokens=True)
            samples.append(Sample(state.sources_from(text), text, logprob, metadata={
                "completion_ids": completion, "finished": bool(completion) and completion[-1] in self.stop_ids}))
        return samples

    def logprobs(self, state: State, samples: list[Sample]) -> list[float]:
        """Each sample's log-prob under the current policy (its `logprob` is this at sampling time)."""
        prompt = self.prompt_ids(state)
        with torch.no_grad():
            return [self._token_logprobs(prompt, sample.metadata["completion_ids"]).sum().item()
                    for sample in samples]

    def update(self, state_samples: list[tuple[State, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One Adam step on -mean(A * logprob) + kl_coef * mean per-token KL(policy || base), one sample at a time."""
        batch = [(self.prompt_ids(state), sample.metadata["completion_ids"], advantage)
                 for (state, samples), state_advantages in zip(state_samples, advantages, strict=True)
                 for sample, advantage in zip(samples, state_advantages, strict=True)
                 if sample.metadata["completion_ids"]]  # an empty completion has nothing to learn from
        if not batch:
            return UpdateStats()
        tokens = sum(len(completion) for _, completion, _ in batch)
        self.optimizer.zero_grad(set_to_none=True)
        loss_total = kl_total = 0.0
        before = []
        for prompt, completion, advantage in batch:
            with torch.no_grad(), self.model.disable_adapter():
                base = self._token_logprobs(prompt, completion)
            logprobs = self._token_logprobs(prompt, completion)
            kl = _per_token_kl(logprobs, base).sum()
            loss = -advantage * logprobs.sum() / len(batch) + kl_coef * kl / tokens
            loss.backward()
            loss_total += loss.item()
            kl_total += kl.item()
            before.append(logprobs.detach())
        parameters = [parameter for group in self.optimizer.param_groups for parameter in group["params"]]
        grad_norm = torch.nn.utils.clip_grad_norm_(parameters, self.max_grad_norm).item()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            step_kl = sum(_per_token_kl(old, self._token_logprobs(prompt, completion)).sum().item()
                          for (prompt, completion, _), old in zip(batch, before))
        return UpdateStats(loss=loss_total, kl=kl_total / tokens, step_kl=step_kl / tokens,
                           grad_norm=grad_norm, samples=len(batch))

    def save(self, folder: Path) -> None:
        """The adapter (peft's adapter_model.safetensors and adapter_config.json) and the Adam state."""
        folder = Path(folder)
        self.model.save_pretrained(folder)
        torch.save(self.optimizer.state_dict(), folder / OPTIMIZER_FILE)

    def load(self, folder: Path) -> None:
        folder = Path(folder)
        if not (folder / OPTIMIZER_FILE).is_file():
            raise HdlrlError("not a checkpoint of the hf policy (no optimizer.pt)", folder)
        set_peft_model_state_dict(self.model, load_peft_weights(str(folder), device=str(self.device)))
        self.optimizer.load_state_dict(torch.load(folder / OPTIMIZER_FILE, map_location=self.device))
