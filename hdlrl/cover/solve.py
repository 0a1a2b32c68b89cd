"""SAT-solved stimulus: an input sequence from reset that reaches an uncovered branch or bin.

Random stimulus almost never types a lock's four-byte code or walks an FSM's deep path; a
bounded model checker finds such sequences directly. A branch arm gets `assert (1'b0)` as its
first statement, so the assertion fails exactly when the arm runs, whatever conditions enclose
it; an arm the text cannot be edited so, or a line point, has its line's condition asserted
never to hold (as `hdlrl.cover.unreachable` reads it), a functional bin its bin's. A bounded
model check (`hdlrl.cover.bmc`: Yosys builds the model, ABC's `bmc3` searches it) looks for a
failure within `depth` cycles from reset: a counterexample is the inputs, cycle by cycle, that
reach the item. Replayed as a `vectors` segment after a reset, it is a program aimed at the hole.

This is a stimulus generator, not a proof: the model starts from zeroed state and sees the
design through Yosys, so the harness still simulates every program and the coverage reported
is what the simulation hit. No counterexample within `depth` cycles says nothing either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from hdlrl.cover.bmc import DRIVER_FILE, DRIVER_MODULE, bounded_check, driver_module, reset_cycles
from hdlrl.cover.coverage import CoveragePoint
from hdlrl.cover.functional import Bin, Covergroup
from hdlrl.cover.unreachable import asserting_model, claim_for, with_assertion
from hdlrl.design import Design
from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.hdl.lexer import Token, matching, tokenize
from hdlrl.verify.interface import Port

_STATEMENT_KEYWORDS = {"if", "else", "for", "while", "repeat", "forever", "fork", "wait", "begin", "case", "casez",
                       "casex", "end", "endcase"}


@dataclass(frozen=True)
class Target:
    """An uncovered item and where to ask about it: `never` asserted in `file`'s module around
    `line` holds for as long as the item is not reached, or, with `arm`, the branch arm at
    those offsets of `file`'s text is never entered."""

    item: str  # a coverage point id or a functional bin id
    file: str  # design-relative
    line: int
    never: str  # a Verilog expression over the module's signals
    declarations: str = ""  # Verilog `never` reads besides them: the past samples of a transition
    arm: tuple[int, int] | None = None  # start and end offsets of the arm's statement

    def place(self, text: str) -> str:
        """`text` (the file's) with the target's assertion in it."""
        if self.arm is None:
            return with_assertion(text, self.line, self.never, self.declarations)
        start, end = self.arm
        if start == end:  # the empty else of an if without one, written out
            return f"{text[:start]} else begin assert (1'b0); end{text[start:]}"
        return f"{text[:start]}begin assert (1'b0); {text[start:end]} end{text[end:]}"


def _statement_end(tokens: list[Token], index: int) -> int | None:
    """The index after the statement at `index`: a begin-end block, a case, or a simple
    statement up to its `;`; None for anything else (a nested if, a loop)."""
    if index >= len(tokens):
        return None
    opening = tokens[index].text
    if opening in ("begin", "case", "casez", "casex"):
        closing, openers = ("end", {"begin"}) if opening == "begin" else ("endcase", {"case", "casez", "casex"})
        end = matching(tokens, index, openers, closing)
        return end + 1 if tokens[end].text == closing else None
    for position in range(index, len(tokens)):
        if tokens[position].text in _STATEMENT_KEYWORDS:
            return None
        if tokens[position].text == ";":
            return position + 1
    return None


