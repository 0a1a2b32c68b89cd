"""What a summary claims, read from its text, and whether each claim holds for the module.

A claim is one checkable statement: an identifier exists, a port is an input, a signal is 8
bits wide, a register is clocked on the rising edge of `clk`, a reset is active-low and
asynchronous, a block performs addition, a state machine has five states. Summaries name
identifiers in backticks (the prompt asks language models to, and the embedded policy
does); a bare snake_case word is also read as an identifier, so that a model cannot
hallucinate a signal by leaving the backticks off.

`check` decides each claim against the facts (`hdlrl.hdl.facts`): a claim that is false, or
that the facts cannot confirm, is not verified and costs functional correctness; an unknown
identifier, or a wrong width, is listed as a hallucination. Claims name identifiers in
`names` and keep everything else in `value`, so that renaming a module's identifiers maps
its claims one to one (`Claim.renamed`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from hdlrl.hdl.facts import BEHAVIOURS, BlockFacts, ModuleFacts
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.netlist_claims import NETLIST_KINDS, check_netlist_claim

_ID = r"`(?P<{0}>[A-Za-z_][A-Za-z0-9_$]*)(?:\[(?P<{0}_msb>\d+):(?P<{0}_lsb>\d+)\])?`"
_ANY_ID = re.compile(_ID.format("name"))
_ANY_ID_NAME = re.compile(r"`([^`]+)`")
_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_LIST_ITEM = rf"{_ID.format('item')}(?:\s*\((?P<note>[^)]*)\))?"
_BITS_NOTE = re.compile(r"^(\d+)[- ]bits?\b")
_DEFAULT_NOTE = re.compile(r"^(?:default\s+)?(\d+)$")
_LIST = r"(?:`[^`]+`(?:\s*\([^)]*\))?(?:\s*,\s*(?:and\s+)?|\s+and\s+)?)+"
_SNAKE_CASE = re.compile(r"(?<![`\w])([a-z][a-z0-9]*_[a-z0-9_]+)(?![`\w])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`])")

_DIRECTION_LIST = re.compile(rf"\b(?P<direction>input|output|inout)s?\b\s*:?\s*(?P<list>{_LIST})", re.IGNORECASE)
_WIDTH_AFTER = re.compile(rf"{_ID.format('name')}\s*\((?P<bits>\d+)[- ]bits?\b")
_WIDTH_BEFORE = re.compile(rf"\b(?P<bits>\d+)-bit\s+(?:(?:signed|unsigned|input|output|inout|register|signal|bus|"
                           rf"wire|value|counter|state)\s+)*{_ID.format('name')}", re.IGNORECASE)
_CLOCK = re.compile(rf"\b(?:(?P<word>rising|falling|positive|negative)\s+edges?\s+of|(?P<keyword>posedge|negedge))"
                    rf"\s+(?:the\s+clock\s+)?{_ID.format('name')}", re.IGNORECASE)
_RESET = re.compile(rf"\b(?P<polarity>active[- ](?:low|high))(?:,?\s+(?P<timing>synchronous|asynchronous))?\s+reset"
                    rf"\s+(?:input\s+|signal\s+)?{_ID.format('name')}", re.IGNORECASE)
_REGISTERS = re.compile(rf"\bregisters?\b\s*(?P<list>{_LIST})", re.IGNORECASE)
_COUNTER = re.compile(rf"{_ID.format('name')}\s+counts\s+(?P<direction>up|down)\b|"
                      rf"\b(?P<direction2>up/down|up|down)[- ]counter\s+{_ID.format('name2')}", re.IGNORECASE)
_STATE_MACHINE = re.compile(rf"\bstate machine\b(?:\s+with\s+(?P<count>\d+)\s+states)?[^.`]*?"
                            rf"(?:\bin|\bon|\bregister)\s+{_ID.format('name')}", re.IGNORECASE)
_STATES = re.compile(rf"\bstates\b\s*:?\s*(?P<list>{_LIST})", re.IGNORECASE)
_TRANSITION = re.compile(rf"{_ID.format('source')}\s*(?:->|→)\s*{_ID.format('target')}|\bfrom\s+{_ID.format('source2')}"
                         rf"\s+to\s+{_ID.format('target2')}")
_TRANSITION_WHEN = re.compile(rf"\bfrom {_ID.format('source')} to {_ID.format('target')} when "
                              rf"{_ID.format('first')} is (?P<first_level>high|low)"
                              rf"(?: and {_ID.format('second')} is (?P<second_level>high|low))?"
                              rf"(?: and {_ID.format('third')} is (?P<third_level>high|low))?")
_STATE_OUTPUT = re.compile(rf"{_ID.format('output')} is (?P<level>high|low) in (?P<list>{_LIST}) and "
                           rf"(?:high|low) in every other state")
_MEMORY = re.compile(rf"\bmemory\s+{_ID.format('name')}\s+of\s+(?P<depth>\d+)\s+words?(?:\s+of\s+(?P<width>\d+)\s+bits?)?",
                     re.IGNORECASE)
_INSTANCE = re.compile(rf"\binstantiates\s+{_ID.format('module')}\s+as\s+{_ID.format('instance')}|\binstance\s+"
                       rf"{_ID.format('instance2')}\s+of\s+(?:module\s+)?{_ID.format('module2')}", re.IGNORECASE)
_PARAMETERS = re.compile(rf"\bparameters?\b\s*:?\s*(?P<list>{_LIST})", re.IGNORECASE)
_DRIVES = re.compile(rf"\b(?:drives|computes|assigns|updates|loads|sets)\s+(?:outputs?\s+|the\s+)?(?P<list>{_LIST})",
                     re.IGNORECASE)
_READS = re.compile(rf"\bfrom\s+(?:inputs?\s+)?(?P<list>{_LIST})", re.IGNORECASE)
_COMBINATIONAL = re.compile(r"\bpurely combinational\b|\bhas no clock\b", re.IGNORECASE)
_TESTBENCH = re.compile(r"\bis a testbench\b", re.IGNORECASE)
_LATCH = re.compile(rf"\bholds\s+(?P<list>{_LIST})\s+in\s+(?:a\s+)?latch(?:es)?\b", re.IGNORECASE)
_ENABLE = re.compile(rf"(?P<list>{_LIST})\s+changes?\s+only\s+while\s+{_ID.format('name')}\s+is\s+(?P<level>high|low)\b",
                     re.IGNORECASE)
_COUNT_RANGE = re.compile(rf"{_ID.format('name')}\s+counts\s+(?P<direction>up|down)\s+from\s+(?P<start>\d+)\s+to\s+"
                          rf"(?P<end>\d+),?\s+then\s+(?:wraps\s+to\s+(?P<after>\d+)|stays\s+at\s+\d+)", re.IGNORECASE)
_COUNT_CYCLE = re.compile(rf"{_ID.format('name')}\s+cycles\s+through\s+(?P<length>\d+)\s+distinct\s+states\b")
_LOAD = re.compile(rf"{_ID.format('name')}\s+takes\s+the\s+value\s+of\s+{_ID.format('source')}", re.IGNORECASE)
_SHIFT = re.compile(rf"{_ID.format('name')}\s+shifts\s+(?P<direction>left|right)\s+by\s+one\s+bit\b[^.;]*?\btaking\s+"
                    rf"{_ID.format('source')}", re.IGNORECASE)
_FLIP_FLOP = re.compile(rf"{_ID.format('name')}\s+is\s+an?\s+(?P<kind>T|JK|SR)\s+flip-flop\s+on\s+{_ID.format('first')}"
                        rf"(?:\s+and\s+{_ID.format('second')})?(?:[^.;]*?{_ID.format('winner')}\s+wins\b)?")
_FLAG = re.compile(rf"{_ID.format('output')}\s+is\s+high\s+(?P<when>when|unless)\s+{_ID.format('register')}\s+is\s+"
                   rf"(?:(?P<number>\d+)|{_ID.format('state')})(?:\s+and\s+{_ID.format('input')}\s+is\s+"
                   rf"(?P<level>high|low))?")
_MEMORY_WRITE = re.compile(rf"\bwrite stores {_ID.format('data')} in {_ID.format('memory')} at address "
                           rf"{_ID.format('address')} on (?:the|each|every) (?P<edge>rising|falling) edge of "
                           rf"{_ID.format('clock')}(?: while {_ID.format('enable')} is (?P<level>high|low))?", re.IGNORECASE)
_MEMORY_READ = re.compile(rf"\breads are (?P<timing>synchronous|asynchronous): {_ID.format('output')} shows the word at "
                          rf"address {_ID.format('address')}(?: [^,.]*?, the (?P<collision>old|new) word during a write)?",
                          re.IGNORECASE)
_NO_RESET = re.compile(r"\b(?:there is|it has|has|with) no reset\b", re.IGNORECASE)
_FUNCTION_WORDS = r"multiplexer|decoder|encoder|adder|subtractor|comparator|parity|majority|population count|Gray|" \
                  r"lookup table|" \
                  r"(?:AND|OR|NAND|NOR) of all"
_REGISTER_MODE = re.compile(rf"{_ID.format('name')}\s+(?P<text>(?:holds|takes|rotates|shifts|becomes)\b[^;]*?"
                            rf",\s+else\s+[^;]*?)\.?$")
_FUNCTION = re.compile(rf"{_ID.format('name')}\s+is\s+(?:a|an|the)\s+(?P<text>[^;]*?(?:{_FUNCTION_WORDS})[^;]*?)\.?$")
_RESET_VALUE = re.compile(rf"\breset\s+{_ID.format('name')},?\s+(?:which\s+)?(?:clears|sets|loads)\s+(?P<list>{_LIST})"
                          rf"\s*(?:to|with)\s+(?P<value>\d+)\b", re.IGNORECASE)
_BLOCK_KIND = re.compile(r"^(?:(?:this|a|the)\s+)?(?P<kind>combinational|sequential|state[- ]machine next[- ]state|"
                         r"latch|continuous assignment|instance|generate|function|task|initial)"
                         r"(?:\s+(?:block|process|logic)\b|\s*:)", re.IGNORECASE)
_BEHAVIOUR_WORDS = {
    "addition": r"\b(?:adds|adding|addition|sum|sums|adder|increments?|incrementing)\b",
    "subtraction": r"\b(?:subtracts?|subtracting|subtraction|difference|decrements?|decrementing|negates?|negation)\b",
    "multiplication": r"\b(?:multiplies|multiplying|multiplication|multiplier|product)\b",
    "division": r"\b(?:divides|dividing|division|divider|quotient|remainder|modulo)\b",
    "shift": r"\b(?:shifts?|shifting|shifter)\b",
    "comparison": r"\b(?:compares?|comparing|comparison|comparator|equality)\b",
    "bitwise logic": r"\bbitwise\b|\b(?:inverts?|inverting|complements?)\b|(?-i:\b(?:AND|OR|XOR|XNOR|NAND|NOR)\b)",
    "reduction": r"\b(?:reduction|reduces)\b",
    "boolean logic": r"\blogical(?:ly)?\b",
    "selection": r"\b(?:selects?|selecting|selection|multiplex\w*|mux(?:es)?)\b",
    "concatenation": r"\b(?:concatenates?|concatenating|concatenation)\b",
}
_BEHAVIOUR_PATTERNS = {behaviour: re.compile(pattern, re.IGNORECASE) for behaviour, pattern in _BEHAVIOUR_WORDS.items()}
_BLOCK_KIND_NAMES = {"continuous assignment": "assign", "state machine next state": "fsm_next_state"}
assert set(_BEHAVIOUR_WORDS) == set(BEHAVIOURS)


@lru_cache(maxsize=65536)
def sentences(text: str) -> tuple[str, ...]:
    """The text's sentences, stripped; cached, as a search splits the same texts thousands of times."""
    return tuple(sentence.strip() for sentence in _SENTENCE_END.split(text.strip()) if sentence.strip())


