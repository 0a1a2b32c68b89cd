"""The compile-once coverage harness on real designs: Verilator coverage per run, the design's
outputs per cycle, the mutants' kill vector, reuse of an unchanged build; and the proofs of
unreachable points."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.cover.coverage import CoveragePoint, merge_counts, summarise
from hdlrl.cover.harness import HarnessBuildError, HarnessSpec, build_harness, crash_site, mutant_named_in
from hdlrl.cover.corpus import Entry, greedy_cover
from hdlrl.cover.stimulus import StimulusSpace, parse_program, render
from hdlrl.cover.unreachable import unreachable_points
from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.hdl.mutants import make_mutants
from hdlrl.verify.interface import read_interface

from conftest import DESIGNS_DIR

pytestmark = pytest.mark.skipif(not (has_tool("verilator") and has_tool("iverilog") and has_tool("yosys")),
                                reason="needs verilator, iverilog and yosys")


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory):
    design = load_design(DESIGNS_DIR / "traffic_light")
    folder = tmp_path_factory.mktemp("traffic")
    interface = read_interface(ToolRunner(folder / "interface"), list(design.rtl), design.top)
    space = StimulusSpace.of(design, interface)
    reference_text = design.rtl[0].read_text()
    mutants = [{mutant.file: mutant.text} for mutant in make_mutants(design, 6, seed=0)]
    mutants.append({"rtl/traffic_light.v": reference_text})  # equal to the design: never killed
    spec = HarnessSpec(design, interface, space.ports, (), tuple(mutants))
    return design, interface, space, spec, build_harness(spec, folder / "harness"), folder


def _stimulus(space: StimulusSpace, text: str, seed: int = 1):
    return render(parse_program(text, space, seed), space)


def test_a_run_reports_coverage_outputs_and_kills(traffic) -> None:
    design, interface, space, spec, harness, _ = traffic
    stimulus = _stimulus(space, '{"segments": [{"generator": "random", "cycles": 300}]}')
    run = harness.run(stimulus, "random")
    assert run.ok, run.reason
    assert len(run.outputs) == len(stimulus.rows) and all(len(row) == len(interface.outputs) for row in run.outputs)
    summary = summarise(run.coverage)
    assert summary["line"].total > 10 and summary["branch"].total > 5 and summary["toggle"].total > 10
    assert 0 < summary["branch"].hit < summary["branch"].total  # the saturating timer's else needs a long hold
    points = [CoveragePoint.from_id(point_id) for point_id in run.coverage]
    assert {point.file for point in points} == {"rtl/traffic_light.v"}  # not the testbench, not the mutants
    assert all(CoveragePoint.from_id(point.id) == point for point in points)
    assert len(spec.mutants) - 1 not in run.killed  # the copy of the reference survives
    assert run.killed and all(cycle >= stimulus.first_compared for cycle in run.killed.values())


def test_a_mutant_verilator_cannot_build_is_named_by_the_build_error(traffic) -> None:
    """Verilator 5.006 refuses blocking and non-blocking assignments to one variable, which a
    mutant may write; the error names the mutant's wires, so the run drops that mutant alone."""
    design, interface, space, _, _, folder = traffic
    reference = design.rtl[0].read_text()
    mixed = reference.replace("timer <= 4'd0;", "timer = 4'd0;", 1)
    assert mixed != reference
    spec = HarnessSpec(design, interface, space.ports, (),
                       ({"rtl/traffic_light.v": reference}, {"rtl/traffic_light.v": mixed}))
    with pytest.raises(HarnessBuildError) as error:
        build_harness(spec, folder / "mixed")
    assert mutant_named_in(str(error.value)) == 1
    assert mutant_named_in("hdlrl_cover_tb.v:9: syntax error") is None


def test_a_verilator_internal_fault_names_the_last_source_it_warned_about() -> None:
    """Verilator 5.006 crashed on spi_slave_cmd's harness after warning about mutant 3's
    `tx[5:0-1]`; its fault names no file, so the whole run fell back to Icarus and lost its code
    coverage. The source named last before the fault goes into the error, and that mutant
    alone is dropped. (The crash needs the whole 30-mutant harness, so the output is quoted.)"""
    output = ("%Warning-SELRANGE: mutants/14/rtl/spi_slave_cmd.v:66:24: Selection index out of range\n"
              "%Warning-SELRANGE: mutants/3/rtl/spi_slave_cmd.v:64:19: Selection index out of range: 5:-1\n"
              "   64 |         tx <= { tx[5:0-1], 1'b0 };\n"
              "%Error: Verilator internal fault, sorry. Suggest trying --debug --gdbbt\n"
              "%Error: Command Failed ... mutants/0/rtl/spi_slave_cmd.v mutants/1/rtl/spi_slave_cmd.v\n")
    assert mutant_named_in("%Error: Verilator internal fault, sorry." + crash_site(output)) == 3
    assert crash_site(output.replace("internal fault", "syntax error")) == ""


