"""A tiny randomly initialised Llama built from a config: the LM code paths are tested on it,
with no download, in seconds, and work unchanged with a real checkpoint."""

from __future__ import annotations

import torch
import transformers

END = "<|endoftext|>"


def tiny_llama(tokenizer: transformers.PreTrainedTokenizerBase, hidden_size: int = 32) -> transformers.LlamaForCausalLM:
    torch.manual_seed(0)  # the same base weights every time, as a checkpoint would give
    config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden_size, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                                      max_position_embeddings=2048, eos_token_id=tokenizer.eos_token_id,
                                      bos_token_id=tokenizer.eos_token_id)
    return transformers.LlamaForCausalLM(config)
