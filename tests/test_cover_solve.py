"""SAT-solved stimulus (`hdlrl.cover.solve`): Yosys's bounded model check finds the input
sequence to a deep bin, and the harness, simulating it, hits that bin."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cover.bmc import counterexample_frames, driver_module, input_bits
from hdlrl.cover.cover_flow import load_cover_flow
from hdlrl.cover.coverage import CoveragePoint
from hdlrl.cover.coverage_yaml import load_covergroups
from hdlrl.cover.grade import GivenPrograms
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.solve import (Check, CheckPlan, bin_targets, branch_arm, check_plan, code_target, due_checks,
                               prefix_for, solve, top_module_line, waypoints)
from hdlrl.cover.functional import Bin, Covergroup, Coverpoint
from hdlrl.cover.unreachable import claim_for
from hdlrl.cover.stimulus import StimulusSpace
from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.ttt.protocol import Sample
from hdlrl.verify.interface import Port, read_interface

needs_tools = pytest.mark.skipif(not (has_tool("verilator") and has_tool("yosys")), reason="needs verilator and yosys")


def test_a_counterexample_reads_as_inputs_per_cycle() -> None:
    """ABC names each input bit by its AIGER number and time frame; write_aiger's map names the
    port and bit behind each number."""
    map_text = "input 0 0 hdlrl_clock\ninput 1 0 code\ninput 2 1 code\ninput 3 0 go\nlatch 0 0 hdlrl_cycle\n"
    cex = "lo00@0=0 pi00@0=1 pi01@0=1 pi02@0=0 pi03@0=1 pi00@1=0 pi01@1=0 pi02@1=1 pi03@1=0"
    ports = (Port("code", "input", 2), Port("go", "input", 1))
    assert counterexample_frames(cex, input_bits(map_text), ports) == [{"code": 1, "go": 1}, {"code": 2, "go": 0}]


def test_the_driver_holds_the_reset_then_replays_the_prefix() -> None:
    design = load_design(DESIGNS_DIR / "hard_coverage" / "lock_seq")  # rst_n, active low
    data = (Port("valid", "input", 1), Port("data", "input", 8))
    text = driver_module(design, data, [{"data": 165, "valid": 1}, {"data": 3}])
    assert ".rst_n(hdlrl_cycle == 3'd0 ? 1'b0 : 1'b1)" in text
    assert "3'd1: begin hdlrl_drive_valid = 1'd1; hdlrl_drive_data = 8'd165; end" in text
    assert "3'd2: begin hdlrl_drive_valid = 1'd0; hdlrl_drive_data = 8'd3; end" in text  # an unnamed port: 0
    assert ".clk(hdlrl_clock)" in text and "hdlrl_drive_data = data;" in text  # free after the prefix


def test_bins_become_conditions_over_the_top_module() -> None:
    design = load_design(DESIGNS_DIR / "seq_detect")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    file, line = top_module_line(texts, design.top)
    targets = bin_targets(load_covergroups(design.root), file, line, "clk")
    assert targets["fsm.state.s1011"].never == "!((rst_n) && (((state) == 4)))"
    overlap = targets["fsm.state.overlap"]  # transition [4, 2, 3, 4]: three past samples in registers
    assert overlap.never == ("!((rst_n) && ((hdlrl_past3 == 4)) && ((hdlrl_past2 == 2)) && ((hdlrl_past1 == 3))"
                             " && (((state) == 4)))")
    assert "always @(posedge clk) begin hdlrl_past3 <= hdlrl_past2; hdlrl_past2 <= hdlrl_past1; " \
           "hdlrl_past1 <= (state); end" in overlap.declarations
    unclocked = [replace(group, clock=None) for group in load_covergroups(design.root)]
    assert "fsm.state.overlap" not in bin_targets(unclocked, file, line, None)  # no clock to keep the past by


def test_claims_read_any_prefix_of_a_file_without_failing() -> None:
    """A case cut off by the end of the text (or an item that is an if/else without begin) once
    ran the reader off the end of its tokens and ended the whole cover run."""
    text = (DESIGNS_DIR / "traffic_light" / "rtl" / "traffic_light.v").read_text()
    lines = text.count("\n") + 1
    for cut in range(0, len(text), 23):
        for line in range(1, lines):
            for kind in ("case", "if", "else"):
                claim_for(CoveragePoint("branch", "f.v", line, 1, str(line), kind, ""), text[:cut])


@needs_tools
def test_the_solved_sequence_reaches_the_deep_state_on_the_harness(tmp_path: Path) -> None:
    design = load_design(DESIGNS_DIR / "seq_detect")
    flow = replace(load_cover_flow(), mutants=0, stop_at_targets=False, budget=1, group_size=1, solves_per_step=0)
    run = CoverRun(design, GivenPrograms([]), flow, tmp_path / "run", progress=False)
    run.prepare()
    target = run.bin_targets["fsm.state.s1011"]
    rows = solve(design, target, run.space.ports, tmp_path / "solve", depth=12, time_s=60)
    assert rows and all(set(row) == {"din"} for row in rows)
    never = replace(target, never="((state) != 7)")  # a 3-bit state the FSM never takes
    assert solve(design, never, run.space.ports, tmp_path / "never", depth=12, time_s=60) is None
    overlap = solve(design, run.bin_targets["fsm.state.overlap"], run.space.ports, tmp_path / "overlap", 12, 60)
    assert overlap
    programs = [json.dumps({"segments": [{"generator": "vectors", "vectors": found}]}) for found in (rows, overlap)]
    replayed = CoverRun(design, GivenPrograms(programs), replace(flow, budget=2), tmp_path / "replay", progress=False)
    replayed.run()
    assert replayed.state.functional["fsm.state.s1011"] > 0 and replayed.state.functional["fsm.state.overlap"] > 0


def test_a_default_arm_claim_names_every_case_item() -> None:
    """An item whose statement ends in a begin-end block (`else if (x) begin ... end`) once
    swallowed the next item's label, so the default's claim left states out and could never be
    proven."""
    text = (DESIGNS_DIR / "hard_coverage" / "deep_fsm" / "rtl" / "deep_fsm.v").read_text()
    line = next(number for number, content in enumerate(text.splitlines(), 1) if content.strip() == "default:")
    claim = claim_for(CoveragePoint("branch", "rtl/deep_fsm.v", line, 17, str(line), "case", ""), text)
    states = ("IDLE", "ARM", "CFG", "KEY1", "KEY2", "CHECK", "RUN", "PAUSE", "DONE", "ERR")
    assert claim.expression == " || ".join(f"(state == S_{state})" for state in states)


def test_a_branch_arm_is_targeted_inside_its_enclosing_conditions() -> None:
    """The arm's first statement becomes `assert (1'b0)`, so only entering the arm (in its case
    item, under its enclosing ifs) fails it; asserting the arm's own condition at module level
    would be met by `abort` in any state."""
    text = (DESIGNS_DIR / "hard_coverage" / "deep_fsm" / "rtl" / "deep_fsm.v").read_text()
    lines = text.splitlines()
    line = next(number for number, content in enumerate(lines, 1)
                if content.strip() == "S_CFG:") + 1  # `if (abort)` of the CFG state
    target = code_target(f"branch|rtl/deep_fsm.v|{line}|21|{line}-{line + 1}|elsif|", {"rtl/deep_fsm.v": text})
    placed = target.place(text).splitlines()
    assert placed[line].strip() == "begin assert (1'b0); state <= S_IDLE; end" and placed[line - 1] == lines[line - 1]
    go = next(number for number, content in enumerate(lines, 1) if "cmd == C_GO" in content)
    otherwise = code_target(f"branch|rtl/deep_fsm.v|{go}|26|{go + 4}|else|", {"rtl/deep_fsm.v": text})
    assert otherwise.place(text).splitlines()[go + 3].strip() == "begin assert (1'b0); state <= S_ERR; end"
    assert code_target(f"toggle|rtl/deep_fsm.v|{line}|5|{line}|state[0]|", {"rtl/deep_fsm.v": text}) is None


def _driven_ports(design, folder: Path):
    """The inputs a stimulus drives, read from the interface (no harness build)."""
    return StimulusSpace.of(design, read_interface(ToolRunner(folder), list(design.rtl), design.top)).ports


def _replayed(design, rows: list[dict[str, int]], folder: Path) -> CoverRun:
    """One cover run of the solved sequence alone, as the cdg policy replays it (no time spent
    proving the points it left uncovered unreachable)."""
    flow = replace(load_cover_flow(), mutants=0, stop_at_targets=False, budget=1, group_size=1, solves_per_step=0,
                   unreachable_budget_s=0)
    program = json.dumps({"segments": [{"generator": "vectors", "vectors": rows}]})
    replayed = CoverRun(design, GivenPrograms([program]), flow, folder, progress=False)
    replayed.run()
    return replayed


@needs_tools
def test_a_nested_arm_is_solved_and_replayed(tmp_path: Path) -> None:
    design = load_design(DESIGNS_DIR / "hard_coverage" / "deep_fsm")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    line = next(number for number, content in enumerate(texts["rtl/deep_fsm.v"].splitlines(), 1)
                if content.strip() == "S_CFG:") + 1
    point = f"branch|rtl/deep_fsm.v|{line}|21|{line}-{line + 1}|elsif|"
    rows = solve(design, code_target(point, texts), _driven_ports(design, tmp_path / "interface"),
                 tmp_path / "solve", depth=12, time_s=60)
    assert rows
    assert _replayed(design, rows, tmp_path / "replay").state.code[point] > 0



def test_items_without_a_sequence_are_checked_again_at_twice_the_depth() -> None:
    """Fresh items at the first depth and items still without a sequence at the next, a level per
    depth, the levels in turn; an item with a sequence, or given up on, never again."""
    assert check_plan(24, 2, 8, combinational=False) == CheckPlan([24, 48, 96], 8, 48)
    assert check_plan(24, 2, 8, combinational=True) == CheckPlan([1], 192, None)  # a cycle each
    witnesses = {"found": [{"din": 1}], "missed": None, "shallow": None, "deep": None, "deepest": None}
    checked = {"found": 24, "missed": 1 << 30, "shallow": 24, "deep": 48, "deepest": 96}
    due = due_checks(["found", "missed", "deep", "shallow", "deepest", "fresh", "new"],
                     CheckPlan([24, 48, 96], 8, None), witnesses, checked, {}, [])
    assert due == [Check("fresh", 24), Check("shallow", 48), Check("deep", 96), Check("new", 24)]


def test_past_the_deepest_check_an_item_is_checked_from_where_a_sequence_left_the_design() -> None:
    """The longest sequence among the bins before it in its coverpoint first (two bytes written
    after one), then the longest of all; each prefix once, and a longer one found later in turn."""
    plan = CheckPlan([24, 48], 8, 24)
    bins = ["g.count.one", "g.count.two", "g.count.three", "g.other.x"]
    witnesses = {"g.count.one": [{}] * 30, "g.other.x": [{}] * 40, "g.count.two": None, "g.count.three": None,
                 "branch|f.v|3|1|3|if|": None}
    checked = dict.fromkeys(["g.count.two", "g.count.three", "branch|f.v|3|1|3|if|"], 48)
    uncovered = ["branch|f.v|3|1|3|if|", "g.count.two", "g.count.three"]
    assert due_checks(uncovered, plan, witnesses, checked, {}, bins) == [
        Check("g.count.two", 24, "g.count.one"), Check("g.count.three", 24, "g.count.one"),
        Check("branch|f.v|3|1|3|if|", 24, "g.other.x")]  # the cheapest (prefix and depth) first
    tried = {"g.count.two": ["g.count.one"], "branch|f.v|3|1|3|if|": ["g.other.x"], "g.count.three": ["g.count.one"]}
    assert due_checks(uncovered, plan, witnesses, checked, tried, bins) == [
        Check("g.count.two", 24, "g.other.x"), Check("g.count.three", 24, "g.other.x")]
    witnesses["g.count.two"] = [{}] * 60  # found from one's end: three now starts from two's
    assert prefix_for("g.count.three", witnesses, bins, tried["g.count.three"]) == "g.count.two"
    assert prefix_for("g.count.two", witnesses, bins, ["g.count.one", "g.other.x", "g.count.two"]) is None



def test_a_count_out_of_reach_of_one_check_steps_through_the_counts_before_it() -> None:
    """frames: first 1, several 2-6, saturated 7. The saturated bin's waypoints are the counts 2
    to 6, each a bin@count target before it; a count further than eight from the first bin has none."""
    frames = Coverpoint("frames", "frames", 3, (Bin("first", ((1, 1),)), Bin("several", ((2, 6),)),
                                                Bin("saturated", ((7, 7),)),
                                                Bin("saturates", transition=(frozenset({6}), frozenset({7})))))
    assert waypoints(frames.bins, frames.bins[2]) == [2, 3, 4, 5, 6]
    assert waypoints(frames.bins, frames.bins[0]) == waypoints(frames.bins, frames.bins[3]) == []
    assert waypoints((Bin("one", ((1, 1),)), Bin("far", ((500, 500),))), Bin("far", ((500, 500),))) == []
    targets = bin_targets([Covergroup("g", "clk", "!rst", (frames,))], "f.v", 1, "clk")
    bins = list(targets)
    assert bins[:8] == ["g.frames.first", "g.frames.several", *(f"g.frames.saturated@{n}" for n in range(2, 7)),
                        "g.frames.saturated"]
    assert targets["g.frames.saturated@4"].never == "!((!rst) && ((frames) >= 4))"

    plan = CheckPlan([24, 48], 8, 24)
    witnesses = {"g.frames.several": [{}] * 48, "g.frames.saturated": None}
    checked = {"g.frames.saturated": 48}
    due = due_checks(["g.frames.saturated"], plan, witnesses, checked, {}, bins)
    steps = [*(f"g.frames.saturated@{n}" for n in range(2, 7)), "g.frames.saturated"]
    assert due == [Check(steps[0], 24, "g.frames.several"),  # each later count from the one before
                   *(Check(later, 24, earlier) for earlier, later in zip(steps, steps[1:]))]
    witnesses.update({"g.frames.saturated@2": [{}] * 72, "g.frames.saturated@3": [{}] * 96})
    due = due_checks(["g.frames.saturated"], plan, witnesses, checked, {}, bins)
    assert due[0] == Check("g.frames.saturated@4", 24, "g.frames.saturated@3")  # from the furthest count reached
    assert len(due) == 4
    tried = {f"g.frames.saturated@{n}": ["g.frames.saturated@3", "g.frames.several"] for n in (4, 5, 6)}
    due = due_checks(["g.frames.saturated"], plan, witnesses, checked, tried, bins)
    assert due == [Check("g.frames.saturated", 24, "g.frames.saturated@3")]  # waypoints out of prefixes: the bin

@needs_tools
def test_a_count_past_the_deepest_check_is_solved_from_a_reached_state(tmp_path: Path) -> None:
    """i2c_target_rx's second written byte: the check starts where the first byte's sequence left
    the receiver, the sequence it returns begins with that prefix, and the harness, replaying it,
    counts two written bytes."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "i2c_target_rx")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    targets = bin_targets(load_covergroups(design.root), *top_module_line(texts, design.top), "clk")
    ports = _driven_ports(design, tmp_path / "interface")
    one = solve(design, targets["i2c.written.one"], ports, tmp_path / "one", depth=96, time_s=60)
    assert one and solve(design, targets["i2c.written.two"], ports, tmp_path / "two_at_48", depth=48, time_s=60) is None
    two = solve(design, targets["i2c.written.two"], ports, tmp_path / "two", depth=48, time_s=60, prefix=one)
    assert two and two[:len(one)] == one
    replayed = _replayed(design, two, tmp_path / "replay")
    assert replayed.state.functional["i2c.written.two"] > 0


@needs_tools
def test_a_frame_longer_than_the_first_depth_is_solved_at_the_second(tmp_path: Path) -> None:
    """spi_slave_cmd executes a READ at the end of a 16-bit frame, 32 clock cycles at least:
    out of reach at 24 cycles, found at 48, and the harness, replaying it, takes the arm."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "spi_slave_cmd")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    line = next(number for number, text in enumerate(texts["rtl/spi_slave_cmd.v"].splitlines(), 1)
                if "rd_data <= regs[addr[2:0]];" in text) - 1
    point = f"branch|rtl/spi_slave_cmd.v|{line}|29|{line}-{line + 1}|if|"
    target, ports = code_target(point, texts), _driven_ports(design, tmp_path / "interface")
    assert target is not None and solve(design, target, ports, tmp_path / "at24", depth=24, time_s=60) is None
    rows = solve(design, target, ports, tmp_path / "at48", depth=48, time_s=60)
    assert rows and _replayed(design, rows, tmp_path / "replay").state.code[point] > 0

class ReplaysOnce(GivenPrograms):
    """Proposes its programs as if each replayed the sequences solved for `items`."""

    def __init__(self, programs: list[str], items: list[str]):
        super().__init__(programs)
        self.items = items

    def sample(self, state, k: int, rng_seed: int) -> list[Sample]:
        return [replace(sample, metadata={**sample.metadata, "solved": self.items})
                for sample in super().sample(state, k, rng_seed)]


@needs_tools
def test_a_sequence_that_missed_its_item_is_not_offered_again(tmp_path: Path) -> None:
    design = load_design(DESIGNS_DIR / "seq_detect")
    flow = replace(load_cover_flow(), mutants=0, stop_at_targets=False, budget=1, group_size=1, solves_per_step=0)
    zeros = json.dumps({"segments": [{"generator": "hold", "cycles": 8, "values": {"din": 0}}]})
    run = CoverRun(design, ReplaysOnce([zeros], ["fsm.state.s1011", "fsm.state.idle"]), flow, tmp_path, progress=False)
    run.state.witnesses = {"fsm.state.s1011": [{"din": 1}], "fsm.state.idle": [{"din": 0}]}
    run.run()
    assert run.state.witnesses == {"fsm.state.s1011": None, "fsm.state.idle": [{"din": 0}]}


@needs_tools
def test_a_combinational_design_gets_its_one_step_witness(tmp_path: Path) -> None:
    """Without a reset the solver's one step is the design's own: it was dropped as if it were
    the reset's, so no combinational design ever got a solved sequence."""
    design = load_design(DESIGNS_DIR / "alu8")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    item = "operations.op_by_zero.nor*1"  # NOR gives 0 only for a = b = 8'hFF
    target = bin_targets(load_covergroups(design.root), *top_module_line(texts, design.top), None)[item]
    rows = solve(design, target, _driven_ports(design, tmp_path / "interface"), tmp_path / "solve", depth=1, time_s=60)
    assert rows is not None and len(rows) == 1
    assert _replayed(design, rows, tmp_path / "replay").state.functional[item] > 0


@needs_tools
def test_a_key_press_sixty_cycles_deep_is_found_and_shortest(tmp_path: Path) -> None:
    """The keypad scanner presses a key after 16 agreeing samples of its column, about 64 cycles.
    Yosys's `sat -seq 25` spent over two minutes proving that no bin is reached within 24, so
    the solver's 30 s checks timed out; ABC's bmc3 unrolls a cycle at a time and returns a
    shortest sequence: one cycle less reaches nothing. Replayed, it presses the key."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "debounce_keypad")
    texts = {str(path.relative_to(design.root)): path.read_text() for path in design.rtl}
    item = "keypad.press_row.row0"
    target = bin_targets(load_covergroups(design.root), *top_module_line(texts, design.top), None)[item]
    ports = _driven_ports(design, tmp_path / "interface")
    rows = solve(design, target, ports, tmp_path / "solve", depth=96, time_s=30)
    assert rows is not None and 60 <= len(rows) <= 96
    assert solve(design, target, ports, tmp_path / "shorter", depth=len(rows) - 1, time_s=30) is None
    assert _replayed(design, rows, tmp_path / "replay").state.functional[item] > 0


@needs_tools
def test_the_else_of_an_if_without_one_is_targeted_inside_its_conditions(tmp_path: Path) -> None:
    """`if (nsym != 3'd4) nsym <= nsym + 3'd1;` inside `if (valid)`: Verilator counts its missing
    else (a valid symbol with the count held at 4). The check writes that else out, with the
    assertion in it, so the sequence must reach it under `valid`; replayed, it takes the arm."""
    design = load_design(DESIGNS_DIR / "hard_coverage" / "pattern_counter")
    file = "rtl/pattern_counter.v"
    text = (design.root / file).read_text()
    point = CoveragePoint("branch", file, 55, 17, "55", "else", "")
    start, end = branch_arm(point, text)
    assert start == end and text[start - len("nsym + 3'd1;"):start] == "nsym + 3'd1;"
    target = code_target(point.id, {file: text})
    assert "nsym <= nsym + 3'd1; else begin assert (1'b0); end" in target.place(text)
    rows = solve(design, target, _driven_ports(design, tmp_path / "interface"), tmp_path / "solve", 24, 30)
    assert rows is not None and sum(row["valid"] for row in rows) >= 5  # four symbols counted, then one more
    hit = _replayed(design, rows, tmp_path / "replay").state.code
    assert any(hit[item] for item in hit if item.startswith(f"branch|{file}|55|") and item.split("|")[5] == "else")