def _list_names(text: str, note: re.Pattern = _BITS_NOTE) -> list[tuple[str, str | None]]:
    """(identifier, its note or None) for each item of a backticked list like "`a` (8 bits), `b` and `c`".

    `note` reads the parenthesis after an item: bits for ports, a default for parameters.
    """
    items = []
    for match in re.finditer(_LIST_ITEM, text):
        found = note.match(match.group("note").strip()) if match.group("note") else None
        items.append((match.group("item"), found.group(1) if found else None))
    return items


def _range_bits(match: re.Match, group: str) -> int | None:
    msb, lsb = match.group(f"{group}_msb"), match.group(f"{group}_lsb")
    return abs(int(msb) - int(lsb)) + 1 if msb is not None and lsb is not None else None


@lru_cache(maxsize=65536)
def sentence_claims(sentence: str) -> tuple[Claim, ...]:
    """Every claim one sentence makes, in a fixed order (cached: candidates repeat sentences)."""
    claims: list[Claim] = []
    for match in _ANY_ID.finditer(sentence):
        claims.append(Claim("identifier", (match.group("name"),)))
        if (bits := _range_bits(match, "name")) is not None:
            claims.append(Claim("width", (match.group("name"),), str(bits)))
    outside_backticks = re.sub(r"`[^`]*`", " ", sentence)
    claims += [Claim("identifier", (word,)) for word in _SNAKE_CASE.findall(outside_backticks)]
    for match in _DIRECTION_LIST.finditer(sentence):
        claims += [Claim("direction", (name,), match.group("direction").lower())
                   for name, _ in _list_names(match.group("list"))]
    for pattern in (_WIDTH_AFTER, _WIDTH_BEFORE):
        claims += [Claim("width", (match.group("name"),), match.group("bits")) for match in pattern.finditer(sentence)]
    for match in _CLOCK.finditer(sentence):
        word = (match.group("word") or match.group("keyword")).lower()
        claims.append(Claim("clock", (match.group("name"),),
                            "posedge" if word in ("rising", "positive", "posedge") else "negedge"))
    for match in _RESET.finditer(sentence):
        value = match.group("polarity").lower().replace(" ", "-")
        if match.group("timing"):
            value += " " + match.group("timing").lower()
        claims.append(Claim("reset", (match.group("name"),), value))
    for match in _REGISTERS.finditer(sentence):
        claims += [Claim("register", (name,)) for name, _ in _list_names(match.group("list"))]
    ranges = [Claim("count_range", (match.group("name"),), " ".join([
        match.group("direction").lower(), match.group("start"), match.group("end"), match.group("after") or "stays"]))
        for match in _COUNT_RANGE.finditer(sentence)]
    ranges += [Claim("count_range", (match.group("name"),), f"cycle {match.group('length')}")
               for match in _COUNT_CYCLE.finditer(sentence)]
    for match in _COUNTER.finditer(sentence):
        name = match.group("name") or match.group("name2")
        if not any(claim.names[0] == name for claim in ranges):  # a range says more, and is checked apart
            directions = (match.group("direction") or match.group("direction2")).lower().split("/")
            claims += [Claim("counter", (name,), direction) for direction in directions]
    claims += ranges
    for match in _STATE_MACHINE.finditer(sentence):
        claims.append(Claim("state_machine", (match.group("name"),), match.group("count") or ""))
    for match in _STATES.finditer(sentence):
        claims += [Claim("state", (name,)) for name, _ in _list_names(match.group("list"))]
    for match in _TRANSITION.finditer(sentence):
        claims.append(Claim("transition", (match.group("source") or match.group("source2"),
                                           match.group("target") or match.group("target2"))))
    for match in _TRANSITION_WHEN.finditer(sentence):
        literals = [(match.group(key), match.group(f"{key}_level")) for key in ("first", "second", "third")
                    if match.group(key)]
        claims.append(Claim("transition_when", (match.group("source"), match.group("target"),
                                                *(name for name, _ in literals)), " ".join(level for _, level in literals)))
    for match in _STATE_OUTPUT.finditer(sentence):
        claims.append(Claim("state_output", (match.group("output"), *(name for name, _ in _list_names(
            match.group("list")))), match.group("level")))
    for match in _MEMORY.finditer(sentence):
        claims.append(Claim("memory", (match.group("name"),), f"{match.group('depth')}x{match.group('width') or ''}"))
    for match in _INSTANCE.finditer(sentence):
        claims.append(Claim("instance", (match.group("module") or match.group("module2"),
                                         match.group("instance") or match.group("instance2"))))
    for match in _PARAMETERS.finditer(sentence):
        claims += [Claim("parameter", (name,), value or "") for name, value in _list_names(match.group("list"), _DEFAULT_NOTE)]
    for match in _DRIVES.finditer(sentence):
        claims += [Claim("drives", (name,)) for name, _ in _list_names(match.group("list"))]
    for match in _READS.finditer(sentence):
        claims += [Claim("reads", (name,)) for name, _ in _list_names(match.group("list"))]
    if _COMBINATIONAL.search(sentence):
        claims.append(Claim("combinational"))
    if _TESTBENCH.search(sentence):
        claims.append(Claim("testbench"))
    for match in _LATCH.finditer(sentence):
        claims += [Claim("latch", (name,)) for name, _ in _list_names(match.group("list"))]
    for match in _ENABLE.finditer(sentence):
        claims += [Claim("enable", (name, match.group("name")), match.group("level").lower())
                   for name, _ in _list_names(match.group("list"))]
    if _NO_RESET.search(sentence):
        claims.append(Claim("no_reset"))
    for match in _MEMORY_WRITE.finditer(sentence):
        enable = (match.group("enable"),) if match.group("enable") else ()
        edge = "posedge" if match.group("edge").lower() == "rising" else "negedge"
        claims.append(Claim("memory_write", (*(match.group(key) for key in ("memory", "address", "data", "clock")),
                                             *enable), f"{edge} {(match.group('level') or 'always').lower()}"))
    for match in _MEMORY_READ.finditer(sentence):
        collision = f" {match.group('collision').lower()}" if match.group("collision") else ""
        claims.append(Claim("memory_read", (match.group("output"), match.group("address")),
                            match.group("timing").lower() + collision))
    if match := _FUNCTION.search(sentence):
        text = match.group("text")
        names = (match.group("name"), *_ANY_ID_NAME.findall(text))
        claims.append(Claim("function", names, _ANY_ID_NAME.sub("`{}`", text)))
    for match in _RESET_VALUE.finditer(sentence):
        claims += [Claim("reset_value", (match.group("name"), name), match.group("value"))
                   for name, _ in _list_names(match.group("list"))]
    if match := _BLOCK_KIND.match(sentence):
        kind = match.group("kind").lower().replace("-", " ")
        claims.append(Claim("block_kind", (), _BLOCK_KIND_NAMES.get(kind, kind)))
    for match in _FLIP_FLOP.finditer(sentence):
        inputs = tuple(name for name in (match.group("first"), match.group("second")) if name)
        kind = match.group("kind")
        if kind == "SR" and match.group("winner"):
            kind += " set wins" if match.group("winner") == inputs[0] else " reset wins"
        claims.append(Claim("flip_flop", (match.group("name"), *inputs), kind))
    for match in _FLAG.finditer(sentence):
        value = f"{match.group('when')} {match.group('number') or match.group('state')}"
        level = f" {match.group('level')}" if match.group("input") else ""
        claims.append(Claim("flag", (match.group("output"), match.group("register"),
                                     *filter(None, [match.group("input")])), value + level))
    if match := _REGISTER_MODE.search(sentence):
        text = match.group("text")
        claims.append(Claim("register_mode", (match.group("name"), *_ANY_ID_NAME.findall(text)),
                            _ANY_ID_NAME.sub("`{}`", text)))
    claims += [Claim("data_path", (match.group("name"), match.group("source")), "load")
               for match in _LOAD.finditer(sentence)]
    claims += [Claim("data_path", (match.group("name"), match.group("source")), match.group("direction").lower())
               for match in _SHIFT.finditer(sentence)]
    if not any(claim.kind in ("function", "data_path", "register_mode") for claim in claims):  # "shifts": named there
        claims += [Claim("behaviour", (), behaviour) for behaviour, pattern in _BEHAVIOUR_PATTERNS.items()
                   if pattern.search(outside_backticks)]
    return tuple(claims)


