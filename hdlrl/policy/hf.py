"""A local transformers causal LM with a LoRA adapter, trained at test time by policy gradient.

The base weights stay frozen; only the adapter learns, so the frozen base is the same model
with the adapter disabled and the KL penalty needs no second copy in memory. Defaults follow
TTT-Discover: LoRA rank 32, learning rate 4e-5, Adam with betas (0.9, 0.95).

Log-probs come from a forward pass over prompt + completion, never from `generate`'s scores,
so a sample's `logprob` is exactly the quantity `update` differentiates. Sampling is pure
(temperature only, no top-k, top-p or repetition penalty from the checkpoint's generation
config) and log-probs are of the same temperature-scaled distribution: the samples must come
from the distribution whose log-probs the update uses.

A group of k is sampled in one batched `generate` (with its KV cache) that starts from the
prompt's keys and values computed once, and scored in one batched pass that reuses them the same
way, so a group costs one prompt pass, not k, in each.
`continuation_logprobs` scores a menu of answers the same way (the choose mode of `hdlrl optimize`).
"""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path

import torch
from peft import LoraConfig, get_peft_model, set_peft_model_state_dict
from peft.utils import load_peft_weights
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from hdlrl.errors import HdlrlError, first_line
from hdlrl.policy.model_files import local_model_folder
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
        with warnings.catch_warnings():  # peft asks transformers a deprecated question; not the user's concern
            warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing", category=FutureWarning)
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
    def from_pretrained(cls, name: str, **options) -> "HuggingFacePolicy":
        """Load offline (`hdlrl.policy.model_files` says what `name` may be): bf16 on a GPU, float32 on the CPU."""
        on_gpu = torch.cuda.is_available()
        folder = local_model_folder(name)
        try:
            tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True,
                                                         dtype=torch.bfloat16 if on_gpu else torch.float32,
                                                         device_map="cuda" if on_gpu else "cpu")
        except (OSError, ValueError) as error:
            raise HdlrlError(f"cannot load model {name!r} offline: {first_line(error)}") from error
        return cls(model, tokenizer, name=f"hf:{name}", **options)

    def chat_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """A chat's token ids up to the assistant's turn: the tokenizer's chat template where it has
        one, else the plain messages."""
        if self.tokenizer.chat_template:
            text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        else:
            text = "\n\n".join(message["content"] for message in messages) + "\n\n"
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def prompt_ids(self, state: State) -> list[int]:
        return self.chat_ids(state.messages())

    def _padded(self, sequences: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded ids and their attention mask."""
        length = max(len(sequence) for sequence in sequences)
        ids = torch.full((len(sequences), length), min(self.stop_ids), device=self.device)
        mask = torch.zeros((len(sequences), length), dtype=torch.long, device=self.device)
        for row, sequence in enumerate(sequences):
            ids[row, :len(sequence)] = torch.tensor(sequence, device=self.device)
            mask[row, :len(sequence)] = 1
        return ids, mask

    def _token_logprobs(self, prompt: list[int], completions: list[list[int]]) -> list[torch.Tensor]:
        """Log-probs of each completion's tokens given the prompt and the tokens before them, the
        completions in one batch over one pass of the prompt (its keys and values computed once)."""
        prompt_pass = self.model(input_ids=torch.tensor([prompt], device=self.device), use_cache=True,
                                 logits_to_keep=1)  # only the last position predicts a completion token
        first = torch.log_softmax(prompt_pass.logits[0, -1].float() / self.temperature, dim=-1)
        result: list[torch.Tensor] = [first[:0] for _ in completions]
        rows = [row for row, completion in enumerate(completions) if completion]
        if not rows:
            return result
        cache = prompt_pass.cache
        cache.batch_repeat_interleave(len(rows))
        ids, mask = self._padded([completions[row] for row in rows])
        prompt_mask = torch.ones((len(rows), len(prompt)), dtype=torch.long, device=self.device)
        logits = self.model(input_ids=ids, attention_mask=torch.cat([prompt_mask, mask], dim=1),
                            cache=cache).logits
        for batch_row, row in enumerate(rows):
            length = len(completions[row])
            later = torch.log_softmax(logits[batch_row, :length - 1].float() / self.temperature, dim=-1)
            logprobs = torch.cat([first[None], later])
            result[row] = logprobs.gather(-1, ids[batch_row, :length, None])[:, 0]
        return result

    def continuation_logprobs(self, messages: list[dict[str, str]], continuations: list[str],
                              batch_size: int = 32) -> torch.Tensor:
        """log p(continuation + end of turn | chat) of each continuation as the assistant's answer,
        with gradients where enabled: how likely the model finds each item of a menu."""
        prompt = self.chat_ids(messages)
        end = [min(self.stop_ids)] if self.tokenizer.chat_template else []
        encoded = [self.tokenizer(text, add_special_tokens=False)["input_ids"] + end for text in continuations]
        sums = []
        for start in range(0, len(encoded), batch_size):
            sums += [logprobs.sum() for logprobs in self._token_logprobs(prompt, encoded[start:start + batch_size])]
        return torch.stack(sums)

    def _completion_ids(self, generated: list[int]) -> list[int]:
        """The generated tokens up to and including the first stop token (the padding after it dropped)."""
        for index, token in enumerate(generated):
            if token in self.stop_ids:
                return generated[:index + 1]
        return generated

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        prompt = self.prompt_ids(state)
        input_ids = torch.tensor([prompt] * k, device=self.device)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []), torch.no_grad():
            # The prompt's keys and values once, shared by the k sequences (generate would compute them k times).
            shared = {}
            if len(prompt) > 1:
                shared["cache"] = self.model(input_ids=input_ids[:1, :-1], use_cache=True, logits_to_keep=1).cache
                shared["cache"].batch_repeat_interleave(k)
            torch.manual_seed(rng_seed)
            generated = self.model.generate(
                input_ids=input_ids, attention_mask=torch.ones_like(input_ids), do_sample=True,
                temperature=self.temperature, top_k=0, top_p=1.0, repetition_penalty=1.0,
                max_new_tokens=self.max_new_tokens, pad_token_id=min(self.stop_ids),
                eos_token_id=sorted(self.stop_ids), **shared)
        completions = [self._completion_ids(sequence) for sequence in generated[:, len(prompt):].tolist()]
        with torch.no_grad():
            logprobs = [values.sum().item() for values in self._token_logprobs(prompt, completions)]
        samples = []
        for completion, logprob in zip(completions, logprobs):
            text = self.tokenizer.decode(completion, skip_special_tokens=True)
            samples.append(Sample(state.sources_from(text), text, logprob, metadata={
                "completion_ids": completion, "finished": bool(completion) and completion[-1] in self.stop_ids}))
        return samples

    def logprobs(self, state: State, samples: list[Sample]) -> list[float]:
        """Each sample's log-prob under the current policy (its `logprob` is this at sampling time)."""
        with torch.no_grad():
            values = self._token_logprobs(self.prompt_ids(state), [sample.metadata["completion_ids"]
                                                                   for sample in samples])
        return [value.sum().item() for value in values]

    def without_adapter(self) -> contextlib.AbstractContextManager:
        """The frozen base model (the initial policy, pi_0) for the duration of a `with` block."""
        return self.model.disable_adapter()

    def optimizer_step(self) -> float:
        """Clip the gradient accumulated by `backward` calls and take one Adam step on the adapter;
        returns the gradient's norm before clipping."""
        parameters = [parameter for group in self.optimizer.param_groups for parameter in group["params"]]
        grad_norm = torch.nn.utils.clip_grad_norm_(parameters, self.max_grad_norm).item()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return grad_norm

    def update(self, state_samples: list[tuple[State, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One Adam step on -mean(A * logprob) + kl_coef * mean per-token KL(policy || base), one group at a time.

        An empty completion has nothing to learn from and is left out.
        """
        groups = []
        for (state, samples), group_advantages in zip(state_samples, advantages, strict=True):
            kept = [(sample.metadata["completion_ids"], advantage)
                    for sample, advantage in zip(samples, group_advantages, strict=True)
                    if sample.metadata["completion_ids"]]
            if kept:
                groups.append((self.prompt_ids(state), [completion for completion, _ in kept],
                               [advantage for _, advantage in kept]))
        count = sum(len(completions) for _, completions, _ in groups)
        if not count:
            return UpdateStats()
        tokens = sum(len(completion) for _, completions, _ in groups for completion in completions)
        self.optimizer.zero_grad(set_to_none=True)
        loss_total = kl_total = 0.0
        before = []
        for prompt, completions, group_advantages in groups:
            with torch.no_grad(), self.without_adapter():
                base = self._token_logprobs(prompt, completions)
            logprobs = self._token_logprobs(prompt, completions)
            kl = sum(_per_token_kl(current, reference).sum() for current, reference in zip(logprobs, base))
            gain = sum(advantage * current.sum() for advantage, current in zip(group_advantages, logprobs))
            loss = -gain / count + kl_coef * kl / tokens
            loss.backward()
            loss_total += loss.item()
            kl_total += kl.item()
            before.append([current.detach() for current in logprobs])
        grad_norm = self.optimizer_step()
        with torch.no_grad():
            step_kl = sum(_per_token_kl(old, new).sum().item()
                          for (prompt, completions, _), olds in zip(groups, before)
                          for old, new in zip(olds, self._token_logprobs(prompt, completions)))
        return UpdateStats(loss=loss_total, kl=kl_total / tokens, step_kl=step_kl / tokens,
                           grad_norm=grad_norm, samples=count)

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