def branch_arm(point: CoveragePoint, text: str) -> tuple[int, int] | None:
    """The offsets of the statement a Verilator `if`, `elsif` or `else` point counts: the then
    or the else statement of the one `if` on the point's line; for the `else` of an if that has
    none, the empty span where one would go (a saturating count's `if (n != 15) n <= n + 1;`
    counts its else, the count held at 15); None where that is not plain."""
    if point.kind not in ("if", "elsif", "else"):
        return None
    tokens = tokenize(text)
    ifs = [index for index, token in enumerate(tokens) if token.line == point.line and token.text == "if"]
    if len(ifs) != 1 or ifs[0] + 1 >= len(tokens) or tokens[ifs[0] + 1].text != "(":
        return None
    index = matching(tokens, ifs[0] + 1, {"("}, ")") + 1  # the statement after the condition
    end = _statement_end(tokens, index)
    if point.kind == "else":
        if end is None:
            return None
        if end >= len(tokens) or tokens[end].text != "else":  # no else: its arm is empty, at the then's end
            position = tokens[end - 1].start + len(tokens[end - 1].text)
            return position, position
        index = end + 1
        end = _statement_end(tokens, index)
    if end is None:
        return None
    return tokens[index].start, tokens[end - 1].start + len(tokens[end - 1].text)


def code_target(point_id: str, texts: dict[str, str]) -> Target | None:
    """The target of an uncovered point: its arm entered, else its line's condition holding."""
    point = CoveragePoint.from_id(point_id)
    if point.metric == "toggle" or point.file not in texts or point.instance:
        return None
    arm = branch_arm(point, texts[point.file])
    if arm is not None:
        return Target(point_id, point.file, point.line, "", arm=arm)
    claim = claim_for(point, texts[point.file])
    if claim is None or claim.full_case:
        return None
    return Target(point_id, claim.file, claim.line, claim.expression)


def _in_bin(signal: str, item: Bin) -> str:
    return " || ".join(f"(({signal}) == {low})" if low == high else f"(({signal}) >= {low} && ({signal}) <= {high})"
                       for low, high in item.ranges) or "1'b0"


def _transition(signal: str, width: int, item: Bin, clock: str) -> tuple[str, str]:
    """A transition bin's condition over the current sample and registers holding the earlier
    ones (one per clock cycle, oldest first as the bin lists them), and their declarations."""
    past = [f"hdlrl_past{age}" for age in range(len(item.transition) - 1, 0, -1)]  # oldest first
    declarations = "".join(f"    reg [{width - 1}:0] {name};\n" for name in past)
    shifts = " ".join(f"{name} <= {source};" for name, source in zip(past, [*past[1:], f"({signal})"]))
    declarations += f"    always @(posedge {clock}) begin {shifts} end\n" if past else ""
    steps = [" || ".join(f"({sample} == {value})" for value in sorted(values)) or "1'b0"
             for sample, values in zip([*past, f"({signal})"], item.transition)]
    return " && ".join(f"({step})" for step in steps), declarations


MOST_WAYPOINTS = 8  # a count further than this from its coverpoint's first bin gets none


def waypoints(point_bins: tuple[Bin, ...], item: Bin) -> list[int]:
    """The counts a value bin's checks step through: every value between the coverpoint's first
    value bin and `item` (frames 2 to 6 on the way to a saturated 7), when there are at most
    MOST_WAYPOINTS of them. Seven frames are out of reach of one check, but each next frame is
    within reach of the last one's sequence."""
    first = next(other for other in point_bins if not other.transition)
    if item is first or item.transition:
        return []
    start, end = first.ranges[0][0] + 1, item.ranges[0][0]
    return list(range(start, end)) if 0 < end - start <= MOST_WAYPOINTS else []


def waypoints_of(item: str, items: list[str]) -> list[str]:
    """The ids of `item`'s waypoints among `items`, in order (`bin_targets` names them `item@count`)."""
    return [other for other in items if other.startswith(f"{item}@")]


