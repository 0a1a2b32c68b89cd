"""Search over hierarchical summary edits (after ROSUM-MCTS), one module at a time, as a job of the
test-time-training loop (`hdlrl.ttt.loop`).

A state is a partial document: the decisions taken so far. The decisions come in a fixed
order: refine each block's summary in source order (local), merge the block summaries into the
module summary, rewrite it in its hierarchy context (the children's summaries), and compress it
(global). Expanding a state asks the policy for candidates of its next decision; each candidate
is judged by a rollout that completes the document with uniformly random candidates, and the
completed document's total (`hdlrl.summarize.rewards`) is its reward, backed up as the
parent's best child (PUCT's Q). An expanded state is exhausted: its candidates are its children.
The best document any rollout reached is the result; the policy's single-shot documents are
scored first, so refinement begins from its best guess.

Randomness comes only from the flow's seed and candidates are visited in the policy's order,
so the search is reproducible and does not depend on identifier names. With `update`, a
trainable policy (hf) learns from every expansion's rewards, as in `hdlrl optimize`.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.config import Bounded, Count, Positive
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.prompt import SummaryState
from hdlrl.ttt.protocol import Policy
from hdlrl.summarize.prompt import parse_document
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check, text_claims
from hdlrl.summarize.document import Document
from hdlrl.summarize.rewards import DocumentScorer, Scores
from hdlrl.ttt.loop import Group, Judged, LoopSettings, SearchLoop
from hdlrl.ttt.pool import PoolState

ACTIONS = ("refine_block", "merge", "context", "compress")
MAX_CANDIDATE_CHARACTERS = 2000  # a language model's rambling is cut here


@dataclass(frozen=True)
class SearchSettings:
    iterations: Count(1 << 20) = 64  # rollouts: the loop's budget
    time_limit_s: Positive = 2.0
    exploration: Bounded(100.0) = 0.3  # c of PUCT
    candidates: Count(1000) = 6  # asked of the policy per decision: the group size
    seed: Count(1 << 62, minimum=0) = 0
    update: bool = False  # a trainable (hf) policy learns from the rollouts' rewards


@dataclass
class SearchResult:
    document: Document
    scores: Scores
    iterations: int
    documents_scored: int
    steps: list[dict] = field(default_factory=list)  # the loop's step rows: rewards, update and KL signals


def clean_candidate(text: str) -> str:
    """One paragraph of prose: fences and surrounding whitespace dropped, runs of whitespace collapsed."""
    text = text.replace("```", " ")
    return " ".join(text.split())[:MAX_CANDIDATE_CHARACTERS]


class SummarySearch:
    kind, unit = "summarize", "rollout"

    def __init__(self, policy: Policy, module: str, source: str, facts: ModuleFacts,
                 score: DocumentScorer, settings: SearchSettings,
                 children: dict[str, str] | None = None, child_behaviours: tuple[str, ...] = (),
                 behaviour: Behaviour | None = None):
        self.policy = policy
        self.module = module
        self.label = f"summarize {module}"
        self.source = source
        self.facts = facts
        self.settings = settings
        self.children = children or {}
        self.child_behaviours = child_behaviours
        self.behaviour = behaviour
        self.decisions: list[tuple[str, int | None]] = [("refine_block", index) for index in range(len(facts.blocks))]
        self.decisions += [("merge", None), ("context", None), ("compress", None)]
        self._score = score
        self._scores: dict[Document, Scores] = {}
        self._candidates: dict[tuple[int, Document | None], list[str]] = {}
        self._block_claims: dict[tuple[int, str], frozenset[Claim]] = {}
        self._starts: list[Document] = []
        self.best: Document | None = None
        self._deadline = 0.0
        self._rollouts = 0

    def state(self, action: str, document: Document, block: int | None = None) -> SummaryState:
        """What the policy sees, with the claims of the document so far that the checker did not verify
        (for the edits of the module summary: a block's candidates do not depend on the rest)."""
        unverified = self._score.unverified(document) if document.text and action != "refine_block" else ()
        stated = self._stated_in_blocks(document) if action == "compress" else frozenset()
        return SummaryState(self.module, self.source, self.facts, action, document, block, self.children,
                            self.child_behaviours, behaviour=self.behaviour, unverified=unverified,
                            stated_in_blocks=stated)

    def _stated_in_blocks(self, document: Document) -> frozenset[Claim]:
        """The claims of the block summaries that the facts verify, each block's text checked once per search."""
        stated: set[Claim] = set()
        for index, text in enumerate(document.blocks):
            if (index, text) not in self._block_claims:
                scope = Scope(self.facts, self.facts.blocks[index])
                self._block_claims[index, text] = frozenset(claim for claim in text_claims(text) if check(claim, scope))
            stated |= self._block_claims[index, text]
        return frozenset(stated)

    def score(self, document: Document) -> Scores:
        if document not in self._scores:
            self._scores[document] = self._score(document)
            if self.best is None or self._scores[document].total > self.score(self.best).total:
                self.best = document
        return self._scores[document]

    def candidates(self, depth: int, document: Document) -> list[str]:
        """The policy's candidates for decision `depth` in rollouts; a block's do not depend on the rest of the document."""
        action, block = self.decisions[depth]
        key = (depth, None if action == "refine_block" else document)
        if key not in self._candidates:
            samples = self.policy.sample(self.state(action, document, block), self.settings.candidates,
                                         self.settings.seed + depth)
            texts = list(dict.fromkeys(clean_candidate(sample.text) for sample in samples))
            self._candidates[key] = texts or [self._current(document, block)]
        return self._candidates[key]

    @staticmethod
    def _current(document: Document, block: int | None) -> str:
        return document.blocks[block] if block is not None else document.summary

    def apply(self, document: Document, depth: int, text: str) -> Document:
        _, block = self.decisions[depth]
        return document.with_block(block, text) if block is not None else document.with_summary(text)

    def _pool_state(self, document: Document, depth: int, reward: float, state_id: str = "",
                    initial: bool = False) -> PoolState:
        """A pool state for a partial document; its key is the document and its depth."""
        state = PoolState(state_id, {"summary": document.summary, **{f"block {index}": text for index, text
                                                                in enumerate(document.blocks)}}, reward,
                          exhausted=depth == len(self.decisions), initial=initial, metadata={"depth": depth})
        state.source_hash = hashlib.sha256(json.dumps([depth, document.summary, document.blocks]).encode()).hexdigest()
        return state

    # ------------------------------------------------------------------ the job

    def start(self) -> list[PoolState]:
        """The empty document, and the starting documents as finished states."""
        self._deadline = time.monotonic() + self.settings.time_limit_s
        root = self._pool_state(Document("", ("",) * len(self.facts.blocks)), 0, 0.0, "s00000", initial=True)
        states = [root]
        for number, document in enumerate(self._starts):
            state = self._pool_state(document, len(self.decisions), self.score(document).total, f"start{number}")
            states.append(state)
        return states

    def _document(self, state: PoolState) -> Document:
        return Document(state.sources["summary"], tuple(state.sources[f"block {index}"]
                                                        for index in range(len(self.facts.blocks))))

    def view(self, state: PoolState, drawn: list[Group]) -> SummaryState:
        document, depth = self._document(state), state.metadata["depth"]
        action, block = self.decisions[depth]
        return self.state(action, document, block)

    def judge(self, step: int, groups: list[Group]) -> list[list[Judged]]:
        """Each candidate applied and rolled out to a whole document; its total is the reward."""
        judged = []
        for number, group in enumerate(groups):
            group.parent.exhausted = True  # its candidates are its children
            document, depth = self._document(group.parent), group.parent.metadata["depth"]
            verdicts = []
            for index, sample in enumerate(group.samples):
                text = clean_candidate(sample.text) or self._current(document, self.decisions[depth][1])
                child = self.apply(document, depth, text)
                rng = random.Random(f"{self.settings.seed}/{step}/{number}/{index}")
                self._rollouts += 1
                finished = child
                for later in range(depth + 1, len(self.decisions)):  # rollout
                    options = self.candidates(later, finished)
                    finished = self.apply(finished, later, options[rng.randrange(len(options))])
                total = self.score(finished).total
                verdicts.append(Judged(total, {"kind": "edit", "action": self.decisions[depth][0], "reward": total},
                                       self._pool_state(child, depth + 1, total)))
            judged.append(verdicts)
        return judged

    def step_summary(self, rows: list[dict]) -> dict:
        return {"best": self.score(self.best).total if self.best else None}

    def postfix(self) -> dict[str, str]:
        return {}

    def finished(self) -> bool:
        """Past the time limit, once at least one expansion has been judged."""
        return self._rollouts > 0 and time.monotonic() >= self._deadline

    def resume_settings(self) -> dict:
        return {}

    def save(self, folder: Path) -> None:
        """Nothing: a module's search is never checkpointed (the batch checkpoints whole rows)."""

    def load(self, folder: Path) -> None:
        """Nothing: see `save`."""

    # ------------------------------------------------------------------ the search

    def run(self, starts: list[Document] = ()) -> SearchResult:
        """Search from the empty document; `starts` (the policy's single-shot documents) are scored first,
        as finished states, so that refinement begins from the policy's best guess."""
        self._starts = list(starts)
        settings = LoopSettings(self.settings.iterations, groups=1, group_size=self.settings.candidates,
                                exploration=self.settings.exploration, update=self.settings.update)
        loop = SearchLoop(self, self.policy, settings, self.settings.seed, progress=False)
        steps = [row for row in loop.run() if row["kind"] == "step"]
        assert self.best is not None
        return SearchResult(self.best, self.score(self.best), loop.state.spent, len(self._scores), steps)

    def single_shot_documents(self) -> list[Document]:
        """Whole documents the policy writes at once (the single-shot baseline's candidates), each read from
        its text by `parse_document` before cleaning: cleaning joins the lines its markers start."""
        empty = Document("", ("",) * len(self.facts.blocks))
        samples = self.policy.sample(self.state("single_shot", empty), self.settings.candidates, self.settings.seed)
        documents = []
        for sample in samples:
            summary, blocks = parse_document(sample.text, len(self.facts.blocks))
            documents.append(Document(clean_candidate(summary), tuple(clean_candidate(text) for text in blocks)))
        return documents or [empty]

    def single_shot(self) -> SearchResult:
        """The baseline: the best of the policy's whole documents, without search."""
        documents = self.single_shot_documents()
        best = max(documents, key=lambda document: self.score(document).total)
        return SearchResult(best, self.score(best), 1, len(documents))
