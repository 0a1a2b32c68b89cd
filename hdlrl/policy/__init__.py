"""Policies: what proposes the next rewrites (`hdlrl optimize`) or stimulus programs (`hdlrl cover`).

Every policy speaks the `Policy` protocol of `hdlrl.policy.base`, one backend per file:
`rewrite` (architecture rewrites and synthesis recipes, for `hdlrl optimize`), `cdg`
(coverage-directed stimulus generators) and `random` (constrained random, frozen), both for
`hdlrl cover`, `compose` (summaries composed from the facts, for `hdlrl summarize`), `hf:PATH_OR_NAME` (a local transformers model with a LoRA adapter that learns)
and `openai:URL` (a frozen model behind a chat-completions server); the last two serve both jobs.
Backends are imported only when asked for, so the search runs without torch or transformers
unless an LLM policy is chosen.
"""

from __future__ import annotations

import json
from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.policy.base import Policy

POLICY_SPECS = "rewrite, cdg, random, compose, hf:PATH_OR_NAME, openai:URL"


def policy_options(pairs: list[str]) -> dict:
    """`--policy-option key=value` pairs, values read as JSON where they parse (numbers, booleans), else text."""
    options = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator:
            raise HdlrlError(f"--policy-option {pair!r} is not key=value")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def make_policy(spec: str, **options: Any) -> Policy:
    """The policy a `--policy` value names, built with the backend's keyword `options`."""
    kind, _, argument = spec.partition(":")
    if spec == "rewrite":
        from hdlrl.policy.rewrite import RewritePolicy

        return RewritePolicy(**options)
    if spec == "cdg":
        from hdlrl.policy.cdg import CoverageDirectedPolicy

        return CoverageDirectedPolicy(**options)
    if spec == "random":
        from hdlrl.policy.random_stimulus import RandomStimulusPolicy

        return RandomStimulusPolicy(**options)
    if spec == "compose":
        from hdlrl.policy.compose import ComposePolicy

        return ComposePolicy(**options)
    if kind == "hf" and argument:
        try:
            from hdlrl.policy.hf import HuggingFacePolicy
        except ImportError as error:
            raise HdlrlError(f"the hf policy needs transformers and peft ({error}): "
                             "pip install -r requirements.txt") from error
        return HuggingFacePolicy.from_pretrained(argument, **options)
    if kind == "openai" and argument:
        from hdlrl.policy.openai import OpenAIPolicy

        return OpenAIPolicy(argument, **options)
    raise HdlrlError(f"unknown policy {spec!r} (known: {POLICY_SPECS})")
