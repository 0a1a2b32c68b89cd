"""The embedded summary policy: candidate summaries composed from the facts, needing no weights.

For each block it writes candidates at three abstraction levels (what the block is and
drives; with its reset, counters and behaviours; with what it reads and its state
transitions), each in two phrasings (one sentence, or several short ones). For the module it
composes from the facts and the block summaries chosen so far (merge), adds what the
children's summaries establish (context), and drops sentences the block summaries already
say (compress). Every sentence is phrased so that `hdlrl.summarize.claims` reads back exactly
the facts it came from, and identifiers appear only in backticks, in source order: the same
module with its identifiers renamed gets the same candidates, renamed.
"""

from __future__ import annotations

from pathlib import Path

from hdlrl.hdl.facts import BlockFacts, ModuleFacts
from hdlrl.summarize.prompt import SummaryState
from hdlrl.ttt.protocol import Sample, State, UpdateStats
from hdlrl.summarize.prompt import format_document
from hdlrl.summarize.claim import Claim, reset_claim
from hdlrl.summarize.claims import sentence_claims, sentences
from hdlrl.summarize.document import Document
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.spec_sentences import MAX_LISTED, names, spec_opening, what_it_is

LEVELS = ("brief", "standard", "detailed")
PHRASINGS = ("joined", "split")
BEHAVIOUR_PHRASES = {
    "addition": "addition", "subtraction": "subtraction", "multiplication": "multiplication",
    "division": "division", "shift": "shifts", "comparison": "comparison", "bitwise logic": "bitwise logic",
    "reduction": "reduction", "boolean logic": "logical operators", "selection": "selection",
    "concatenation": "concatenation",
}
_KIND_NAMES = {"assign": "Continuous assignment", "combinational": "Combinational block",
               "sequential": "Sequential block", "fsm_next_state": "State-machine next-state block",
               "latch": "Latch block", "initial": "Initial block"}


def _phrases(behaviours: tuple[str, ...]) -> str:
    words = [BEHAVIOUR_PHRASES[behaviour] for behaviour in behaviours]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _reset_phrase(block: BlockFacts) -> str:
    reset = block.reset
    assert reset is not None
    return f"an {reset_claim(reset.signal, reset.active_low, reset.asynchronous).value} reset `{reset.signal}`"


def block_sentences(block: BlockFacts, level: str, behaviour: Behaviour | None = None) -> list[str]:
    """The block described at `level`, one clause per sentence (the phrasing joins them or not); a
    reset the netlist does not show (an enable the text reads as one) is left out."""
    if block.kind == "instance" and block.child:
        return [f"Instantiates `{block.child[0]}` as `{block.child[1]}`."]
    if block.kind == "generate":
        inner = [sentence for facts in block.inner for sentence in block_sentences(facts, level, behaviour)]
        return ["Generate block" + (f" `{block.name}`" if block.name else "") + "."] + inner
    if block.kind in ("function", "task"):
        clauses = [f"{block.kind.capitalize()} `{block.name}`" + (f" computes {names(block.targets)}" if block.targets else "") + "."]
    else:
        kind = _KIND_NAMES.get(block.kind, block.kind.capitalize())
        registered = block.clock is not None and block.kind in ("sequential", "fsm_next_state")
        if registered and block.targets:
            clause = f"{kind}: registers {names(block.targets)} on the {'rising' if block.clock[1] == 'posedge' else 'falling'} edge of `{block.clock[0]}`"
        elif block.targets:
            clause = f"{kind}: drives {names(block.targets)}"
        else:
            clause = kind
        clauses = [clause + "."]
    if block.state_machine:
        machine = block.state_machine
        clauses.append(f"It implements the state machine with {len(machine.states)} states in `{machine.register}`.")
    if level == "brief":
        return clauses
    if block.reset and (behaviour is None or behaviour.confirms_reset(block.reset.signal)):
        clauses.append(f"It has {_reset_phrase(block)}.")
    clauses += [f"`{counter.signal}` counts {counter.direction}." for counter in block.counters]
    if block.behaviours:
        clauses.append(f"It uses {_phrases(block.behaviours)}.")
    if level == "standard":
        return clauses
    reads = [name for name in block.reads if name not in block.targets]
    if reads:
        clauses.append(f"It reads from {names(reads)}.")
    if block.state_machine:
        machine = block.state_machine
        named = [state for state in machine.states if not state.isdigit()]
        if named:
            clauses.append(f"States: {names(named)}.")
        transitions = [f"`{source}` -> `{target}`" for source, target in machine.transitions
                       if not source.isdigit() and not target.isdigit()]
        if transitions:
            clauses.append("Transitions: " + ", ".join(transitions[:MAX_LISTED]) + ".")
    return clauses


def join(clauses: list[str], phrasing: str) -> str:
    """`split`: one sentence per clause; `joined`: the clauses after the first run on with semicolons."""
    if phrasing == "split" or len(clauses) == 1:
        return " ".join(clauses)
    tail = [clause[0].lower() + clause[1:] if not clause.startswith("`") else clause for clause in clauses[1:]]
    return clauses[0].rstrip(".") + "; " + "; ".join(part.rstrip(".") for part in tail) + "."


def block_candidates(block: BlockFacts, behaviour: Behaviour | None = None) -> list[str]:
    return list(dict.fromkeys(join(block_sentences(block, level, behaviour), phrasing)
                              for level in LEVELS for phrasing in PHRASINGS))


