"""The conversation a language-model policy sees, and the Verilog taken back out of its answer.

The prompt carries everything the model can act on: what the design does, its current RTL,
that RTL's PPA against the reference's, and the gate's one-line reasons for the rewrites
of this RTL that failed (feedback across turns, after TaPR), so the next attempt does not
repeat them. The rules come last and are strict about the interface, because the gate
rejects any change of module name, ports or parameters before it looks at anything else.

Models answer loosely: fenced blocks with or without a language tag, several files marked
with `// file: NAME` or simply in order, bare `module ... endmodule` text, prose around it.
`extract_sources` accepts all of these and returns None only when no module is present.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from hdlrl.hdl.rename import defined_modules
from hdlrl.eda.synth.recipes import DEFAULT_RECIPE

SYSTEM_PROMPT = (
    "You are an expert RTL designer. You rewrite Verilog so that it synthesises to less area, "
    "a shorter critical path and lower power, while its behaviour stays identical cycle for cycle."
)

_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?P<body>.*?)(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
                    re.MULTILINE | re.DOTALL)
_FILE_MARKER = re.compile(r"^[ \t]*//[ \t]*(?:file|filename|path)[ \t]*:[ \t]*(?P<name>\S+)[ \t]*$",
                          re.MULTILINE | re.IGNORECASE)
_MODULE_START = re.compile(r"^\s*(?:module|macromodule)\s+[A-Za-z_\\]")
_MODULE_END = re.compile(r"\bendmodule\b")
# Above this many characters of RTL the prompt shows the top module's file alone (a bounded prompt).
PROMPT_SOURCE_CHARACTERS = 12_000


def _format_ppa(ppa: dict[str, float] | None) -> str:
    if ppa is None:
        return "not measured yet"
    return (f"area {ppa['area_um2']:.6g} um^2, delay {ppa['delay_ns']:.6g} ns, "
            f"power {ppa['power_mw']:.6g} mW")


def source_block(name: str, text: str) -> str:
    """One file as the model should write it back: a verilog fence whose first line names the file."""
    return f"```verilog\n// file: {name}\n{text.rstrip()}\n```"


def _design_sections(state: DesignState) -> list[str]:
    """What the model knows of the state: the design, its PPA against the reference's, its RTL
    (the top module's file alone when all of it would not fit `PROMPT_SOURCE_CHARACTERS`) and the
    gate's reasons for its failed children."""
    shown = state.sources
    if sum(len(text) for text in shown.values()) > PROMPT_SOURCE_CHARACTERS:
        shown = {name: text for name, text in shown.items() if state.top in defined_modules(text)} or shown
    sections = [
        f"Design `{state.design_name}`, top module `{state.top}`.",
        f"What it does:\n{state.description.strip() or '(no description)'}",
        f"PPA of the current RTL: {_format_ppa(state.ppa)}.\n"
        f"PPA of the reference RTL: {_format_ppa(state.reference_ppa)}.",
        "Current RTL:\n" + "\n\n".join(source_block(name, text) for name, text in shown.items()),
    ]
    if state.feedback:
        sections.append("The verification gate rejected these earlier rewrites of this RTL; do not repeat "
                        "their mistakes:\n" + "\n".join(f"- {line}" for line in state.feedback))
    return sections


def user_prompt(state: DesignState) -> str:
    """The write mode: the model writes the rewritten files."""
    files = list(state.sources)
    return "\n\n".join([*_design_sections(state), (
        "Rewrite the RTL to lower the product area x delay x power.\n"
        f"- Keep the interface exactly: module name `{state.top}`, every port (name, direction, width, "
        "signedness, order) and every parameter with its default.\n"
        "- Keep the behaviour identical on every cycle, reset included; the gate checks it by simulation "
        "and formal equivalence.\n"
        "- Edit minimally: change only what lowers the PPA, keep everything else as written.\n"
        "- Synthesisable Verilog only: no delays, no initial blocks, no system tasks.\n"
        f"- Answer with one ```verilog fenced block per file ({', '.join(files)}), each starting with "
        "its `// file: NAME` line and holding the complete file.")])


def choice_messages(state: DesignState, menu: Sequence[str]) -> list[dict[str, str]]:
    """The choose mode: the model is shown the menu of concrete changes and answers with one of them."""
    listed = "\n".join(f"- {words}" for words in menu)
    question = ("These changes keep the behaviour and may lower the product area x delay x power:\n"
                f"{listed}\n\nWhich one change lowers it most on this design? Answer with that line alone, "
                "exactly as written.")
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n\n".join([*_design_sections(state), question])}]


def _bare_code(text: str) -> str:
    """The module bodies of unfenced text with the prose between them dropped (directives and comments kept)."""
    kept = []
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if not inside and _MODULE_START.match(line):
            inside = True
        if inside or not stripped or stripped.startswith(("`", "//")):
            kept.append(line)
        if inside and _MODULE_END.search(line):
            inside = False
    return "\n".join(kept)


def _split_at_markers(code: str) -> list[tuple[str | None, str]]:
    """(the name of a `// file:` marker or None, the text up to the next marker)."""
    markers = list(_FILE_MARKER.finditer(code))
    pieces = [(None, code[:markers[0].start()] if markers else code)]
    for index, marker in enumerate(markers):
        end = markers[index + 1].start() if index + 1 < len(markers) else len(code)
        pieces.append((marker.group("name"), code[marker.end():end]))
    return [(name, text.strip()) for name, text in pieces if text.strip()]


def _resolve(name: str, expected_files: Sequence[str]) -> str | None:
    """The expected file a marker means: the same path, else the only one with that file name."""
    if name in expected_files:
        return name
    matches = [file for file in expected_files if PurePosixPath(file).name == PurePosixPath(name).name]
    return matches[0] if len(matches) == 1 else None


def extract_sources(completion: str, expected_files: Sequence[str]) -> dict[str, str] | None:
    """The files a completion writes, keyed by expected file name; None when it defines no module.

    Marked pieces go to the file their marker names; unmarked ones fill the remaining files in
    order, and any left over join the last of them (a one-file design written as several blocks).
    """
    blocks = [match.group("body") for match in _FENCE.finditer(completion)]
    code = [block for block in blocks if defined_modules(block) or _FILE_MARKER.search(block)]
    code = code or [_bare_code(completion)]
    pieces = [piece for block in code for piece in _split_at_markers(block)]
    if not expected_files or not any(defined_modules(text) for _, text in pieces):
        return None
    files: dict[str, list[str]] = {}
    unmarked = []
    for name, text in pieces:
        target = _resolve(name, expected_files) if name is not None else None
        if target is None:
            unmarked.append(text)
        else:
            files.setdefault(target, []).append(text)
    remaining = [file for file in expected_files if file not in files] or [list(files)[-1]]
    for index, text in enumerate(unmarked):
        files.setdefault(remaining[min(index, len(remaining) - 1)], []).append(text)
    return {name: "\n\n".join(parts) + "\n" for name, parts in files.items()}


@dataclass
class DesignState:
    """One node of the search: a design's RTL and synthesis recipe, its PPA and the gate's reasons
    for its failed children."""

    design_name: str
    top: str
    description: str
    sources: dict[str, str]  # file name (relative to the design folder) -> Verilog text
    ppa: dict[str, float] | None = None  # area_um2, delay_ns, power_mw of these sources; None: not measured
    reference_ppa: dict[str, float] | None = None  # the same for the design's reference RTL
    feedback: list[str] = field(default_factory=list)  # the gate's one-line reasons, one per failed child
    state_id: str = ""
    recipe: str = DEFAULT_RECIPE  # the synthesis recipe (hdlrl/eda/synth/recipes.py)
    # source_hash of every candidate the run has judged: a policy that can tell need not propose them again
    known: frozenset[str] = frozenset()

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user_prompt(self)}]

    def sources_from(self, completion: str) -> dict[str, str]:
        """These sources with the files the completion rewrote replaced; empty when it held no module."""
        extracted = extract_sources(completion, list(self.sources))
        return {} if extracted is None else {**self.sources, **extracted}
