"""Coverage points no stimulus can reach, shown so by the tool or by a proof, to be left out.

CVDP's pass rule measures coverage over the reachable points, and every point left out must
be shown unreachable and listed. Two ways:

- **by the tool**: the `default` arm of a case whose items name every value of its selector
  (`case (op)` with all eight values of a 3-bit `op`) can never run;
- **by a proof**: the branch's condition, read from its source line, is asserted the other
  way round (`if (c)` arm: `!c` always; `else` arm: `c` always; case item `L`: selector != L;
  `default`: selector is one of the items) and Yosys proves the assertion in every state
  reachable from reset (`sat -tempinduct -prove-asserts`), X-aware first, then 2-valued (the
  semantics of Verilator, which measures the line and branch points), where unreachable
  states with X registers keep the X-aware induction from closing.
  The assertion holds everywhere, a stronger claim than the branch needing it, so a proof
  is a proof of unreachability; where induction does not close, the point stays counted.

A condition on a variable assigned with `=` inside an always block is not used: its value at
the branch may differ from the net the assertion sees. Parameters (`parameter int MODE = 1`)
are constants, so a branch that the design's parameter values rule out (`if (MODE == 2)`) is
proven like any other.

A toggle point (one bit of a signal) is unreachable when the bit is constant: the upper bits
of a sum that cannot carry that far, a register only ever loaded with small values. The bits
of one signal that never toggled are asserted 0 together, then, if that fails, each bit 0
or 1 on its own; each proven bit is left out. A sub-instance's bit is asserted in its module,
so the proof covers every instance of it (a `hold` input tied to 0 at each instantiation);
bits of signals in generate scopes (a `.` in the name) are not tried.

Waived points (coverage.yaml's `waivers:`) are taken first and not proven. Every exclusion
carries its reason and method (`hdlrl.cover.exclusions`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hdlrl.cover.coverage import CoveragePoint
from hdlrl.cover.exclusions import CASE_COMPLETE, SAT_TEMPINDUCT, tagged, waived_points
from hdlrl.cover.steer import if_condition, joined_operators, literal_constants
from hdlrl.design import Design
from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.lexer import Token, joined, tokenize
from hdlrl.hdl.ast_edit import Number

_DECLARATION_WORDS = {"reg", "wire", "logic", "input", "output", "inout"}
_CONTINUOUS_WORDS = {"assign", "wire", "parameter", "localparam", "logic", "reg", "integer", "genvar"}


@dataclass(frozen=True)
class Claim:
    """What must hold for a point to be unreachable: `expression` always true in `file`'s
    module around `line`, or (`full_case`) nothing to prove."""

    file: str
    line: int
    expression: str
    reason: str
    full_case: bool = False

    @property
    def method(self) -> str:
        return CASE_COMPLETE if self.full_case else SAT_TEMPINDUCT


def _declared_width(tokens: list[Token], name: str) -> int | None:
    """The literal width of `name`'s declaration (`reg [2:0] state`), 1 without a range."""
    for index, token in enumerate(tokens):
        if token.text != name or index == 0:
            continue
        back = index - 1
        while back >= 0 and tokens[back].text == ",":
            back -= 2  # `reg [2:0] a, b`: walk back over the earlier names
        if back >= 0 and tokens[back].text == "]":
            opening = max(position for position in range(back) if tokens[position].text == "[")
            inner = [item.text for item in tokens[opening + 1:back]]
            if ":" in inner and opening > 0 and (tokens[opening - 1].text in _DECLARATION_WORDS
                                                 or tokens[opening - 1].text == "signed"):
                high, low = "".join(inner[:inner.index(":")]), "".join(inner[inner.index(":") + 1:])
                if high.isdigit() and low.isdigit():
                    return abs(int(high) - int(low)) + 1
        elif back >= 0 and tokens[back].text in _DECLARATION_WORDS:
            return 1
    return None