def _interface(facts: ModuleFacts, style: str) -> list[str]:
    """The ports (with widths, one bit left unsaid as a spec leaves it) and the parameters with their defaults."""
    def listed(direction: str) -> str:
        ports = [port for port in facts.ports if port.direction == direction]
        return ", ".join(f"`{port.name}`" + (f" ({port.width} bits)" if port.width and port.width != 1 else "")
                         for port in ports)

    groups = [(direction, listed(direction)) for direction in ("input", "output", "inout")]
    groups = [(direction, text) for direction, text in groups if text]
    parameters = [name for name in facts.parameters if name not in facts.local_parameters]
    sentences_out = []
    if style == "list":
        sentences_out += [f"{direction.capitalize()}s: {text}." for direction, text in groups]
    elif groups:
        sentences_out.append("It has " + "; ".join(f"{direction}s {text}" for direction, text in groups) + ".")
    if parameters:
        sentences_out.append("Parameters: " + ", ".join(
            f"`{name}`" + (f" (default {facts.parameters[name]})" if facts.parameters[name] is not None else "")
            for name in parameters) + ".")
    return sentences_out


def _structure(facts: ModuleFacts, opening: str) -> list[str]:
    """The memories, state machines and instances, less those the opening already names."""
    out = [f"It holds a memory `{memory.name}` of {memory.depth} words" + (f" of {memory.width} bits" if memory.width else "") + "."
           for memory in facts.memories if memory.depth and f"memory `{memory.name}`" not in opening]
    out += [f"It contains a state machine with {len(machine.states)} states in `{machine.register}`."
            for machine in facts.state_machines if f"states in `{machine.register}`" not in opening]
    out += [f"It instantiates `{module}` as `{instance}`." for module, instance in facts.children]
    return out


def module_candidates(facts: ModuleFacts, document: Document, behaviour: Behaviour | None = None) -> list[str]:
    """Module summaries: overview and interface, with or without structure, behaviours and the blocks' gist;
    and the same opened as a spec opens, with what the module is and its resets (`spec_sentences`)."""
    overview = what_it_is(facts, behaviour)
    behaviours = [f"It uses {_phrases(facts.behaviours)}."] if facts.behaviours else []
    gist = [sentences(text)[0] for text in document.blocks if text]
    spec = spec_opening(facts, behaviour)
    candidates = []
    for style in ("list", "sentence"):
        interface = _interface(facts, style)
        for opening in (spec, [overview]):
            structure = _structure(facts, " ".join(opening))
            candidates.append(" ".join([*opening, *interface]))
            candidates.append(" ".join([*opening, *interface, *structure, *behaviours]))
            candidates.append(" ".join([*opening, *interface, *structure, *gist]))
    return list(dict.fromkeys(candidates))


def context_candidates(facts: ModuleFacts, document: Document, children: dict[str, str],
                       child_behaviours: tuple[str, ...]) -> list[str]:
    """The module summary as it is, and with what its children do, from their summaries."""
    candidates = [document.summary]
    if children and child_behaviours:
        extra = f"Its submodules ({names(list(children))}) use {_phrases(child_behaviours)}."
        candidates.append(f"{document.summary} {extra}".strip())
    return candidates


def compress_candidates(facts: ModuleFacts, document: Document, unverified: tuple[Claim, ...] = (),
                        stated_in_blocks: frozenset[Claim] = frozenset()) -> list[str]:
    """The module summary as it is, without the sentences whose every claim a block summary states,
    and without those making a claim the checker did not verify."""
    kept = [sentence for sentence in sentences(document.summary)
            if not set(sentence_claims(sentence)) <= stated_in_blocks or sentence.startswith(f"`{facts.name}`")]
    verified = [sentence for sentence in sentences(document.summary)
                if not set(sentence_claims(sentence)) & set(unverified)]
    return list(dict.fromkeys([document.summary, " ".join(kept), " ".join(verified)]))


class ComposePolicy:
    """The embedded default of `hdlrl summarize`: frozen, deterministic, no weights."""

    name = "compose"
    trainable = False

    def candidates(self, state: SummaryState) -> list[str]:
        facts: ModuleFacts = state.facts
        if state.action == "refine_block":
            assert state.block is not None
            return block_candidates(facts.blocks[state.block], state.behaviour)
        if state.action == "merge":
            return module_candidates(facts, state.document, state.behaviour)
        if state.action == "context":
            return context_candidates(facts, state.document, state.children, state.child_behaviours)
        if state.action == "compress":
            return compress_candidates(facts, state.document, state.unverified, state.stated_in_blocks)
        raise ValueError(f"unknown summary action {state.action!r}")

    def sample(self, state: State, k: int, rng_seed: int) -> list[Sample]:
        """Up to `k` candidates; a single shot is a whole document, every block at one level and phrasing,
        written in the answer format a language model is asked for (`format_document`)."""
        assert isinstance(state, SummaryState)
        if state.action != "single_shot":
            return [Sample({}, text, action=state.action) for text in self.candidates(state)[:k]]
        facts: ModuleFacts = state.facts
        samples = []
        for level in LEVELS:
            for phrasing in PHRASINGS:
                blocks = tuple(join(block_sentences(block, level, state.behaviour), phrasing) for block in facts.blocks)
                document = Document(module_candidates(facts, Document("", blocks), state.behaviour)[1], blocks)
                samples.append(Sample({}, format_document(document), action="single_shot"))
        return samples[:k]

    def update(self, state_samples, advantages, kl_coef: float) -> UpdateStats:
        return UpdateStats()

    def save(self, folder: Path) -> None:
        """Nothing to save: the policy has no parameters."""

    def load(self, folder: Path) -> None:
        """Nothing to restore."""


EMBEDDED_POLICIES = {"compose": ComposePolicy}  # what `hdlrl summarize --policy` offers besides language models
