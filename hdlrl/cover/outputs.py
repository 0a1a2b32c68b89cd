"""What a finished cover run leaves in its directory: the final stimulus set, replayed once more.

The corpus is minimised (`hdlrl.cover.corpus`), each kept program is simulated again on the
harness to record the reference's outputs, and from those runs come

- `testbench/` and `replay/`: the standalone, self-checking testbench (`hdlrl.cover.testbench`);
- `cocotb/`: the same replay as a cocotb test folder, the covergroups as cocotb-coverage ones
  (`hdlrl.cover.cocotb_replay`);
- `coverage.json`: totals per metric (over the reachable points, and raw: over every point),
  every point and bin with its count, the points proven unreachable with reason and method and
  the points waived by coverage.yaml, apart, the mutants and which program killed each, the
  coverage curve;
- `coverage.info`: the replay's Verilator line coverage as lcov, what `genhtml` and CI
  coverage services read (when the harness gave code coverage);
- `summary.json`: the figures `--json` prints, among them the RTL files left without mutants
  and why, the reason for a missing mutation score, and what the emitted testbench itself
  does when run alone (`replay_check`): it passes on the reference, fails on how many live
  mutants, and reproduces which coverage, from a clean directory.

Coverage is reported from the replayed final set, not from the search, so what is written is
what the testbench reproduces.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hdlrl.checkpoint import SUMMARY
from hdlrl.cover.cocotb_replay import COCOTB_FOLDER, run_cocotb_replay, write_cocotb_replay
from hdlrl.cover.coverage import CoveragePoint, merge_counts, read_coverage_file, summarise
from hdlrl.cover.functional import fraction, merge_hits
from hdlrl.cover.corpus import Entry, greedy_cover
from hdlrl.cover.exclusions import WAIVER, exclusion_lists, refuse_hits, split
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.mutants import skipped_mutants
from hdlrl.cover.report import COVERAGE_FILE, write_cover_report
from hdlrl.cover.targets import targets_met
from hdlrl.cover.stimulus import parse_program, render
from hdlrl.cover.testbench import ReplayFiles, write_replay
from hdlrl.errors import HdlrlError
from hdlrl.hdl.design_files import write_mutant

REPLAY_HIERARCHY = "TOP.hdlrl_replay_tb.hdlrl_dut"
LCOV_FILE = "coverage.info"  # the replayed code coverage as lcov (`verilator_coverage --write-info`)


@dataclass
class FinalSet:
    entries: list[Entry]
    code: dict[str, int]
    functional: dict[str, int]
    killed: dict[int, int]  # mutant index -> the final-set program that killed it first
    files: ReplayFiles
    dropped: list[dict]  # programs whose replay failed (a crash or stall of the simulator), with the reason


def replay_final_set(run: CoverRun) -> FinalSet:
    """Minimise the corpus and simulate the kept programs again, recording the reference's outputs.

    A program whose replay fails (the simulator crashed or stalled: it ran in the loop) is left
    out of the testbench, with a warning and its reason in the summary; the run goes on."""
    programs = {entry.program: parse_program(entry.program, run.space, entry.seed, entry.origin)
                for entry in run.state.corpus}
    cycles = {text: program.cycles for text, program in programs.items()}
    entries = greedy_cover(run.state.corpus, cycles)
    if not entries:
        last = f"; the last: {run.state.feedback[-1]}" if run.state.feedback else ""
        raise HdlrlError(f"no testbench to write: none of the {run.proposed} programs proposed reached any "
                         f"coverage ({run.state.refused} refused{last})", run.run_dir)
    stimuli, expected, kept, dropped = [], [], [], []
    code: dict[str, int] = {}
    functional: dict[str, int] = {}
    killed: dict[int, int] = {}
    sample_widths: list[int] = []  # of the sampled expressions, as the harness prints them (for the cocotb replay)
    for number, entry in enumerate(entries):
        stimulus = render(parse_program(entry.program, run.space, entry.seed, entry.origin), run.space)
        result = run.harness.run(stimulus, f"{run.token}_final_{number}", run.flow.simulation_time_s)
        if not result.ok:
            warnings.warn(f"{run.design.name}: final-set program {number} left out of the testbench: {result.reason}",
                          stacklevel=2)
            dropped.append({"program": json.loads(entry.program), "reason": result.reason})
            continue
        kept.append(entry)
        stimuli.append(stimulus)
        expected.append(result.outputs)
        sample_widths = [len(bits) for bits in result.samples[0]] if result.samples else sample_widths
        code = merge_counts(code, result.coverage)
        functional = merge_hits(functional, run.functional_hits(result))
        for mutant in result.killed:
            killed.setdefault(mutant, len(kept) - 1)
    if entries and not kept:
        raise HdlrlError(f"replaying the final set failed on every program: {dropped[-1]['reason']}", run.run_dir)
    files = write_replay(run.run_dir, run.design, run.interface, run.space.ports, stimuli, expected)
    write_cocotb_replay(run.run_dir / COCOTB_FOLDER, run.design, run.interface, run.space.ports,
                        [len(stimulus.rows) for stimulus in stimuli], files.testbench.parent, run.groups, sample_widths,
                        functional)
    return FinalSet(kept, code, functional, killed, files, dropped)


def _code_totals(counts: dict[str, int], exclusions: dict[str, str]) -> dict[str, dict]:
    """Per metric: hit over the reachable points (`fraction`; the proven exclusions counted in
    `excluded`, the waived points in `waived`), and hit over every point (`raw_fraction`)."""
    summary = summarise(counts, frozenset(exclusions))
    raw = summarise(counts)
    waived = [point_id.partition("|")[0] for point_id, text in exclusions.items()
              if split(text)[1] == WAIVER and point_id in counts]
    return {metric: {"hit": entry.hit, "total": entry.total, "excluded": entry.excluded - waived.count(metric),
                     "waived": waived.count(metric), "fraction": entry.fraction, "raw_hit": raw[metric].hit,
                     "raw_total": raw[metric].total, "raw_fraction": raw[metric].fraction}
            for metric, entry in summary.items()}


def coverage_document(run: CoverRun, final: FinalSet) -> dict:
    """The contents of coverage.json; the replay hitting a point proven unreachable is an error."""
    unreachable = run.state.unreachable
    refuse_hits(final.code, unreachable)
    totals = _code_totals(final.code, unreachable) if run.harness.code_coverage else {}
    listed = exclusion_lists(unreachable)
    functional_total = len(final.functional)
    totals["functional"] = {"hit": sum(1 for count in final.functional.values() if count), "total": functional_total,
                            "excluded": 0, "fraction": fraction(final.functional) if run.groups else None}
    points = []
    for point_id, count in sorted(final.code.items()):
        point = CoveragePoint.from_id(point_id)
        points.append({"id": point_id, "metric": point.metric, "file": point.file, "line": point.line,
                       "lines": point.source_range, "kind": point.kind, "instance": point.instance, "count": count,
                       **_exclusion_fields(unreachable.get(point_id))})
    mutants = [{"index": number, "operator": mutant.operator, "file": mutant.file, "line": mutant.line,
                "description": mutant.description, "equivalence": mutant.equivalence,
                "killed_by_program": final.killed.get(number), "in_harness": True}
               for number, mutant in enumerate(run.mutants)]
    mutants += [{"index": None, "operator": mutant.operator, "file": mutant.file, "line": mutant.line,
                 "description": mutant.description, "equivalence": mutant.equivalence, "killed_by_program": None,
                 "in_harness": False, "why": why} for mutant, why in
                [*((mutant, "hangs a simulation: counted as killed") for mutant in run.hanging),
                 *((mutant, f"{run.harness.simulator} cannot build it: left out of the score, replayed by run.sh")
                   for mutant in run.unbuildable)]]
    live = len(run.mutants) + len(run.hanging)
    return {
        "design": run.design.name, "policy": run.policy.name, "seed": run.seed,
        "simulator": run.harness.simulator,
        "code_coverage": run.harness.code_coverage,
        "note": ("branch = Verilator's if/else arms and case items (its line points that are branches); "
                 "Verilator has no separate branch metric") if run.harness.code_coverage else
                "Icarus has no code coverage: functional coverage and kills only",
        "totals": totals,
        "mutation_score": (len(final.killed) + len(run.hanging)) / live if live else None,
        "points": points,
        "functional_bins": dict(sorted(final.functional.items())),
        # proven: {id, reason, method}; waived: {id, reason}
        "unreachable": listed["exclusions"], "waived": listed["waived"],
        "mutants": mutants,
        "final_set": [{"program": json.loads(entry.program), "seed": entry.seed, "origin": entry.origin}
                      for entry in final.entries],
        "curve": run.curve(),
    }


def _exclusion_fields(text: str | None) -> dict:
    """A point's `unreachable` (the proof's reason), `method`, and `waived` (the waiver's reason)."""
    reason, method = split(text) if text is not None else (None, None)
    waived = method == WAIVER
    return {"unreachable": None if waived else reason, "method": None if waived else method,
            "waived": reason if waived else None}


def check_replay(run: CoverRun, final: FinalSet) -> dict:
    """Run the emitted scripts as a user would: `run.sh` on the reference and on every live mutant
    (a failure is a kill), `coverage.sh` into a fresh folder, its coverage parsed and compared."""
    environment = {**os.environ, "HDLRL_REPLAY_TIMEOUT": "20"}  # a hanging mutant fails after 20 s
    with tempfile.TemporaryDirectory(prefix="hdlrl-replay-check-") as scratch:
        folder = Path(scratch)
        reference = subprocess.run([str(final.files.run_script)], cwd=folder, capture_output=True, text=True,
                                   timeout=600, env=environment)
        mutants = [*run.mutants, *run.hanging, *run.unbuildable]
        verdicts, mutant_sources = {}, {}  # mutant index -> the Verilog replay failed on it; its sources
        for mutant in mutants:
            sources = mutant_sources[mutant.index] = write_mutant(run.design, mutant, folder / f"mutant_{mutant.index}")
            result = subprocess.run([str(final.files.run_script), *map(str, sources)], cwd=folder,
                                    capture_output=True, text=True, timeout=600, env=environment)
            verdicts[mutant.index] = result.returncode != 0
        cocotb = check_cocotb(run, mutant_sources, verdicts) if run.flow.check_cocotb_replay else None
        difference = None
        if run.harness.code_coverage:
            subprocess.run([str(final.files.coverage_script), str(folder / "coverage")], cwd=folder,
                           capture_output=True, text=True, timeout=1200, check=True)
            shutil.copyfile(folder / "coverage" / "coverage.info", run.run_dir / LCOV_FILE)
            replayed = summarise(read_coverage_file(folder / "coverage" / "coverage.dat",
                                                    final.files.testbench.parent / "rtl", REPLAY_HIERARCHY),
                                 frozenset(run.state.unreachable))
            reported = summarise(final.code, frozenset(run.state.unreachable))
            difference = max(abs((replayed[metric].fraction or 0.0) - (reported[metric].fraction or 0.0))
                             for metric in reported)
    killed = sum(verdicts.values())
    return {"passes_on_reference": reference.returncode == 0,
            "mutants_failed": killed, "live_mutants": len(mutants),
            "kill_rate": killed / len(mutants) if mutants else None,
            "coverage_difference_points": None if difference is None else round(100 * difference, 3),
            **({"cocotb": cocotb} if cocotb is not None else {})}


def check_cocotb(run: CoverRun, mutant_sources: dict[int, tuple[Path, ...]], verilog_failed: dict[int, bool]) -> dict:
    """The cocotb replay as a user runs it: on the reference, where it also checks the bins hdlrl
    recorded, and on every mutant the Verilog replay was run on, each verdict set beside that one."""
    cocotb_folder = run.run_dir / COCOTB_FOLDER
    reference = run_cocotb_replay(cocotb_folder, simulation_time_s=20)
    failed = {index: run_cocotb_replay(cocotb_folder, sources, simulation_time_s=20).returncode != 0
              for index, sources in mutant_sources.items()}
    return {"passes_on_reference": reference.returncode == 0,
            "reference_output": reference.stdout[-2000:] if reference.returncode else "",
            "mutants_failed": sum(failed.values()),
            "disagreements": sorted(index for index, verdict in failed.items() if verdict != verilog_failed[index])}


def write_outputs(run: CoverRun) -> dict:
    """Replay the final set, write coverage.json and summary.json; returns the summary."""
    final = replay_final_set(run)
    document = coverage_document(run, final)
    (run.run_dir / COVERAGE_FILE).write_text(json.dumps(document, indent=1))
    totals = document["totals"]
    summary = {
        "design": run.design.name, "policy": run.policy.name, "seed": run.seed,
        "simulator": run.harness.simulator, "code_coverage": run.harness.code_coverage,
        **{metric: totals.get(metric, {}).get("fraction") for metric in ("line", "branch", "toggle", "functional")},
        "mutation_score": document["mutation_score"], "mutants": len(run.mutants) + len(run.hanging),
        "hanging_mutants": len(run.hanging), "unbuildable_mutants": len(run.unbuildable),
        "mutants_skipped": skipped_mutants(run.design, run.flow.mutants, run.flow.mutant_seed,
                                           document["mutation_score"] is not None),
        "simulations": run.state.simulations, "proposed": run.proposed, "refused": run.state.refused,
        "final_programs": len(final.entries), "final_cycles": final.files.cycles, "final_dropped": final.dropped,
        "unreachable": len(document["unreachable"]), "waived_points": len(document["waived"]),
        "exclusions": document["unreachable"], "waived": document["waived"],
        "reachable": {metric: entry.get("fraction") for metric, entry in totals.items()},
        "raw": {metric: entry.get("raw_fraction", entry.get("fraction")) for metric, entry in totals.items()},
        "targets": run.targets,
        "targets_met": targets_met({metric: entry.get("fraction") for metric, entry in totals.items()}, run.targets),
        "testbench": str(final.files.testbench),
        "replay": str(final.files.run_script),
        "cocotb_replay": str(run.run_dir / COCOTB_FOLDER),
        "coverage_file": str(run.run_dir / COVERAGE_FILE),
        "replay_check": check_replay(run, final),
    }
    summary["lcov"] = str(run.run_dir / LCOV_FILE) if (run.run_dir / LCOV_FILE).is_file() else None
    (run.run_dir / SUMMARY).write_text(json.dumps(summary, indent=1))
    write_cover_report(run.run_dir)
    return summary
