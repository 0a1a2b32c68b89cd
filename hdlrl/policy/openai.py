"""A frozen LLM behind an OpenAI-compatible chat-completions server (vLLM, llama.cpp, SGLang, OpenAI).

It cannot be trained from here, so it serves as a strong fixed baseline and as the search's
proposal distribution when no GPU is at hand. Plain urllib keeps it free of a client library.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.ttt.protocol import Sample, State, UpdateStats


def api_base(url: str) -> str:
    """`http://host:port/v1` from the server's address, with or without `/v1` or the endpoint path."""
    base = url.rstrip("/").removesuffix("/chat/completions").removesuffix("/v1")
    return f"{base}/v1"


class OpenAIPolicy:
    trainable = False

    def __init__(self, url: str, model: str | None = None, api_key: str | None = None, temperature: float = 1.0,
                 max_tokens: int = 2048, timeout_s: float = 600.0):
        self.url = api_base(url)
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.model = model or self._served_model()
        self.name = f"openai:{self.model}"

    def _request(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer of GET (no body) or POST `path`, or an HdlrlError in one line."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            detail = " ".join(error.read().decode(errors="replace").split())[:200]
            raise HdlrlError(f"{self.url}{path}: HTTP {error.code} {error.reason}: {detail}".rstrip(": ")) from error
        except urllib.error.URLError as error:
            raise HdlrlError(f"cannot reach {self.url}{path}: {error.reason}") from error
        except OSError as error:  # a time-out or a dropped connection while reading the answer
            raise HdlrlError(f"{self.url}{path}: connection failed: {error or type(error).__name__}") from error
        except json.JSONDecodeError as error:
            raise HdlrlError(f"{self.url}{path}: the answer is not JSON ({error})") from error

    def _served_model(self) -> str:
        """The first model the server lists: local servers (vLLM, llama.cpp) serve exactly one."""
        answer = self._request("/models")
        try:
            return answer["data"][0]["id"]
        except (KeyError, IndexError, TypeError) as error:
            raise HdlrlError(f"{self.url}/models lists no model: pass one with model=") from error

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        """`k` completions, asked for again when a server returns fewer choices than `n` (llama.cpp does)."""
        messages = state.messages()
        samples: list[Sample] = []
        while len(samples) < k:
            answer = self._request("/chat/completions", {
                "model": self.model, "messages": messages, "n": k - len(samples), "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": rng_seed + len(samples)})
            try:
                choices = [(choice["message"]["content"] or "", choice.get("finish_reason"))
                           for choice in answer["choices"]]
            except (AttributeError, KeyError, TypeError) as error:
                raise HdlrlError(f"{self.url}/chat/completions: malformed answer (no choices[].message.content)") \
                    from error
            if not choices:
                raise HdlrlError(f"{self.url}/chat/completions: the answer has no choices")
            samples += [Sample(state.sources_from(text), text, metadata={"finish_reason": reason})
                        for text, reason in choices[:k - len(samples)]]
        return samples

    def update(self, state_samples: list[tuple[State, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        return UpdateStats()

    def save(self, folder: Path) -> None:
        """Nothing to save: the model lives on the server and does not change."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""
