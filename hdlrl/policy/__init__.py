"""Policies of the test-time-training optimiser (`hdlrl optimize`): what proposes the next rewrites.

Every policy speaks the `Policy` protocol of `hdlrl.policy.base`, one backend per file:
`rewrite` (rule-based rewrites, frozen), `hf:PATH_OR_NAME` (a local transformers model with a
LoRA adapter that learns) and `openai:URL` (a frozen model behind a chat-completions server).
Backends are imported only when asked for, so the search runs without torch or transformers
unless an LLM policy is chosen.
"""

from __future__ import annotations

from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.policy.base import Policy

POLICY_SPECS = "rewrite, hf:PATH_OR_NAME, openai:URL"


def make_policy(spec: str, **options: Any) -> Policy:
    """The policy a `--policy` value names, built with the backend's keyword `options`."""
    kind, _, argument = spec.partition(":")
    if spec == "rewrite":
        from hdlrl.policy.rewrite import RewritePolicy

        return RewritePolicy(**options)
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