def _skip_statement(tokens: list[Token], index: int) -> int:
    """The index after the statement starting at `index`: a begin-end block, a nested case, an
    if with its else, or a simple statement up to its `;` (or the end, where the text stops first)."""
    if index >= len(tokens):
        return index
    opening = tokens[index].text
    if opening in ("begin", "case", "casez", "casex"):
        closing = "end" if opening == "begin" else "endcase"
        depth = 0
        while index < len(tokens):
            text = tokens[index].text
            nested = text == opening or (opening != "begin" and text in ("case", "casez", "casex"))
            depth += nested - (text == closing)
            index += 1
            if depth == 0:
                break
    else:
        while index < len(tokens) and tokens[index].text != ";":
            if tokens[index].text in ("begin", "case", "casez", "casex"):
                return _skip_statement(tokens, index)  # a block ends the statement (an else after it included)
            index += 1
        index += 1
    if index < len(tokens) and tokens[index].text == "else":
        return _skip_statement(tokens, index + 1)
    return index


def _case_items(tokens: list[Token], line: int) -> tuple[str | None, list[list[str]], int | None]:
    """For the innermost case around `line`: its selector, every item's labels (as text), and
    the line of its `default` (None without one)."""
    opening = max((index for index, token in enumerate(tokens)
                   if token.text in ("case", "casez", "casex") and token.line <= line), default=None)
    if opening is None or opening + 1 >= len(tokens) or tokens[opening + 1].text != "(":
        return None, [], None
    depth, index = 0, opening + 1
    while index < len(tokens):  # past the selector's parentheses
        depth += {"(": 1, ")": -1}.get(tokens[index].text, 0)
        index += 1
        if depth == 0:
            break
    selector = tokens[opening + 2].text if index == opening + 4 else None
    items, default_line = [], None
    while index < len(tokens) and tokens[index].text != "endcase":
        labels, depth = [], 0
        while index < len(tokens) and not (tokens[index].text == ":" and depth == 0):
            text = tokens[index].text
            depth += {"(": 1, ")": -1, "{": 1, "}": -1}.get(text, 0)
            if text == "default":
                default_line = tokens[index].line
                if index + 1 >= len(tokens) or tokens[index + 1].text != ":":
                    break
            elif text != "," or depth:
                labels.append(text)
            index += 1
        index += 1  # the colon
        if labels:
            items.append(labels)
        index = _skip_statement(tokens, index)
    return selector, items, default_line


def _parameters(tokens: list[Token]) -> set[str]:
    """Names declared by `parameter` or `localparam` (`localparam int A = 1, B = 2;`)."""
    names = set()
    for start, token in enumerate(tokens):
        if token.text not in ("parameter", "localparam"):
            continue
        depth = 0
        for index in range(start + 1, len(tokens) - 1):
            text = tokens[index].text
            depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(text, 0)
            if text == ";" or depth < 0 or (depth == 0 and text in ("parameter", "localparam")):
                break
            if depth == 0 and tokens[index + 1].text == "=" and tokens[index].kind == "identifier":
                names.add(text)
    return names


def _procedural(tokens: list[Token]) -> set[str]:
    """Names assigned with a blocking `=` in procedural code (parameters are not)."""
    names = set()
    for index, token in enumerate(tokens[1:-2], start=1):
        if (token.kind == "identifier" and tokens[index + 1].text == "=" and tokens[index + 2].text != "="
                and tokens[index - 1].text not in _CONTINUOUS_WORDS
                and tokens[index - 1].text not in ("<", ">", "!", "=")):
            names.add(token.text)
    return names - _parameters(tokens)


