"""The one view of a design that every tool is given: the text side of preprocessing.

Simulators and Yosys read the same file differently: `ifdef SYNTHESIS` (Yosys defines it,
Icarus and Verilator do not), `// synopsys translate_off` regions (Yosys skips them, the
simulators run them), attributes such as `(* full_case *)` or `(* blackbox *)` (Yosys obeys,
the simulators ignore) and tool metacomments. A candidate could then pass simulation with one
circuit and be synthesised and proven as another. So a design is preprocessed once, into the
*synthesis view*, and that text alone goes to every tool:

- translate_off ... translate_on regions are removed (`remove_translate_off`, below);
- the real preprocessor (Verilator `-E`, `hdlrl/eda/preprocess.py`) expands includes and
  macros with exactly `VIEW_DEFINES` defined and every tool's own predefined macro undefined;
- comments and attribute instances (but `(* keep *)`) are removed from its output
  (`strip_comments_and_attributes`).

Each decision is recorded in a `PreprocessRecord`, which the verdict carries. The view keeps
the preprocessor's `` `line `` directives, which every tool honours, so messages still name the
candidate's own file and line; `LineMap` does the same for hdlrl's own checks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hdlrl.errors import HdlrlError
from hdlrl.hdl.lexer import Token, tokenize

# The documented macro set of the view: SYNTHESIS defined, as synthesis tools do, and nothing
# else (`VERILATOR`, `__ICARUS__`, `YOSYS`, ... are all undefined).
VIEW_DEFINES: dict[str, str] = {"SYNTHESIS": "1"}

# `// synopsys translate_off`, `/* synthesis translate_on */`, `// pragma translate_off`,
# `// translate_off`, `// rtl_synthesis off`: the comment pragmas that hide code from synthesis.
_PRAGMA = re.compile(
    r"^(?://|/\*)\s*(?:(?:synopsys|synthesis|pragma|cadence|altera|xilinx|exemplar)\s+)?"
    r"(?P<switch>translate_off|translate_on)\b|^(?://|/\*)\s*rtl_synthesis\s+(?P<rtl>off|on)\b",
    re.IGNORECASE)
# Attributes that leave the function and its measurement alone, kept in the view: `keep` makes
# synthesis keep a net (a rewrite uses it to keep an adder's carry tree). Every other attribute
# is dropped: `full_case`/`parallel_case` change what Yosys builds, `blackbox`/`keep_hierarchy`
# what it proves and measures, and simulators ignore them all.
KEPT_ATTRIBUTES = frozenset({"keep"})
_LINE_DIRECTIVE = re.compile(r'^\s*`line\s+(?P<line>\d+)\s+"(?P<file>[^"]*)"\s+\d+\s*$')


@dataclass(frozen=True)
class Region:
    """Lines `first`..`last` of `file`, removed from the view, and why."""

    file: str
    first: int
    last: int
    why: str


@dataclass
class PreprocessRecord:
    """Every decision preprocessing made, for the verdict: a reader can tell what each tool saw."""

    defines: dict[str, str] = field(default_factory=lambda: dict(VIEW_DEFINES))
    undefined: list[str] = field(default_factory=list)  # the preprocessor's own predefined macros
    removed: list[Region] = field(default_factory=list)  # translate_off regions, dropped conditional code
    conditionals: list[str] = field(default_factory=list)  # "file:line: `ifdef NAME"
    includes: list[str] = field(default_factory=list)  # "file:line: `include \"name\""
    attributes: list[str] = field(default_factory=list)  # "file:line: (* full_case *)"

    def summary(self) -> str:
        """One line for people: what was changed on the way to the view."""
        counts = [f"{len(self.removed)} region(s) removed", f"{len(self.conditionals)} conditional(s)",
                  f"{len(self.includes)} include(s)", f"{len(self.attributes)} attribute(s) removed"]
        defines = ", ".join(f"{name}={value}" for name, value in self.defines.items())
        return f"view with {defines}: " + ", ".join(counts)


def remove_translate_off(text: str, file: str) -> tuple[str, list[Region]]:
    """`text` with every translate_off ... translate_on region (pragmas included) blanked, its
    newlines kept so line numbers stay. An unterminated or unbalanced region is an error: the
    gate cannot know what the author meant, so it refuses rather than guesses."""
    pieces: list[str] = []
    regions: list[Region] = []
    position = 0
    opened: Token | None = None
    for token in tokenize(text, keep_comments=True):
        if token.kind != "comment":
            continue
        match = _PRAGMA.match(token.text)
        if not match:
            continue
        switch = (match["switch"] or f"translate_{match['rtl']}").lower()
        if switch == "translate_off":
            if opened is not None:
                raise HdlrlError(f"translate_off inside the translate_off region opened on line {opened.line}",
                                 file, token.line)
            opened = token
            pieces.append(text[position:token.start])
            position = token.start
            continue
        if opened is None:
            raise HdlrlError("translate_on without a translate_off before it", file, token.line)
        end = token.start + len(token.text)
        removed = text[position:end]
        pieces.append(re.sub(r"[^\n]", " ", removed))
        position = end
        regions.append(Region(file, opened.line, token.line + token.text.count("\n"), "translate_off"))
        opened = None
    if opened is not None:
        raise HdlrlError("translate_off without a translate_on after it", file, opened.line)
    pieces.append(text[position:])
    return "".join(pieces), regions


def directives(text: str, file: str) -> tuple[list[str], list[str]]:
    """(conditionals, includes) of a source, as "file:line: directive" for the record."""
    tokens = tokenize(text)
    conditionals, includes = [], []
    for index, token in enumerate(tokens):
        following = tokens[index + 1].text if index + 1 < len(tokens) else ""
        if token.text in ("`ifdef", "`ifndef", "`elsif"):
            conditionals.append(f"{file}:{token.line}: {token.text} {following}")
        elif token.text == "`include":
            includes.append(f"{file}:{token.line}: `include {following}")
    return conditionals, includes


@dataclass(frozen=True)
class LineMap:
    """Where each line of a preprocessed text came from, read from its `line directives."""

    origins: tuple[tuple[str | None, int], ...]  # per physical line (1-based index - 1)

    @classmethod
    def of(cls, text: str, file: str | None = None) -> "LineMap":
        origins = []
        current_file, current_line = file, 1
        for line in text.split("\n"):
            match = _LINE_DIRECTIVE.match(line)
            if match:
                origins.append((current_file, current_line))
                current_file, current_line = match["file"], int(match["line"])
                continue
            origins.append((current_file, current_line))
            current_line += 1
        return cls(tuple(origins))

    def locate(self, physical_line: int) -> tuple[str | None, int]:
        """(file, line) in the original source of physical line `physical_line` of the text."""
        if 1 <= physical_line <= len(self.origins):
            return self.origins[physical_line - 1]
        return None, physical_line

    def covered(self) -> dict[str, set[int]]:
        """Original lines per file that have a line in the text (possibly blank)."""
        lines: dict[str, set[int]] = {}
        for file, line in self.origins:
            if file is not None:
                lines.setdefault(file, set()).add(line)
        return lines


def without_line_directives(text: str) -> str:
    """A view as a plain file for people and other tools: `line directives dropped, trailing
    space trimmed."""
    lines = [line.rstrip() for line in text.split("\n") if not _LINE_DIRECTIVE.match(line)]
    return "\n".join(lines).strip("\n") + "\n"


def _attribute_end(tokens: list[Token], index: int) -> int | None:
    """Index of the `)` closing the attribute instance `(*` opened at tokens[index], if it is one.

    `@(*)` and `@( * )` are event controls, not attributes: an attribute's `(*` is followed by
    a name."""
    if not (tokens[index].text == "(" and index + 2 < len(tokens) and tokens[index + 1].text == "*"
            and tokens[index + 1].start == tokens[index].start + 1 and tokens[index + 2].kind == "identifier"):
        return None
    for end in range(index + 2, len(tokens) - 1):
        if tokens[end].text == "*" and tokens[end + 1].text == ")" and tokens[end + 1].start == tokens[end].start + 1:
            return end + 1
    return None


def _attribute_names(attribute: str) -> set[str]:
    """`(* full_case, ram_style = "block" *)` -> {"full_case", "ram_style"}."""
    return {part.split("=")[0].strip() for part in attribute[2:-2].split(",")}


def strip_comments_and_attributes(text: str, line_map: LineMap) -> tuple[str, list[str]]:
    """The preprocessor's output without comments (Verilator passes its own metacomments
    through) and without attribute instances other than `KEPT_ATTRIBUTES`; returns the text
    and the attributes removed."""
    tokens = tokenize(text, keep_comments=True)
    pieces: list[str] = []
    attributes: list[str] = []
    position = 0
    code = [token for token in tokens if token.kind != "comment"]
    code_index = {token.start: index for index, token in enumerate(code)}
    skip_until = -1
    for token in tokens:
        if token.start < skip_until:
            continue
        if token.kind == "comment":
            removed_end = token.start + len(token.text)
        elif (end := _attribute_end(code, code_index[token.start])) is not None:
            removed_end = code[end].start + 1
            if _attribute_names(text[token.start:removed_end]) <= KEPT_ATTRIBUTES:
                skip_until = removed_end
                continue
            file, line = line_map.locate(token.line)
            attributes.append(f"{file}:{line}: {text[token.start:removed_end]}")
        else:
            continue
        pieces += [text[position:token.start], re.sub(r"[^\n]", " ", text[token.start:removed_end])]
        position = skip_until = removed_end
    pieces.append(text[position:])
    return "".join(pieces), attributes


def dropped_regions(originals: dict[str, str], view: str, line_map: LineMap) -> list[Region]:
    """Lines of code in the original sources that the view leaves out: conditional compilation
    (`ifdef` branches not taken). Blank lines, comments and directives are not counted."""
    kept_code: dict[str, set[int]] = {}
    for index, line in enumerate(view.split("\n"), start=1):
        if line.strip() and not _LINE_DIRECTIVE.match(line):
            file, original_line = line_map.locate(index)
            if file is not None:
                kept_code.setdefault(file, set()).add(original_line)
    regions: list[Region] = []
    for file, text in originals.items():
        code_lines = sorted({token.line for token in tokenize(text) if token.kind != "directive"}
                            - _directive_argument_lines(text))
        missing = [line for line in code_lines if line not in kept_code.get(file, set())]
        for line in missing:
            if regions and regions[-1].file == file and regions[-1].last == line - 1:
                regions[-1] = Region(file, regions[-1].first, line, regions[-1].why)
            else:
                regions.append(Region(file, line, line, "conditional compilation"))
    return regions


def _directive_argument_lines(text: str) -> set[int]:
    """Lines that hold only a preprocessor directive and its arguments (`define X 1, `ifdef X)."""
    lines = set()
    continued = False
    for line_number, line in enumerate(text.split("\n"), start=1):
        if continued or line.lstrip().startswith("`"):
            lines.add(line_number)
        continued = (continued or line.lstrip().startswith("`")) and line.rstrip().endswith("\\")
    return lines