def bin_targets(groups: list[Covergroup], top_file: str, top_line: int, clock: str | None) -> dict[str, Target]:
    """Bin id -> target, for the bins and crosses whose expressions name only the top module's
    own signals (a hierarchical name is not in the asserting module's scope). A transition
    needs a clock to keep its past samples by (the group's, else `clock`); a group's condition
    is asserted on the last sample only, so such a target may miss and the simulation decide.
    Before a value bin come its `waypoints`, `bin@count` the coverpoint reaching that count."""
    targets = {}
    for group in groups:
        guard = f"({group.condition}) && " if group.condition else ""
        expressions = [group.condition or "", *(point.signal for point in group.coverpoints)]
        if any("." in expression for expression in expressions):
            continue
        conditions = {(point.name, item.name): _in_bin(point.signal, item)
                      for point in group.coverpoints for item in point.value_bins}
        sampled_by = group.clock or clock
        for point in group.coverpoints:
            for item in point.bins:
                bin_id = f"{group.name}.{point.name}.{item.name}"
                if not item.transition:
                    for count in waypoints(point.bins, item):
                        targets[f"{bin_id}@{count}"] = Target(f"{bin_id}@{count}", top_file, top_line,
                                                              f"!({guard}(({point.signal}) >= {count}))")
                    targets[bin_id] = Target(bin_id, top_file, top_line,
                                             f"!({guard}({conditions[point.name, item.name]}))")
                elif sampled_by:
                    condition, declarations = _transition(point.signal, point.width or 32, item, sampled_by)
                    targets[bin_id] = Target(bin_id, top_file, top_line, f"!({guard}{condition})", declarations)
        for cross in group.crosses:
            for names in group.cross_bins(cross):
                bin_id = f"{group.name}.{cross.name}.{'*'.join(names)}"
                both = " && ".join(f"({conditions[point, name]})" for point, name in zip(cross.coverpoints, names))
                targets[bin_id] = Target(bin_id, top_file, top_line, f"!({guard}{both})")
    return targets


def top_module_line(texts: dict[str, str], top: str) -> tuple[str, int] | None:
    """The file and line where module `top` is declared, where a bin's assertion goes."""
    for file, text in texts.items():
        match = re.search(rf"^\s*module\s+{re.escape(top)}\b", text, re.MULTILINE)
        if match:
            return file, text.count("\n", 0, match.start()) + 1
    return None


GIVEN_UP = 1 << 30  # the check depth recorded for an item never to check again


@dataclass(frozen=True)
class CheckPlan:
    """How a run spends its model checks: the depths an item without a sequence is checked at
    from reset, in turn; the checks a step may make; and the depth of a check that starts where
    another item's sequence left the design (None: no such checks)."""

    depths: list[int]
    per_step: int
    chain_depth: int | None


@dataclass(frozen=True)
class Check:
    """One bounded model check: `item` looked for within `depth` cycles after the reset or, with
    `prefix`, after replaying the sequence solved for the item `prefix`."""

    item: str
    depth: int
    prefix: str | None = None


def check_plan(solve_depth: int, deepenings: int, per_step: int, combinational: bool) -> CheckPlan:
    """A sequential design: `solve_depth`, doubled `deepenings` times (24, 48, 96, 192; a check
    costs about linearly in its depth, and most items are found at the first), `per_step` checks,
    then checks from a reached state at the depth before the deepest. A combinational one: one
    cycle, once, and `solve_depth` times as many checks, each costing a cycle (instr_decoder's 298
    bins, 8 checks a step, were mostly never checked), and no state to start from."""
    if combinational:
        return CheckPlan([1], per_step * solve_depth, None)
    depths = [solve_depth << doubling for doubling in range(deepenings + 1)]
    return CheckPlan(depths, per_step, depths[-2] if deepenings else depths[0])


def prefix_for(item: str, witnesses: dict[str, list | None], bins: list[str], tried: list[str]) -> str | None:
    """The solved item whose sequence `item`'s next check starts from: the longest sequence among
    the bins listed before it in its coverpoint (a count's bins one, two, three; a prescaler's
    ranges in order), else the longest of all (the deepest state any check reached); None when
    both were tried. A longer sequence found later is tried in turn, so the frontier grows."""
    solved = sorted((other for other, rows in witnesses.items() if rows),
                    key=lambda other: (-len(witnesses[other]), other))
    point = item.rsplit(".", 1)[0]
    earlier = bins[:bins.index(item)] if item in bins else []
    siblings = [other for other in solved if other in earlier and other.rsplit(".", 1)[0] == point]
    return next((other for other in [*siblings[:1], *solved[:1]] if other not in tried), None)