def claim_for(point: CoveragePoint, text: str) -> Claim | None:
    """What would make `point` unreachable, or None where its line says nothing usable."""
    tokens = joined_operators(tokenize(text))
    on_line = [token for token in tokens if token.line == point.line]
    procedural = _procedural(tokens)
    where = f"{point.file}:{point.line}"
    if point.kind == "case" and on_line:
        selector, items, default_line = _case_items(tokens, point.line)
        if selector is None or selector in procedural:
            return None
        constants = literal_constants(tokens)
        if on_line[0].text == "default" and default_line == point.line:
            values = {(Number.parse(label) or Number(constants.get(label, -1), None, "", "")).value
                      for labels in items for label in labels}
            width = _declared_width(tokens, selector)
            if width is not None and width <= 16 and set(range(1 << width)) <= values:
                return Claim(point.file, point.line, "", f"{where}: default of a full case: the items name every "
                             f"value of {selector} ({width} bits)", full_case=True)
            named = " || ".join(f"({selector} == {label})" for labels in items for label in labels)
            return Claim(point.file, point.line, named or "1'b0",
                         f"{where}: default arm; proven: {selector} always holds one of the case items")
        labels = next((labels for labels in items if labels and labels[0] == on_line[0].text), None)
        if labels:
            never = " && ".join(f"({selector} != {label})" for label in labels)
            return Claim(point.file, point.line, never, f"{where}: case item {' '.join(labels)}; proven: "
                         f"{selector} never equals it")
        return None
    if point.kind in ("if", "elsif", "else"):
        condition = if_condition(on_line, point.line)
        if not condition or any(token.text in procedural for token in condition if token.kind == "identifier"):
            return None
        text_condition = joined(condition)
        if point.kind == "else":
            return Claim(point.file, point.line, f"({text_condition})",
                         f"{where}: else arm; proven: ({text_condition}) always holds")
        return Claim(point.file, point.line, f"!({text_condition})",
                     f"{where}: if arm; proven: ({text_condition}) never holds")
    return None


def with_assertion(text: str, line: int, expression: str, declarations: str = "") -> str:
    """`text` with `declarations` and `always @* assert (expression);` before the `endmodule`
    closing `line`'s module."""
    ends = [match.start() for match in re.finditer(r"\bendmodule\b", text)]
    offsets = [len("\n".join(text.splitlines()[:line]))]
    end = next((position for position in ends if position >= offsets[0]), None)
    if end is None:
        return text
    return text[:end] + declarations + f"    always @* assert ({expression});\n" + text[end:]