def text_claims(text: str) -> tuple[Claim, ...]:
    return tuple(claim for sentence in sentences(text) for claim in sentence_claims(sentence))


@dataclass(frozen=True)
class Scope:
    """What a claim is checked against: the module, and the block when the claim is in a block's summary."""

    module: ModuleFacts
    block: BlockFacts | None = None
    child_behaviours: frozenset[str] = frozenset()  # behaviours the children's summaries establish
    behaviour: Behaviour | None = None  # the netlist's facts, where Yosys read the module


def _blocks_in_scope(scope: Scope) -> list[BlockFacts]:
    if scope.block is None:
        return list(scope.module.all_blocks())
    return [scope.block, *scope.block.inner]


def check(claim: Claim, scope: Scope) -> bool:
    """Does the claim hold? False when it is false and when the facts cannot confirm it."""
    facts = scope.module
    if claim.kind == "identifier":
        return claim.names[0] in facts.identifiers
    if claim.kind == "width":
        return str(facts.widths.get(claim.names[0])) == claim.value
    if claim.kind == "direction":
        return any(port.name == claim.names[0] and port.direction == claim.value for port in facts.ports)
    if claim.kind == "memory":
        depth, _, width = claim.value.partition("x")
        return any(memory.name == claim.names[0] and str(memory.depth) == depth and width in ("", str(memory.width))
                   for memory in facts.memories)
    if claim.kind == "parameter":
        return claim.names[0] in facts.parameters and claim.value in ("", str(facts.parameters[claim.names[0]]))
    if claim.kind == "combinational":  # the text shows no clocked block, and the netlist stores nothing
        return facts.combinational and not (scope.behaviour is not None and scope.behaviour.stores)
    if claim.kind == "block_kind":
        return scope.block is not None and scope.block.kind == claim.value
    if claim.kind == "testbench":  # nothing connects to it: it runs a simulation of its own
        return not facts.ports
    if claim.kind in NETLIST_KINDS:
        return check_netlist_claim(claim, facts, scope.behaviour)
    return _check_in_blocks(claim, scope, _blocks_in_scope(scope))


