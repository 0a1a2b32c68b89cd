"""The OpenAI-compatible policy against a real local HTTP server speaking chat-completions JSON."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hdlrl.errors import HdlrlError
from hdlrl.policy import make_policy
from hdlrl.optimize.prompt import DesignState
from hdlrl.policy.openai import OpenAIPolicy

ADDER = "module add8(input [7:0] a, b, output [7:0] y);\n  assign y = b + a;\nendmodule"
STATE = DesignState("add8", "add8", "An 8-bit adder.", {"rtl/add8.v": ADDER.replace("b + a", "a + b") + "\n"})


class ChatServer(BaseHTTPRequestHandler):
    """Answers `n` choices per request, at most `max_choices` (as llama.cpp answers one), or HTTP `status`."""

    status = 200
    max_choices = 100
    malformed = False
    requests: list[dict] = []

    def _answer(self, status: int, body: dict) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self._answer(200, {"object": "list", "data": [{"id": "tiny-coder", "object": "model"}]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        request["authorization"] = self.headers.get("Authorization")
        self.requests.append(request)
        if self.status != 200:
            self._answer(self.status, {"error": {"message": "the model crashed"}})
            return
        if self.malformed:
            self._answer(200, {"choices": [{"text": "a completions-API answer"}]})
            return
        count = min(request["n"], self.max_choices)
        self._answer(200, {"object": "chat.completion", "model": request["model"], "choices": [
            {"index": index, "finish_reason": "stop",
             "message": {"role": "assistant", "content": f"Swapped operands.\n```verilog\n{ADDER}\n```"}}
            for index in range(count)]})

    def log_message(self, *arguments) -> None:
        pass


@pytest.fixture
def server() -> Iterator[type[ChatServer]]:
    handler = type("Handler", (ChatServer,), {"requests": []})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield handler
    httpd.shutdown()
    httpd.server_close()


def test_k_samples_with_extracted_sources(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    policy = make_policy(f"openai:{server.url}/v1", {}, temperature=0.7)
    assert policy.name == "openai:tiny-coder" and not policy.trainable  # the model the server lists
    samples = policy.sample(STATE, 3, rng_seed=5)
    assert len(samples) == 3
    assert all(sample.sources == {"rtl/add8.v": ADDER + "\n"} and sample.logprob is None for sample in samples)
    request = server.requests[0]
    assert request["n"] == 3 and request["temperature"] == 0.7 and request["seed"] == 5
    assert request["model"] == "tiny-coder" and request["authorization"] == "Bearer sk-test"
    assert [message["role"] for message in request["messages"]] == ["system", "user"]
    stats = policy.update([(STATE, samples)], [[1.0, 0.0, -1.0]], kl_coef=0.1)
    assert (stats.loss, stats.kl, stats.grad_norm, stats.samples) == (0.0, 0.0, 0.0, 0)


def test_server_answering_fewer_choices_is_asked_again(server):
    server.max_choices = 1
    samples = OpenAIPolicy(server.url, model="tiny-coder").sample(STATE, 3, rng_seed=0)
    assert len(samples) == 3 and [request["n"] for request in server.requests] == [3, 2, 1]


def test_http_500_is_one_clear_error(server):
    server.status = 500
    with pytest.raises(HdlrlError, match=r"/v1/chat/completions: HTTP 500 .*the model crashed") as raised:
        OpenAIPolicy(server.url, model="tiny-coder").sample(STATE, 2, rng_seed=0)
    assert "\n" not in str(raised.value)


def test_malformed_answer_is_one_clear_error(server):
    server.malformed = True
    with pytest.raises(HdlrlError, match=r"malformed answer \(no choices\[\]\.message\.content\)"):
        OpenAIPolicy(server.url, model="tiny-coder").sample(STATE, 1, rng_seed=0)


def test_unreachable_port_is_one_clear_error():
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(HdlrlError, match=rf"cannot reach http://127.0.0.1:{port}/v1/chat/completions: .*refused"):
        OpenAIPolicy(f"http://127.0.0.1:{port}", model="tiny-coder", timeout_s=5).sample(STATE, 1, rng_seed=0)
