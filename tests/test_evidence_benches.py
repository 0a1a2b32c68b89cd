"""A module's evidence benches run together (issue 22's speed): each bench prints in the batch
exactly what it prints alone, and a batch that does not finish is run again bench by bench."""

from __future__ import annotations

from pathlib import Path

from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.eda.sim.icarus import compile_and_run, compile_and_run_each
from hdlrl.summarize.evidence_benches import BenchDeferred, EvidenceBenches, run_bench

DESIGN = "module inverter(input a, output y);\n  assign y = ~a;\nendmodule\n"
PRINTS = """module hdlrl_bench_prints;
  reg a; wire y;
  inverter dut(.a(a), .y(y));
  initial begin a = 0; #1 $display("HDLRL y %b", y); a = 1; #1 $display("HDLRL y %b", y); $finish; end
endmodule
"""
BROKEN = "module hdlrl_bench_broken;\n  inverter dut(.a(nowhere), .y());\n  initial $finish\nendmodule\n"
SPINS = "module hdlrl_bench_spins;\n  integer i;\n  initial begin for (i = 0; i >= 0; i = i + 0) ; end\nendmodule\n"
LIMITS = Limits(time_s=10.0, memory_mb=1024)


def _alone(tmp_path: Path, bench: str, top: str) -> tuple[int, str]:
    runner = ToolRunner(tmp_path / top, LIMITS)
    (runner.scratch / "module.v").write_text(DESIGN)
    (runner.scratch / "bench.v").write_text(bench)
    run = compile_and_run(runner, [runner.scratch / "bench.v", runner.scratch / "module.v"], top)
    return run.returncode, run.output


def test_each_bench_of_a_batch_prints_what_it_prints_alone(tmp_path: Path) -> None:
    benches = [(PRINTS, "hdlrl_bench_prints"), (BROKEN, "hdlrl_bench_broken"), (PRINTS, "hdlrl_bench_prints")]
    runner = ToolRunner(tmp_path / "batch", LIMITS)
    for index, (bench, _) in enumerate(benches):
        (runner.scratch / f"b{index}").mkdir()
        (runner.scratch / f"b{index}" / "module.v").write_text(DESIGN)
        (runner.scratch / f"b{index}" / "bench.v").write_text(bench)
    printed = compile_and_run_each(runner, [(f"b{index}", ["bench.v", "module.v"], top)
                                            for index, (_, top) in enumerate(benches)])
    assert printed is not None and len(runner.history) == 1  # one run for the three
    alone = [_alone(tmp_path, bench, top) for bench, top in benches[:2]]
    assert [(each.returncode, each.output) for each in printed] == [alone[0], alone[1], alone[0]]
    assert "HDLRL y 1\nHDLRL y 0" in printed[0].output and printed[0].ok
    assert not printed[1].ok and printed[1].output.startswith("bench.v:4: syntax error")  # named as alone


def test_a_batch_over_the_tightest_limit_is_no_verdict(tmp_path: Path) -> None:
    runner = ToolRunner(tmp_path / "batch", Limits(time_s=1.0, memory_mb=1024))
    for index, bench in enumerate([PRINTS, SPINS]):
        (runner.scratch / f"b{index}").mkdir()
        (runner.scratch / f"b{index}" / "module.v").write_text(DESIGN)
        (runner.scratch / f"b{index}" / "bench.v").write_text(bench)
    assert compile_and_run_each(runner, [("b0", ["bench.v", "module.v"], "hdlrl_bench_prints"),
                                         ("b1", ["bench.v", "module.v"], "hdlrl_bench_spins")]) is None


def test_planned_benches_are_deferred_then_answered_from_one_run(tmp_path: Path) -> None:
    asked: list[str] = []

    def ask(top: str, bench: str) -> None:
        asked.append(run_bench(DESIGN, bench, top, LIMITS, None).output)

    with EvidenceBenches().active() as benches:
        benches.plan([lambda: ask("hdlrl_bench_prints", PRINTS), lambda: ask("hdlrl_bench_broken", BROKEN)])
        assert asked == []  # both deferred while planning
        assert len(benches.printed) == 2
        ask("hdlrl_bench_prints", PRINTS)
        ask("hdlrl_bench_broken", BROKEN)
    assert asked == [_alone(tmp_path, PRINTS, "hdlrl_bench_prints")[1],
                     _alone(tmp_path, BROKEN, "hdlrl_bench_broken")[1]]
    ask("hdlrl_bench_prints", PRINTS)  # outside the block: alone, the same
    assert asked[-1] == asked[0]


def test_a_bench_not_planned_runs_alone_and_planning_raises_only_inside(tmp_path: Path) -> None:
    with EvidenceBenches().active() as benches:
        benches.planning = True
        try:
            run_bench(DESIGN, PRINTS, "hdlrl_bench_prints", LIMITS, None)
        except BenchDeferred:
            pass
        else:
            raise AssertionError("a bench asked for while planning must be deferred")
        benches.planning = False
        assert run_bench(DESIGN, PRINTS, "hdlrl_bench_prints", LIMITS, None).ok  # not planned: run alone