def _check_in_blocks(claim: Claim, scope: Scope, blocks: list[BlockFacts]) -> bool:
    """`check` for the kinds a block's facts decide: the claim's scope's blocks (every block for the module)."""
    facts = scope.module
    if claim.kind == "clock":
        return any(block.clock == (claim.names[0], claim.value) for block in blocks)
    if claim.kind == "reset":
        polarity, _, timing = claim.value.partition(" ")
        return any(block.reset and block.reset.signal == claim.names[0]
                   and block.reset.active_low == (polarity == "active-low")
                   and (not timing or block.reset.asynchronous == (timing == "asynchronous")) for block in blocks)
    if claim.kind == "register":
        return claim.names[0] in facts.registers and any(claim.names[0] in block.targets for block in blocks)
    if claim.kind == "counter":
        return any(counter.signal == claim.names[0] and counter.direction == claim.value
                   for block in blocks for counter in block.counters)
    if claim.kind in ("state_machine", "state", "transition"):
        machines = [block.state_machine for block in blocks if block.state_machine] or list(facts.state_machines)
        if claim.kind == "state_machine":
            return any(machine.register == claim.names[0] and claim.value in ("", str(len(machine.states)))
                       for machine in machines)
        if claim.kind == "state":
            return any(claim.names[0] in machine.states for machine in machines)
        return any(claim.names in machine.transitions for machine in machines)
    if claim.kind == "instance":
        return any(block.child == claim.names for block in blocks)
    if claim.kind == "drives":
        return any(claim.names[0] in block.targets for block in blocks)
    if claim.kind == "reads":
        return any(claim.names[0] in block.reads for block in blocks)
    if claim.kind == "behaviour":
        return any(claim.value in block.behaviours for block in blocks) or (
            scope.block is None and claim.value in scope.child_behaviours)
    raise ValueError(f"unknown claim kind {claim.kind!r}")


def hallucination(claim: Claim, verified: bool) -> str | None:
    """A line for the row's `hallucinated` list: an unknown identifier or a wrong width."""
    if verified or claim.kind not in ("identifier", "width"):
        return None
    return f"`{claim.names[0]}`" if claim.kind == "identifier" else f"`{claim.names[0]}` is not {claim.value} bits"
