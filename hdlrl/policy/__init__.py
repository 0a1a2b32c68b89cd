"""Policies: what proposes the next candidates of a search, behind `hdlrl.ttt.protocol.Policy`.

Two backends serve every job, one file each: `hf:PATH_OR_NAME` (a local transformers model
with a LoRA adapter that learns) and `openai:URL` (a frozen model behind a chat-completions
server). They read a job's state only through the state's own `messages` and
`sources_from`, so they never import a job. Each job brings its embedded policies, which
need no model weights (`rewrite` for optimize, `cdg` and `random` for cover, `compose` for
summarize), and passes them to `make_policy`. Backends are imported only when asked for, so
a search runs without torch or transformers unless an LLM policy is chosen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.ttt.protocol import Policy

LANGUAGE_MODEL_SPECS = ("hf:PATH_OR_NAME", "openai:URL")


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


def make_policy(spec: str, embedded: Mapping[str, Callable[..., Policy]], **options: Any) -> Policy:
    """The policy a `--policy` value names: one of the job's `embedded` policies or a language model,
    built with the backend's keyword `options`."""
    kind, _, argument = spec.partition(":")
    if spec in embedded:
        return embedded[spec](**options)
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
    raise HdlrlError(f"unknown policy {spec!r} (known: {', '.join([*embedded, *LANGUAGE_MODEL_SPECS])})")
