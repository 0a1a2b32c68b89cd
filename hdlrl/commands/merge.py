"""`hdlrl merge`: LoRA adapters of one base merged into one by peft, without training."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from hdlrl.policy.merge import merge_adapters


def run_merge(arguments: argparse.Namespace) -> int:
    report = merge_adapters(arguments.adapters, arguments.out, method=arguments.method, weights=arguments.weights,
                            density=arguments.density, rank=arguments.rank, base=arguments.base,
                            majority_sign_method=arguments.majority_sign, seed=arguments.seed)
    if arguments.json:
        print(json.dumps(asdict(report), indent=2, default=str))
        return 0
    weights = ", ".join(f"{weight:g}" for weight in report.weights)
    print(f"merged {len(report.inputs)} adapters by {report.method} (weights {weights}) into {report.out}: "
          f"rank {report.rank}, lora_alpha {report.alpha:g}; load it into an hf policy built with "
          f"lora_rank={report.rank} and lora_alpha={report.alpha:g}")
    return 0