def _chain(steps: list[str], depth: int, witnesses: dict[str, list | None], bins: list[str],
           chained: dict[str, list[str]]) -> list[Check]:
    """Checks of `steps` (a bin's waypoints without a sequence, then the bin) in turn: the first
    with a prefix left to try (`prefix_for`) from that, each later one from the sequence the one
    before it finds (which the caller skips when that one finds none)."""
    prefixes = [prefix_for(step, witnesses, bins, chained.get(step, [])) for step in steps]
    first = next((index for index, prefix in enumerate(prefixes) if prefix is not None), None)
    if first is None:
        return []
    return [Check(steps[first], depth, prefixes[first]),
            *(Check(later, depth, earlier) for earlier, later in zip(steps[first:], steps[first + 1:]))]


def due_checks(uncovered: list[str], plan: CheckPlan, witnesses: dict[str, list | None], checked: dict[str, int],
               chained: dict[str, list[str]], bins: list[str]) -> list[Check]:
    """The checks to make, in order, for the uncovered items without a sequence, in levels: items
    never checked (at the first depth); those whose last check came back empty, at the next depth
    (`checked` giving the last), a level per depth; and, once the deepest came back empty, those
    with a sequence to start from (`prefix_for`; `chained` lists those tried), cheapest first,
    each after its waypoints still without a sequence (`waypoints_of`; `bins` lists them before
    their bin), each from the one before (`_chain`). The levels take turns, one check each, so
    a design with many items that need a long sequence (a whole serial frame) gets its deep
    checks while shallower ones remain."""
    levels: dict[tuple[bool, int], list[Check]] = {(False, plan.depths[0]): [
        Check(item, plan.depths[0]) for item in uncovered if item not in checked]}
    for item in uncovered:
        if item in checked and not witnesses.get(item) and checked[item] < plan.depths[-1]:
            depth = next(depth for depth in plan.depths if depth > checked[item])
            levels.setdefault((False, depth), []).append(Check(item, depth))
    if plan.chain_depth is not None:
        chains = [chain for item in uncovered if checked.get(item) == plan.depths[-1] and not witnesses.get(item)
                  if (chain := _chain([step for step in [*waypoints_of(item, bins), item] if not witnesses.get(step)],
                                      plan.chain_depth, witnesses, bins, chained))]
        chains.sort(key=lambda chain: len(witnesses[chain[0].prefix]))
        levels[True, plan.chain_depth] = [check for chain in chains for check in chain]
    turns = zip_longest(*(levels[level] for level in sorted(levels)))
    return [check for turn in turns for check in turn if check is not None]


def solve(design: Design, target: Target, driven: tuple[Port, ...], folder: Path, depth: int, time_s: float,
          sandbox: bool | None = None, prefix: list[dict[str, int]] = ()) -> list[dict[str, int]] | None:
    """The driven inputs per cycle after the reset that reach `target` within `depth` cycles
    after the `prefix` rows (which the check replays as given, and which begin what it returns),
    a shortest such sequence, or None (out of reach for `depth` cycles, the time ran out, or the
    model would not build). A reset is held in the first cycle, which is not returned, and
    released in every later one; without a reset every cycle is the design's."""
    data = tuple(port for port in driven if design.reset is None or port.name != design.reset.name)
    prepare = asserting_model(design, target.file, target.place, folder, (DRIVER_FILE, DRIVER_MODULE))
    (folder / DRIVER_FILE).write_text(driver_module(design, data, list(prefix)))
    first = reset_cycles(design)
    runner = ToolRunner(folder, Limits(time_s=time_s), sandbox, readable=tuple(design.include_dirs))
    frames = bounded_check(runner, prepare, first + len(prefix) + depth, data)
    if frames is None:
        return None
    rows = frames[first:]
    given = [{port.name: row.get(port.name, 0) for port in data} for row in prefix]
    return [*given, *rows[len(prefix):]] or None