def asserting_model(design: Design, file: str, edit: Callable[[str], str], folder: Path,
                    driver: tuple[str, str] | None = None) -> list[str]:
    """The Yosys commands that read a copy of the design in `folder`, `file` rewritten by `edit`
    (which adds the assertion), into one flat model: for Yosys's `sat` (the proofs here), or with
    `driver` (a file in `folder` and its module, which instantiates the top, as the solver's
    bounded check builds it) the driver as the model's top."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = []
    for path in design.rtl:
        relative = str(path.relative_to(design.root))
        text = path.read_text(errors="replace")
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(edit(text) if relative == file else text)
        sources.append(target)
    reads = [command.replace("read_verilog -sv", "read_verilog -formal -sv")
             for command in read_commands(sources, list(design.include_dirs))]
    top = design.top
    if driver is not None:
        reads.append(f"read_verilog -formal {folder / driver[0]}")
        top = driver[1]
    return [*reads, f"hierarchy -check -top {top}", "proc", "flatten", "memory", "async2sync", "opt_clean"]


def prove(design: Design, claim: Claim, folder: Path, time_s: float, sandbox: bool | None) -> bool:
    """True when Yosys proves `claim.expression` in every state reachable from reset."""
    prepare = asserting_model(design, claim.file, lambda text: with_assertion(text, claim.line, claim.expression),
                              folder)
    reset = ""
    if design.reset is not None:
        reset = f" -set-at 1 {design.reset.name} {1 if design.reset.polarity == 'high' else 0}"
    runner = ToolRunner(folder, Limits(time_s=time_s), sandbox, readable=tuple(design.include_dirs))
    # X-aware first; then 2-valued, as Verilator measures line and branch points (-set-def-inputs
    # would switch X modelling back on: Yosys's sat enables it with any -set-def option)
    for values in (" -set-init-undef -enable_undef -set-def-inputs", ""):
        script = "; ".join([*prepare, f"sat -tempinduct -prove-asserts -seq 1{reset}{values} -maxsteps 20 "
                                      f"{design.top}"])
        run = runner.run([require_tool("yosys").path, "-p", script])
        if "Induction step proven: SUCCESS" in run.output or (run.ok and "SUCCESS!" in run.output
                                                               and "FAIL" not in run.output):
            return True
    return False


_BIT = re.compile(r"^(?P<signal>[A-Za-z_][A-Za-z0-9_$]*)(?:\[\d+\])*$")
_MAX_TOGGLE_PROOFS = 64


def _constant_bits(design: Design, points: list[CoveragePoint], folder: Path, time_s: float, deadline: float,
                   sandbox: bool | None) -> dict[str, str]:
    """Toggle point id -> reason, for the never-toggled bits proven constant before `deadline` (a
    sub-instance's bits once for all instances of its module)."""
    by_signal: dict[tuple[str, int, str], list[tuple[CoveragePoint, str]]] = {}
    for point in points:
        bit = _BIT.match(point.kind)
        if bit:
            by_signal.setdefault((point.file, point.line, bit["signal"]), []).append((point, point.kind))
    result: dict[str, str] = {}
    proofs = 0
    def left() -> float:
        return min(time_s, deadline - time.monotonic())

    for (file, line, signal), bits in by_signal.items():
        if proofs >= _MAX_TOGGLE_PROOFS or left() <= 0:
            break
        all_zero = " && ".join(f"({reference} == 1'b0)" for _, reference in bits)
        proofs += 1
        if prove(design, Claim(file, line, all_zero, ""), folder / f"toggle_{proofs}", left(), sandbox):
            result.update({point.id: tagged(f"{file}:{line}: {reference} is always 0 (proven)", SAT_TEMPINDUCT)
                           for point, reference in bits})
            continue
        for point, reference in bits if len(bits) <= 8 else ():
            for value in (0, 1):
                proofs += 1
                if left() > 0 and prove(design, Claim(file, line, f"({reference} == 1'b{value})", ""),
                                        folder / f"toggle_{proofs}", left(), sandbox):
                    result[point.id] = tagged(f"{file}:{line}: {reference} is always {value} (proven)", SAT_TEMPINDUCT)
                    break
    return result


def unreachable_points(design: Design, uncovered: list[str], folder: Path, time_s: float = 30,
                       sandbox: bool | None = None, budget_s: float = 120) -> dict[str, str]:
    """Point id -> why it is left out, with the method (`hdlrl.cover.exclusions`): the uncovered
    points coverage.yaml waives, then those shown unreachable within `budget_s` (each proof at
    most `time_s`), the line and branch points first, the toggle points after."""
    deadline = time.monotonic() + budget_s
    texts = {str(path.relative_to(design.root)): path.read_text(errors="replace") for path in design.rtl}
    decided: dict[tuple, str | None] = {}
    result = waived_points(design.root, uncovered)
    uncovered = [point_id for point_id in uncovered if point_id not in result]
    for point_id in uncovered:
        point = CoveragePoint.from_id(point_id)
        if point.metric == "toggle" or point.file not in texts:
            continue
        key = (point.file, point.line, point.kind)
        if key not in decided:
            claim = claim_for(point, texts[point.file])
            decided[key] = None
            remaining = min(time_s, deadline - time.monotonic())
            if claim is not None and (claim.full_case or remaining > 0 and prove(
                    design, claim, folder / f"proof_{len(decided)}", remaining, sandbox)):
                decided[key] = tagged(claim.reason, claim.method)
        if decided[key]:
            result[point_id] = decided[key]
    toggles = [point for point in map(CoveragePoint.from_id, uncovered)
               if point.metric == "toggle" and point.file in texts]
    return result | _constant_bits(design, toggles, folder, time_s, deadline, sandbox)
