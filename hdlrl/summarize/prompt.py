"""The conversation a language-model policy sees in `hdlrl summarize`, and the document read back.

The prompt holds what a checkable summary needs: the module's Verilog, the facts read from
its AST (`hdlrl.hdl.facts`: ports with widths, parameters, clocks, resets, registers, the
blocks numbered as the search numbers them, state machines, counters, memories, instances),
the behaviour read from its netlist (`hdlrl.summarize.spec_sentences`), the summaries of the
modules it instantiates, the document so far, the claims of it the checker could not verify,
and the one edit the search asks for. The rules are those the claim checker
(`hdlrl.summarize.claims`) reads by: identifiers in backticks and only those of the code,
widths as "N bits", prose without code.

A whole document (the single shot) is written as one `Module:` line and one `Block N:` line
per block; `format_document` writes that format, `parse_document` reads it back from a
model's loose answer, and the embedded policy writes its single shots the same way, so the
search reads every policy's documents with the one parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hdlrl.hdl.facts import BlockFacts, ModuleFacts
from hdlrl.summarize.behaviour import Behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.spec_sentences import spec_opening
from hdlrl.summarize.document import Document

SUMMARY_SYSTEM_PROMPT = (
    "You are an expert hardware engineer. You write precise, checkable summaries of Verilog modules: "
    "every identifier, width, clock edge, reset and operation you state must be true of the code."
)

# A section marker at the start of a line: "Module:" or "Block 3:", also as a markdown bullet,
# numbered item or heading, bold or not ("- **Block 3:** ...", "### Module: ...").
_MARKER = re.compile(r"^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+|#+[ \t]*)?(?:\*\*|__)?[ \t]*"
                     r"(?:(?P<module>module)(?:[ \t]+summary)?|block[ \t]+(?P<block>\d+))"
                     r"[ \t]*(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?", re.IGNORECASE | re.MULTILINE)


def format_document(document: Document) -> str:
    """The single-shot answer format: `Module: <summary>`, then `Block N: <summary>` per block, N from 1."""
    return "\n".join([f"Module: {document.summary}",
                      *(f"Block {number}: {text}" for number, text in enumerate(document.blocks, 1))])


def parse_document(text: str, block_count: int) -> tuple[str, list[str]]:
    """(module summary, one summary per block) from an answer in the `format_document` format.

    A section runs from its marker to the next one; prose before the first marker, markers of
    blocks that do not exist and repeats of a section already read are dropped, a block without
    a section is "". Without a `Module:` marker the text before the first block marker is the
    summary: a bare paragraph is all summary.
    """
    markers = list(_MARKER.finditer(text))
    summary: str | None = None
    blocks = [""] * block_count
    read: set[int] = set()
    for index, marker in enumerate(markers):
        end = markers[index + 1].start() if index + 1 < len(markers) else len(text)
        section = text[marker.end():end].strip()
        if marker.group("module"):
            if summary is None:
                summary = section
        elif 1 <= (number := int(marker.group("block"))) <= block_count and number not in read:
            read.add(number)
            blocks[number - 1] = section
    if summary is None:
        summary = text[:markers[0].start() if markers else len(text)].strip()
    return summary, blocks


def _bits(width: int | None) -> str:
    return "" if width is None else f" ({width} bit{'s' if width != 1 else ''})"


def _quoted(items: tuple[str, ...]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _block_line(number: int, block: BlockFacts) -> str:
    """"Block 2: sequential, lines 14-22, drives `q`": numbered as in the answer format, lines as in the file."""
    if block.kind == "instance" and block.child:
        what = f"instance of `{block.child[0]}` as `{block.child[1]}`"
    else:
        what = block.kind.replace("_", " ") + (f" `{block.name}`" if block.name else "")
    span = f"line {block.line}" if block.line == block.end_line else f"lines {block.line}-{block.end_line}"
    line = f"Block {number}: {what}, {span}"
    return line + (f", drives {_quoted(block.targets)}" if block.targets else "")


def facts_text(facts: ModuleFacts) -> str:
    """The facts as compact lines, one kind each, leaving out the kinds the module has none of."""
    edge = {"posedge": "rising", "negedge": "falling"}
    parameters = [f"`{name}`" + ("" if value is None else f" = {value}")
                  + (" (local)" if name in facts.local_parameters else "") for name, value in facts.parameters.items()]
    lines = [
        ("Ports", ", ".join(f"{port.direction} {'signed ' if port.signed else ''}`{port.name}`{_bits(port.width)}"
                            for port in facts.ports)),
        ("Parameters", ", ".join(parameters)),
        ("Clocks", "none (purely combinational)" if facts.combinational else
         ", ".join(f"{edge[kind]} edge of `{signal}`" for signal, kind in facts.clocks)),
        ("Resets", ", ".join(f"{'active-low' if reset.active_low else 'active-high'} "
                             f"{'asynchronous' if reset.asynchronous else 'synchronous'} `{reset.signal}`"
                             for reset in facts.resets)),
        ("Registers", _quoted(facts.registers)),
        ("State machines", "; ".join(f"`{machine.register}` with {len(machine.states)} states {_quoted(machine.states)}"
                                     for machine in facts.state_machines)),
        ("Counters", ", ".join(f"`{counter.signal}` counts {counter.direction}" for counter in facts.counters)),
        ("Memories", ", ".join(f"`{memory.name}` of {memory.depth} words"
                               + (f" of {memory.width} bits" if memory.width else "")
                               for memory in facts.memories if memory.depth)),
        ("Instances", ", ".join(f"`{module}` as `{instance}`" for module, instance in facts.children)),
    ]
    listed = [f"- {label}: {text}" for label, text in lines if text]
    blocks = [_block_line(number, block) for number, block in enumerate(facts.blocks, 1)]
    return "\n".join([*listed, f"- Blocks ({len(blocks)}, lines as in the file):", *(f"  {line}" for line in blocks)])


def instruction(state: SummaryState) -> str:
    """What the action asks for, and the shape of the answer."""
    facts: ModuleFacts = state.facts
    if state.action == "single_shot":
        example = format_document(Document("<the module summary>", tuple(
            f"<the summary of block {number}>" for number in range(1, len(facts.blocks) + 1))))
        return ("Write the whole summary: the module summary (what the module does, its interface with widths, "
                "clocks, resets, state and operations), then one summary per block. Answer in exactly this "
                f"format, one line each, the blocks numbered as above:\n{example}")
    if state.action == "refine_block":
        assert state.block is not None
        return (f"Rewrite the summary of block {state.block + 1} only: what kind of block it is, what it drives, "
                "its clock and reset, its counters and state machine, the operations it uses and what it reads. "
                "Answer with that block's summary alone.")
    if state.action == "merge":
        return ("Write the module summary from the block summaries above: its kind, its interface with widths, "
                "its state and what it does. Answer with the module summary alone.")
    if state.action == "context":
        return ("Rewrite the module summary using the summaries of the modules it instantiates: say what they "
                "contribute. Answer with the module summary alone.")
    if state.action == "compress":
        return ("Shorten the module summary without losing any fact: drop repetition and what the block summaries "
                "already say. Answer with the module summary alone.")
    raise ValueError(f"unknown summary action {state.action!r}")


RULES = (
    "Rules:\n"
    "- Put every identifier in backticks, e.g. `clk`, and name only identifiers that appear in the code.\n"
    "- Give widths as \"N bits\", e.g. `data` (8 bits).\n"
    "- Say clocks as \"the rising edge of `clk`\" and resets as \"an active-low asynchronous reset `rst_n`\".\n"
    "- Plain prose: no code, no Verilog, no markdown."
)


def summary_user_prompt(state: SummaryState) -> str:
    sections = [
        f"Module `{state.module}`:\n```verilog\n{state.source.rstrip()}\n```",
        f"Facts read from the code:\n{facts_text(state.facts)}",
    ]
    if state.behaviour is not None and state.behaviour.netlist is not None:
        sections.append("Behaviour read from the netlist (a summary may say it; each is checked again in simulation):\n"
                        + "\n".join(f"- {sentence}" for sentence in spec_opening(state.facts, state.behaviour)))
    if state.children:
        sections.append("Summaries of the modules it instantiates:\n"
                        + "\n".join(f"- `{module}`: {summary}" for module, summary in state.children.items()))
    if state.document.text:
        sections.append(f"The summary so far:\n{format_document(state.document)}")
    if state.unverified:
        sections.append("Claims of the summary so far that the checker could not verify (leave them out):\n"
                        + "\n".join(f"- {claim.kind} {', '.join(claim.names)} {claim.value}".rstrip()
                                     for claim in state.unverified))
    sections += [instruction(state), RULES]
    return "\n\n".join(sections)


@dataclass
class SummaryState:
    """What a summary policy (`hdlrl summarize`) sees: a module, its facts, the summary so far, and
    the one edit the search asks for (`hdlrl.summarize.search.ACTIONS`)."""

    module: str
    source: str  # the module's Verilog text
    facts: ModuleFacts
    action: str  # single_shot, refine_block, merge, context, compress
    document: Document  # the summary so far
    block: int | None = None  # refine_block: which block
    children: dict[str, str] = field(default_factory=dict)  # instantiated module -> its summary
    child_behaviours: tuple[str, ...] = ()  # behaviours the children's summaries establish
    state_id: str = ""
    behaviour: Behaviour | None = None  # the netlist's facts, where Yosys read the module alone
    unverified: tuple[Claim, ...] = ()  # claims of the document so far that the checker did not verify
    stated_in_blocks: frozenset[Claim] = frozenset()  # compress: claims of the block summaries the facts verify

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": SUMMARY_SYSTEM_PROMPT},
                {"role": "user", "content": summary_user_prompt(self)}]

    def sources_from(self, completion: str) -> dict[str, str]:
        """None: the search reads the summary from the completion's text."""
        return {}
