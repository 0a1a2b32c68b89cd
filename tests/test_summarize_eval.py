"""`hdlrl summarize --eval`: ROUGE-L by hand, MiniLM similarity, and the command end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hdlrl.summarize.reference_scores import SentenceEmbedder, longest_common_subsequence, rouge_l

ROOT = Path(__file__).resolve().parent.parent


def test_rouge_l_is_the_f1_of_the_longest_common_subsequence():
    assert rouge_l("an up counter", "An `up` counter.") == 1.0
    assert rouge_l("a fifo", "the multiplier") == 0.0
    assert rouge_l("", "anything") == 0.0
    assert longest_common_subsequence("a b c d e".split(), "a x c y e z".split()) == 3
    # LCS 3 (a c e): P = 3/5, R = 3/6, F = 2 P R / (P + R) = 6/11
    assert rouge_l("a b c d e", "a x c y e z") == pytest.approx(6 / 11)


@pytest.fixture(scope="module")
def embedder() -> SentenceEmbedder:
    loaded = SentenceEmbedder()
    if loaded.model is None:
        pytest.skip(loaded.reason)
    return loaded


def test_a_paraphrase_is_closer_than_an_unrelated_sentence(embedder):
    near, far = embedder.cosines([
        ("A counter that counts up on every rising clock edge.", "An up counter clocked on the rising edge."),
        ("A counter that counts up on every rising clock edge.", "A FIFO buffer with read and write pointers.")])
    assert near > far + 0.2 and -1.0 <= far < near <= 1.0 + 1e-6


def _hdlrl(*arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hdlrl.cli", *arguments], capture_output=True, text=True,
                          check=check, cwd=ROOT)


def test_eval_scores_the_design_summaries_against_their_descriptions(embedder, tmp_path: Path):
    summaries, references = tmp_path / "summaries.jsonl", tmp_path / "references.jsonl"
    _hdlrl("summarize", "designs", "--out", str(summaries), "--json")
    _hdlrl("summarize-refs", "designs", "--out", str(references))
    described = [folder for folder in sorted((ROOT / "designs").iterdir()) if (folder / "design.yaml").is_file()]
    assert len(references.read_text().splitlines()) == len(described)
    scored = _hdlrl("summarize", "--eval", str(references), "--out", str(summaries), "--json")
    assert "loading the MiniLM" in scored.stderr and "MiniLM loaded in" in scored.stderr  # not a silent minute
    result = json.loads(scored.stdout)
    assert result["matched"] == len(described) and result["unmatched_references"] == 0
    assert 0 < result["rouge_l"] < 1 and result["embedding"] > 0.2
    assert {row["module"] for row in result["rows"]} == {json.loads(line)["module"]
                                                         for line in references.read_text().splitlines()}

    references.write_text(references.read_text() + '{"module": "alu8"\n')
    broken = _hdlrl("summarize", "--eval", str(references), "--out", str(summaries), check=False)
    assert broken.returncode != 0 and "Traceback" not in broken.stderr
    [line] = broken.stderr.strip().splitlines()
    assert f"{references}:{len(described) + 1}:" in line

    references.write_text('{"module": "alu8", "reference": "an ALU", "path": 5}\n')
    mistyped = _hdlrl("summarize", "--eval", str(references), "--out", str(summaries), check=False)
    assert mistyped.returncode != 0 and "Traceback" not in mistyped.stderr
    assert mistyped.stderr.strip() == f'hdlrl: error: {references}:1: "path" must be a string'
