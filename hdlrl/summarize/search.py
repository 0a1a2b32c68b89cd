"""Monte Carlo tree search over hierarchical summary edits (ROSUM-MCTS), one module at a time.

A path from the root is a sequence of decisions, each choosing one of the policy's
candidates: refine each block's summary in source order (local), merge the block summaries
into the module summary, rewrite it in its hierarchy context (the children's summaries),
and compress it (global). A leaf is a whole document, scored by `hdlrl.summarize.rewards`.
Selection follows UCT; an unexpanded node gets its next untried candidate; the rollout
completes the document with uniformly random candidates; the leaf's total is backed up
along the path. The best document any rollout reached is the result.

Randomness comes only from the flow's seed and candidates are visited in the policy's
order, so the search is reproducible and does not depend on identifier names.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hdlrl.config import Bounded, Count, Positive
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.summarize.prompt import SummaryState
from hdlrl.ttt.protocol import Policy
from hdlrl.summarize.prompt import parse_document
from hdlrl.summarize.document import Document
from hdlrl.summarize.rewards import Scores

ACTIONS = ("refine_block", "merge", "context", "compress")
MAX_CANDIDATE_CHARACTERS = 2000  # a language model's rambling is cut here


@dataclass(frozen=True)
class SearchSettings:
    iterations: Count(1 << 20) = 64
    time_limit_s: Positive = 2.0
    exploration: Bounded(100.0) = 0.3  # c of UCT, for totals in [0, 1]
    candidates: Count(1000) = 6  # asked of the policy per decision
    seed: Count(1 << 62, minimum=0) = 0


def uct(mean_total: float, visits: int, parent_visits: int, exploration: float) -> float:
    """UCT (Kocsis and Szepesvari, 2006): Q(s, a) + c * sqrt(ln N(s) / N(s, a)); infinite when unvisited."""
    if visits == 0:
        return math.inf
    return mean_total + exploration * math.sqrt(math.log(parent_visits) / visits)


@dataclass
class _Node:
    document: Document
    depth: int  # decisions taken so far
    children: list["_Node | None"] = field(default_factory=list)
    visits: int = 0
    total: float = 0.0


@dataclass
class SearchResult:
    document: Document
    scores: Scores
    iterations: int
    documents_scored: int


def clean_candidate(text: str) -> str:
    """One paragraph of prose: fences and surrounding whitespace dropped, runs of whitespace collapsed."""
    text = text.replace("```", " ")
    return " ".join(text.split())[:MAX_CANDIDATE_CHARACTERS]


class SummarySearch:
    def __init__(self, policy: Policy, module: str, source: str, facts: ModuleFacts,
                 score: Callable[[Document], Scores], settings: SearchSettings,
                 children: dict[str, str] | None = None, child_behaviours: tuple[str, ...] = ()):
        self.policy = policy
        self.module = module
        self.source = source
        self.facts = facts
        self.settings = settings
        self.children = children or {}
        self.child_behaviours = child_behaviours
        self.decisions: list[tuple[str, int | None]] = [("refine_block", index) for index in range(len(facts.blocks))]
        self.decisions += [("merge", None), ("context", None), ("compress", None)]
        self._score = score
        self._scores: dict[Document, Scores] = {}
        self._candidates: dict[tuple[int, Document | None], list[str]] = {}

    def state(self, action: str, document: Document, block: int | None = None) -> SummaryState:
        return SummaryState(self.module, self.source, self.facts, action, document, block, self.children,
                            self.child_behaviours)

    def score(self, document: Document) -> Scores:
        if document not in self._scores:
            self._scores[document] = self._score(document)
        return self._scores[document]

    def candidates(self, depth: int, document: Document) -> list[str]:
        """The policy's candidates for decision `depth`; a block's do not depend on the rest of the document."""
        action, block = self.decisions[depth]
        key = (depth, None if action == "refine_block" else document)
        if key not in self._candidates:
            samples = self.policy.sample(self.state(action, document, block), self.settings.candidates,
                                         self.settings.seed + depth)
            texts = list(dict.fromkeys(clean_candidate(sample.text) for sample in samples))
            self._candidates[key] = texts or [document.blocks[block] if block is not None else document.summary]
        return self._candidates[key]

    def apply(self, document: Document, depth: int, text: str) -> Document:
        _, block = self.decisions[depth]
        return document.with_block(block, text) if block is not None else document.with_summary(text)

    def run(self, starts: list[Document] = ()) -> SearchResult:
        """Search from the empty document; `starts` (the policy's single-shot documents) are scored first,
        as the search's first rollouts, so that refinement begins from the policy's best guess."""
        rng = random.Random(self.settings.seed)
        root = _Node(Document("", ("",) * len(self.facts.blocks)), 0)
        best: Document | None = max(starts, key=lambda document: self.score(document).total, default=None)
        deadline = time.monotonic() + self.settings.time_limit_s
        iterations = 0
        while iterations < self.settings.iterations and (iterations == 0 or time.monotonic() < deadline):
            iterations += 1
            path = [root]
            node = root
            while node.depth < len(self.decisions):  # selection, then expansion of one untried candidate
                options = self.candidates(node.depth, node.document)
                if not node.children:
                    node.children = [None] * len(options)
                untried = next((index for index, child in enumerate(node.children) if child is None), None)
                if untried is not None:
                    child = _Node(self.apply(node.document, node.depth, options[untried]), node.depth + 1)
                    node.children[untried] = child
                    path.append(child)
                    break
                node = max(node.children, key=lambda child: uct(child.total / child.visits if child.visits else 0.0,
                                                                child.visits, node.visits, self.settings.exploration))
                path.append(node)
            document = path[-1].document
            for depth in range(path[-1].depth, len(self.decisions)):  # rollout
                options = self.candidates(depth, document)
                document = self.apply(document, depth, options[rng.randrange(len(options))])
            total = self.score(document).total
            if best is None or total > self.score(best).total:
                best = document
            for visited in path:  # backup
                visited.visits += 1
                visited.total += total
        assert best is not None
        return SearchResult(best, self.score(best), iterations, len(self._scores))

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
