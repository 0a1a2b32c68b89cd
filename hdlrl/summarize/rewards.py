"""The three rewards of a summary (ROSUM-MCTS) and their weighted total; flows/summarize.yaml sets the weights.

- Functional correctness (FC): the fraction of the summary's claims that the facts verify.
  A summary that claims nothing has FC 0, so silence is not a way to be correct.
- Local content adequacy (LCA): for each block, the fraction of its salient facts that the
  block's summary or the module summary states (and verifiably so); for the module's
  interface, the fraction the module summary states. LCA is the mean over those units.
- Fluency: a function of the document's text (`hdlrl.summarize.fluency`): by default 1 minus
  penalties for run-on sentences, repeated word trigrams and code left in the prose, or a
  language model's SLOR.

Every function here, and the default fluency, depends on identifiers only through equality,
never through their spelling or length: a summary of an alpha-renamed module scores the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hdlrl.config import Weight
from hdlrl.hdl.facts import BlockFacts, ModuleFacts
from hdlrl.summarize.behaviour import Behaviour, function_claim
from hdlrl.summarize.counting import claim_value
from hdlrl.summarize.claim import Claim, reset_claim
from hdlrl.summarize.claims import Scope, check, hallucination, sentence_claims, sentences
from hdlrl.summarize.netlist_claims import (LISTED_KINDS, data_path_claim, enable_claim, flag_claim, flip_flop_claim,
                                            listed_claims, register_mode_claim)
from hdlrl.summarize.document import Document
from hdlrl.summarize.fluency import embedded_fluency


@dataclass(frozen=True)
class Weights:
    fc: Weight = 0.4
    lca: Weight = 0.4
    fluency: Weight = 0.2


@dataclass
class Scores:
    fc: float
    lca: float
    fluency: float
    total: float
    claims: tuple[Claim, ...] = ()  # every claim, in document order
    verified: tuple[bool, ...] = ()
    hallucinated: tuple[str, ...] = field(default=())

    def as_row(self) -> dict[str, float]:
        return {"fc": round(self.fc, 4), "lca": round(self.lca, 4), "fluency": round(self.fluency, 4),
                "total": round(self.total, 4)}


def salient_block_facts(block: BlockFacts, behaviour: Behaviour | None = None) -> tuple[Claim, ...]:
    """What a summary of `block` should state, as the claims that would state it; a reset the
    netlist does not show (an enable read as one) is not asked for."""
    claims: list[Claim] = []
    if block.kind == "instance" and block.child:
        return (Claim("instance", block.child),)
    if block.kind == "generate":
        return tuple(claim for inner in block.inner for claim in salient_block_facts(inner, behaviour))
    if block.kind in ("combinational", "sequential", "fsm_next_state", "latch"):
        claims.append(Claim("block_kind", (), block.kind))
    if block.clock:
        claims.append(Claim("clock", (block.clock[0],), block.clock[1]))
    if block.reset and (behaviour is None or behaviour.confirms_reset(block.reset.signal)):
        claims.append(reset_claim(block.reset.signal, block.reset.active_low, block.reset.asynchronous))
    if block.state_machine:
        machine = block.state_machine
        claims.append(Claim("state_machine", (machine.register,), str(len(machine.states))))
    registered = block.kind in ("sequential", "fsm_next_state") and block.clock is not None
    claims += [Claim("register" if registered else "drives", (target,)) for target in block.targets]
    claims += [Claim("counter", (counter.signal,), counter.direction) for counter in block.counters]
    if block.kind in ("function", "task") and block.name:
        claims.append(Claim("identifier", (block.name,)))
    claims += [Claim("behaviour", (), kind) for kind in block.behaviours]
    return tuple(claims)


def salient_module_facts(facts: ModuleFacts) -> tuple[Claim, ...]:
    """What the module summary should state of its interface: ports (or that it has none: a
    testbench), parameters and memories."""
    claims: list[Claim] = [] if facts.ports else [Claim("testbench")]
    for port in facts.ports:
        claims.append(Claim("direction", (port.name,), port.direction))
        if port.width is not None:
            claims.append(Claim("width", (port.name,), str(port.width)))
    claims += [Claim("parameter", (name,), "" if value is None else str(value))
               for name, value in facts.parameters.items() if name not in facts.local_parameters]
    claims += [Claim("memory", (memory.name,), f"{memory.depth}x{memory.width or ''}") for memory in facts.memories]
    return tuple(claims)


def salient_behaviour_facts(facts: ModuleFacts, behaviour: Behaviour | None) -> tuple[Claim, ...]:
    """What the module summary should state of its behaviour, from the netlist: each output's standard
    function, what registers load, reset values, enables, counter ranges, status flags, latches,
    memory ports, the inputs state changes wait for, outputs of the state alone, or that nothing resets."""
    if behaviour is None or behaviour.netlist is None:
        return ()
    claims = [Claim("function", (output, *names), text) for output, function
              in behaviour.stated_functions.items() for text, names in [function_claim(function)]]
    claims += [data_path_claim(path) for path in behaviour.data_paths]
    claims += [register_mode_claim(modes) for modes in behaviour.register_modes]
    claims += [flip_flop_claim(flip_flop) for flip_flop in behaviour.flip_flops.values()]
    claims += [flag_claim(flag, facts) for flag in behaviour.flags.values()]
    claims += [Claim("reset_value", (value.signal, value.register), str(value.value))
               for value in behaviour.reset_values]
    claims += [enable_claim(enable) for enable in behaviour.enables]
    claims += [Claim("count_range", (name,), claim_value(found)) for name, found in behaviour.count_ranges.items()]
    claims += [Claim("latch", (latch.name,)) for latch in behaviour.netlist.latches]
    claims += [claim for kind in LISTED_KINDS for claim in listed_claims(kind, facts, behaviour)]
    return tuple(claim for claim in dict.fromkeys([*claims, Claim("no_reset")])
                 if check(claim, Scope(facts, behaviour=behaviour)))


def _checked(text: str, scope: Scope,
             independent: Callable[[Claim], bool | None] | None = None) -> list[tuple[Claim, bool]]:
    """Each claim with whether the facts verify it and, for the kinds `independent` judges (it
    answers None for the others), whether that independent evidence does too."""
    checked = []
    for claim in (claim for sentence in sentences(text) for claim in sentence_claims(sentence)):
        verified = check(claim, scope)
        if verified and independent is not None:
            verified = independent(claim) is not False
        checked.append((claim, verified))
    return checked


def functional_correctness(checked: list[tuple[Claim, bool]]) -> float:
    """FC = verified claims / claims; 0 for a summary that claims nothing."""
    return sum(verified for _, verified in checked) / len(checked) if checked else 0.0


def _covered(wanted: tuple[Claim, ...], stated: set[Claim]) -> float:
    return sum(claim in stated for claim in wanted) / len(wanted)


class DocumentScorer:
    """Scores the documents of one module: FC, LCA, fluency and total = (w_fc FC + w_lca LCA +
    w_fluency fluency) / (w_fc + w_lca + w_fluency).

    `independent` re-judges the claims it knows from another source than the facts (a reset, by
    simulation): a claim counts as verified only when both agree. `behaviour`, the netlist's facts,
    decides the claims written from it (a function, a reset value). What the module should state,
    and each text's checked claims, are worked out once for all the documents: a search scores
    thousands, which share most of their sentences."""

    def __init__(self, facts: ModuleFacts, weights: Weights, child_behaviours: frozenset[str] = frozenset(),
                 fluency: Callable[[str], float] = embedded_fluency,
                 independent: Callable[[Claim], bool | None] | None = None, behaviour: Behaviour | None = None):
        self.facts, self.weights, self.fluency, self.independent = facts, weights, fluency, independent
        self.module_scope = Scope(facts, None, child_behaviours, behaviour)
        self.block_scopes = [Scope(facts, block, behaviour=behaviour) for block in facts.blocks]
        self.module_wanted = [wanted for wanted in (salient_module_facts(facts),
                                                    salient_behaviour_facts(facts, behaviour)) if wanted]
        self.block_wanted = [salient_block_facts(block, behaviour) for block in facts.blocks]
        self._checked: dict[tuple[str, int], list[tuple[Claim, bool]]] = {}  # (text, block index; -1: the module's)

    def checked(self, text: str, position: int) -> list[tuple[Claim, bool]]:
        if (text, position) not in self._checked:
            scope = self.module_scope if position < 0 else self.block_scopes[position]
            self._checked[text, position] = _checked(text, scope, self.independent)
        return self._checked[text, position]

    def _document_checked(self, document: Document) -> tuple[list[tuple[Claim, bool]], list[list[tuple[Claim, bool]]]]:
        """The checked claims of the module summary, and those of each block summary."""
        return self.checked(document.summary, -1), [self.checked(text, position)
                                                    for position, text in enumerate(document.blocks)]

    def unverified(self, document: Document) -> tuple[Claim, ...]:
        """The document's claims the checker did not verify, each once, in the order `__call__`
        lists them: what the next edit should leave out, without the rest of the scoring."""
        module_checked, block_checked = self._document_checked(document)
        return tuple(dict.fromkeys(claim for pairs in (module_checked, *block_checked)
                                   for claim, verified in pairs if not verified))

    def local_content_adequacy(self, module_stated: set[Claim], block_stated: list[set[Claim]]) -> float:
        """LCA = mean, over the interface, the netlist's behaviour and each block with salient facts, of the
        fraction stated (verified); the interface and the behaviour by the module summary."""
        fractions = [_covered(wanted, module_stated) for wanted in self.module_wanted]
        fractions += [_covered(wanted, stated | module_stated)
                      for wanted, stated in zip(self.block_wanted, block_stated, strict=True) if wanted]
        return sum(fractions) / len(fractions) if fractions else 1.0

    def __call__(self, document: Document) -> Scores:
        module_checked, block_checked = self._document_checked(document)
        checked = module_checked + [pair for pairs in block_checked for pair in pairs]
        fc = functional_correctness(checked)
        lca = self.local_content_adequacy({claim for claim, verified in module_checked if verified},
                                          [{claim for claim, verified in pairs if verified} for pairs in block_checked])
        fluent = self.fluency(document.text)
        weights = self.weights
        total = (weights.fc * fc + weights.lca * lca + weights.fluency * fluent) / (
            weights.fc + weights.lca + weights.fluency)
        hallucinated = tuple(dict.fromkeys(line for claim, verified in checked
                                           if (line := hallucination(claim, verified)) is not None))
        return Scores(fc, lca, fluent, total, tuple(claim for claim, _ in checked),
                      tuple(verified for _, verified in checked), hallucinated)

