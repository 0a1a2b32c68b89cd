"""`hdlrl bench policy`: what a language-model policy costs per TTT step, on this machine.

It loads the model (the first load of a GGUF file includes its one-off conversion, reported
apart), then, for `rounds` rounds on one design's optimize state, times both ways an LM acts:
write (one batched `generate` of k completions with the KV cache, plus their log-probs in one
pass) and choose (the menu's log-probs), each followed by one update with fixed advantages.
Generated tokens per second count the group's tokens over the whole `sample` call, prompt
pass and log-probs included: what the search loop pays. Peak memory is the process's
resident maximum (and the GPU's allocator peak where there is one).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import time
from pathlib import Path

import torch

from hdlrl.design import load_design
from hdlrl.hdl.design_files import relative_name
from hdlrl.optimize.choice_policy import ChoicePolicy
from hdlrl.optimize.prompt import DesignState
from hdlrl.policy.hf import HuggingFacePolicy
from hdlrl.policy.model_files import is_converted, model_source


def _advantages(k: int) -> list[float]:
    """Centred ranks from +1 to -1: a group with a signal, the same every round."""
    return [1.0 - 2.0 * index / (k - 1) for index in range(k)] if k > 1 else [0.0]


def run_bench_policy(arguments: argparse.Namespace) -> int:
    source = model_source(arguments.model)
    converted = source.gguf_file is not None and not is_converted(source)
    started = time.perf_counter()
    language_model = HuggingFacePolicy.from_pretrained(arguments.model, max_new_tokens=arguments.max_new_tokens)
    first_load_s = time.perf_counter() - started
    started = time.perf_counter()
    language_model = HuggingFacePolicy.from_pretrained(arguments.model, max_new_tokens=arguments.max_new_tokens)
    load_s = time.perf_counter() - started
    design = load_design(arguments.design)
    state = DesignState(design.name, design.top, design.description,
                        {relative_name(design, path): path.read_text() for path in design.rtl})
    chooser = ChoicePolicy(language_model)
    write_sample, write_update, tokens, choose_sample, choose_update = [], [], [], [], []
    k = arguments.group_size
    for round_index in range(arguments.rounds):
        started = time.perf_counter()
        samples = language_model.sample(state, k, rng_seed=round_index)
        write_sample.append(time.perf_counter() - started)
        tokens.append(sum(len(sample.metadata["completion_ids"]) for sample in samples))
        started = time.perf_counter()
        language_model.update([(state, samples)], [_advantages(len(samples))], kl_coef=0.1)
        write_update.append(time.perf_counter() - started)
        started = time.perf_counter()
        choices = chooser.sample(state, k, rng_seed=round_index)
        choose_sample.append(time.perf_counter() - started)
        started = time.perf_counter()
        chooser.update([(state, choices)], [_advantages(len(choices))], kl_coef=0.1)
        choose_update.append(time.perf_counter() - started)
    median = statistics.median
    result = {
        "model": arguments.model, "device": str(language_model.device), "threads": torch.get_num_threads(),
        "parameters": sum(parameter.numel() for name, parameter in language_model.model.named_parameters()
                          if "lora_" not in name),
        "first_load_s": round(first_load_s, 2), "first_load_converted_gguf": converted, "load_s": round(load_s, 2),
        "design": design.name, "prompt_tokens": len(language_model.prompt_ids(state)), "group_size": k,
        "rounds": arguments.rounds, "max_new_tokens": arguments.max_new_tokens,
        "write": {"generated_tokens": median(tokens), "sample_s": round(median(write_sample), 2),
                  "generated_tokens_per_s": round(sum(tokens) / sum(write_sample), 1),
                  "update_s": round(median(write_update), 2),
                  "ttt_step_s": round(median(write_sample) + median(write_update), 2)},
        "choose": {"menu": len(chooser.menu.menu(state, every_sequence=False)), "sample_s": round(median(choose_sample), 2),
                   "update_s": round(median(choose_update), 2),
                   "ttt_step_s": round(median(choose_sample) + median(choose_update), 2)},
        "peak_resident_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    if torch.cuda.is_available():
        result["peak_gpu_mib"] = round(torch.cuda.max_memory_allocated() / 2**20)
    print(json.dumps(result, indent=2))
    if arguments.output:
        Path(arguments.output).write_text(json.dumps(result, indent=2) + "\n")
    return 0
