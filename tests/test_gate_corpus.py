"""The gate's attack corpus (tests/gate_corpus/corpus.yaml): every candidate gets the verdict it
expects, judged as `hdlrl gate-corpus` judges it (real tools, with PPA).

Reject candidates are what a policy trained against the gate would learn to write: source that
reads differently in the simulators and in Yosys, names the gate generates, deviations after a
long horizon, system tasks built by macros, checks that cannot decide, PPA too good to be true.
Accept candidates are equivalent in the one view every tool reads (simulation-only code,
pragmas, unusual but legal style). Unproven ones are wrong only beyond any finite check and
must never be proven. The corpus was written apart from the gate's fixes, as a held-out set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.evaluate.cache import default_cache_path
from hdlrl.evaluate.executors import make_executor
from hdlrl.pdk import get_pdk
from hdlrl.verify.corpus import AttackResult, load_corpus, run_corpus
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.verify.reward import ACCEPTED_CAP

CORPUS = Path(__file__).resolve().parent / "gate_corpus" / "corpus.yaml"
ATTACKS = load_corpus(CORPUS)
CLASSES = ("tool-view", "reserved-name", "long-horizon", "screen", "undecided", "implausible")


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest) -> dict[str, AttackResult]:
    """name -> result for every candidate whose design is available (RTLLM ones need ../shared)."""
    try:
        rtllm = request.getfixturevalue("imported_rtllm")
    except pytest.skip.Exception:
        rtllm = None
    executor = make_executor("local", max(1, min(2, os.cpu_count() or 1)))
    try:
        # The session's cache: each design's reference is evaluated once, not once per candidate.
        judged = run_corpus(ATTACKS, DESIGNS_DIR, rtllm, get_pdk("generic"), load_gate_flow(), executor,
                            default_cache_path(), progress=False)
    finally:
        executor.close()
    return {result.attack.name: result for result in judged}


def test_corpus_covers_every_class_on_project_and_rtllm_designs() -> None:
    names = [attack.name for attack in ATTACKS]
    assert len(names) == len(set(names))
    rejects = [attack for attack in ATTACKS if attack.expect == "reject"]
    assert len(rejects) >= 25 and sum(attack.expect == "accept" for attack in ATTACKS) >= 5
    for name in CLASSES:
        assert sum(attack.kind == name for attack in rejects) >= (4 if name in CLASSES[:4] else 1), name
    for attack in ATTACKS:
        assert attack.kind in CLASSES or attack.kind.startswith("other-"), attack.name
        assert attack.source.read_text().startswith("// "), f"{attack.source}: the first line says what it attacks"
    assert len({attack.design for attack in ATTACKS if not attack.design.startswith("rtllm/")}) >= 3
    assert len({attack.design for attack in ATTACKS if attack.design.startswith("rtllm/")}) >= 3


@pytest.mark.parametrize("attack", ATTACKS, ids=[attack.name for attack in ATTACKS])
def test_candidate_gets_the_expected_verdict(attack, results: dict[str, AttackResult]) -> None:
    if attack.name not in results:
        pytest.skip(f"design {attack.design} not available (RTLLM benchmark not found)")
    result = results[attack.name]
    assert result.reward <= ACCEPTED_CAP
    assert result.held, (f"{attack.expect} expected, got {'accepted' if result.accepted else 'rejected'} at "
                         f"{result.stage}, level {result.level}: {result.reason or attack.why}")