def test_a_long_hold_reaches_the_saturating_branch(traffic) -> None:
    _, _, space, _, harness, _ = traffic
    random_run = harness.run(_stimulus(space, '{"segments": [{"generator": "random", "cycles": 300}]}'), "r")
    hold = harness.run(_stimulus(space, '{"segments": [{"generator": "hold", "cycles": 40, '
                                        '"values": {"ew_car": 0}}]}'), "hold")
    saturating = next(point_id for point_id in hold.coverage if point_id.startswith("branch|rtl/traffic_light.v|56|")
                      and point_id.endswith("|else|"))
    assert random_run.coverage[saturating] == 0 and hold.coverage[saturating] > 0
    merged = merge_counts(random_run.coverage, hold.coverage)
    assert summarise(merged)["branch"].hit > summarise(random_run.coverage)["branch"].hit


def test_an_unchanged_build_is_reused_and_icarus_gives_the_same_outputs(traffic) -> None:
    _, _, space, spec, harness, folder = traffic
    binary = folder / "harness" / "build" / "hdlrl_cover"
    stamp = binary.stat().st_mtime_ns
    assert build_harness(spec, folder / "harness").folder == harness.folder
    assert binary.stat().st_mtime_ns == stamp
    icarus = build_harness(spec, folder / "icarus", simulator="icarus")
    stimulus = _stimulus(space, '{"segments": [{"generator": "burst", "cycles": 120}]}', seed=4)
    on_verilator, on_icarus = harness.run(stimulus, "v"), icarus.run(stimulus, "i")
    assert on_icarus.ok and not icarus.code_coverage and on_icarus.coverage == {}
    first = stimulus.first_compared
    assert on_icarus.outputs[first:] == on_verilator.outputs[first:]
    assert on_icarus.killed == on_verilator.killed


def test_unreachable_points_are_proven_or_left_counted(tmp_path: Path) -> None:
    traffic = load_design(DESIGNS_DIR / "traffic_light")
    unreachable = unreachable_points(traffic, [
        "branch|rtl/traffic_light.v|45|0|45|case|",  # default: state only ever holds the six phases
        "branch|rtl/traffic_light.v|56|0|56|else|",  # the timer saturates: reachable
        "branch|rtl/traffic_light.v|40|0|40|case|",  # NS_Y: reachable
    ], tmp_path / "traffic")
    assert list(unreachable) == ["branch|rtl/traffic_light.v|45|0|45|case|"]
    assert "proven" in unreachable["branch|rtl/traffic_light.v|45|0|45|case|"]
    alu = load_design(DESIGNS_DIR / "alu8")
    assert "full case" in unreachable_points(alu, ["line|rtl/alu8.v|43|0|43|case|"], tmp_path / "alu")[
        "line|rtl/alu8.v|43|0|43|case|"]


def test_greedy_cover_keeps_everything_with_fewer_programs() -> None:
    corpus = [Entry("a", 0, "x", ["p1", "p2"], []), Entry("b", 0, "x", ["p2"], [1]),
              Entry("c", 0, "x", ["p1", "p2", "p3"], []), Entry("d", 0, "x", ["p1", "p2", "p3"], []),
              Entry("e", 0, "x", ["p4"], [1])]
    cycles = {"a": 10, "b": 10, "c": 30, "d": 20, "e": 5}
    chosen = greedy_cover(corpus, cycles)
    reached = set().union(*(set(entry.items) | {f"mutant|{m}" for m in entry.killed} for entry in chosen))
    assert reached == {"p1", "p2", "p3", "p4", "mutant|1"}
    assert [entry.program for entry in chosen] == ["d", "e"]  # d: the shorter of the two equal programs


def test_constant_bits_are_proven_and_live_ones_are_not(tmp_path: Path) -> None:
    mult = load_design(DESIGNS_DIR / "mult8")
    stuck, live = "toggle|rtl/mult8.v|18|17|18|s01[15]|", "toggle|rtl/mult8.v|18|17|18|s01[3]|"
    array_bit, array_live = "toggle|rtl/mult8.v|8|17|8|pp[1][0]|", "toggle|rtl/mult8.v|8|17|8|pp[1][1]|"
    unreachable = unreachable_points(mult, [stuck, live, array_bit, array_live], tmp_path / "mult")
    assert set(unreachable) == {stuck, array_bit}
    assert "s01[15] is always 0" in unreachable[stuck]
