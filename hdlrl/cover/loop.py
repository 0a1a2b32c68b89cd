"""The loop of `hdlrl cover`: propose stimulus, simulate, score the coverage gained, learn, checkpoint.

Each step
1. shows the policy the design, its inputs and the coverage holes left (`CoverState`);
2. takes `group_size` stimulus programs from it; a malformed one is refused with its reason (shown to the
   policy next step) and earns -1, below every simulated program;
3. renders and simulates each on the compile-once harness, in parallel;
4. rewards each program by what it adds to the coverage of the run so far: per metric the newly hit points
   as a fraction of the metric's points, weighted, plus (objective `mutants`) the live mutants it kills first;
5. keeps every program that added something in the corpus;
6. updates the policy from the group's rewards (entropic advantages, adaptive KL budget:
   `hdlrl.ttt.update`, the optimiser's objective) and checkpoints.

The run ends when the budget of programs is spent or every target of the flow holds; the corpus is then
reduced to a small set that keeps all of its coverage and kills (greedy set cover), replayed once more to
record the reference's outputs, and written out.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from hdlrl.cover.corpus import Entry
from hdlrl.cover.coverage import MetricSummary, summarise
from hdlrl.cover.cover_flow import CoverFlow
from hdlrl.cover.exclusions import merge_checked
from hdlrl.cover.coverage_yaml import load_covergroups
from hdlrl.cover.functional import FunctionalCoverage, fraction, merge_hits, run_hits, sampled_expressions, scoped
from hdlrl.cover.harness import (Harness, HarnessBuildError, HarnessRun, HarnessSpec, build_harness, mutant_named_in,
                                 spec_digest)
from hdlrl.cover.mutants import CoverMutant, cover_mutants
from hdlrl.cover.solve import GIVEN_UP, bin_targets, check_plan, code_target, due_checks, solve, top_module_line
from hdlrl.cover.steer import steering_values, stretch_lengths
from hdlrl.cover.targets import design_targets, targets_met
from hdlrl.cover.stimulus import ProgramError, StimulusProgram, StimulusSpace, parse_program, render
from hdlrl.cover.unreachable import unreachable_points
from hdlrl.design import Design
from hdlrl.eda.diagnostics import ToolWarning
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import rtl_digest
from hdlrl.hdl.design_files import relative_name
from hdlrl.paths import user_cache_dir
from hdlrl.cover.prompt import CoverState
from hdlrl.ttt.loop import Group, Judged, LoopSettings, SearchLoop
from hdlrl.ttt.pool import PoolState
from hdlrl.ttt.protocol import Policy, Sample
from hdlrl.serialize import to_jsonable
from hdlrl.verify.interface import InterfaceError, read_interface

# A program that is refused or fails to simulate earns REFUSED_REWARD / 2; text with no JSON object
# at all earns REFUSED_REWARD, so a model that cannot write programs yet still learns the format.
REFUSED_REWARD = -1.0
_UNCOVERED_SHOWN = 40


@dataclass
class CoverRunState:
    """What a checkpoint holds of the job besides the loop's state and the policy."""

    simulations: int = 0
    refused: int = 0
    code: dict[str, int] = field(default_factory=dict)  # point id -> hits over the run
    functional: dict[str, int] = field(default_factory=dict)  # bin id -> hits over the run
    killed: dict[str, int] = field(default_factory=dict)  # mutant index -> simulations when first killed
    corpus: list[Entry] = field(default_factory=list)
    curve: list[dict] = field(default_factory=list)  # after each simulation: items hit per metric, mutants killed
    feedback: list[str] = field(default_factory=list)
    unreachable: dict[str, str] = field(default_factory=dict)  # point id -> why no stimulus can reach it
    examined: list[str] = field(default_factory=list)  # uncovered point ids already tried for unreachability
    witnesses: dict[str, list[dict[str, int]] | None] = field(default_factory=dict)  # item -> solved inputs; None: none
    solve_depths: dict[str, int] = field(default_factory=dict)  # item -> the deepest check from reset it had
    chained: dict[str, list[str]] = field(default_factory=dict)  # item -> the items its checks started after


@dataclass
class Outcome:
    """One proposed program: simulated or refused."""

    sample: Sample
    program: StimulusProgram | None
    run: HarnessRun | None
    functional: dict[str, int]
    reason: str = ""
    reward: float = REFUSED_REWARD / 2  # when refused (run is None)


class CoverRun:
    kind, unit = "cover", "program"

    def __init__(self, design: Design, policy: Policy, flow: CoverFlow, run_dir: Path, seed: int = 0,
                 sandbox: bool | None = None, progress: bool = True):
        self.design, self.policy, self.flow = design, policy, flow
        self.run_dir = Path(run_dir)
        self.seed = seed
        self.sandbox = sandbox
        self.label = f"cover {design.name}"
        self.state = CoverRunState()
        settings = LoopSettings(flow.budget, groups=1, group_size=flow.group_size, advantage=flow.advantage,
                                kl_control=flow.kl_control)
        self.loop = SearchLoop(self, policy, settings, seed, self.run_dir, progress)
        self.sources = {relative_name(design, path): path.read_text(errors="replace") for path in design.rtl}
        self.token = secrets.token_hex(4)  # names this run's files in the shared harness folder

    # ------------------------------------------------------------------ set-up

    def prepare(self) -> None:
        """Interface, covergroups, mutants and the harness build (reused when unchanged)."""
        try:
            self.interface = read_interface(ToolRunner(self.run_dir / "interface", sandbox=self.sandbox,
                                                       readable=(self.design.root,)),
                                            list(self.design.rtl), self.design.top, list(self.design.include_dirs))
        except InterfaceError as error:
            raise HdlrlError(f"the design does not elaborate: {error}", self.design.root) from None
        self.space = StimulusSpace.of(self.design, self.interface, self.flow.reset_cycles, self.flow.max_cycles)
        self.groups = load_covergroups(self.design.root)
        self.functional_model = FunctionalCoverage(self.groups)
        expressions = sampled_expressions(self.groups)
        rtl = hashlib.sha256("".join(rtl_digest(path) for path in self.design.rtl).encode()).hexdigest()[:20]
        mutants_folder = user_cache_dir("cover-mutants", f"{self.design.name}-{rtl}-{self.flow.equivalence_time_s:g}s")
        live = [mutant for mutant in cover_mutants(self.design, self.interface, self.flow.mutants,
                                                   self.flow.mutant_seed, mutants_folder, self.flow.equivalence_time_s,
                                                   self.flow.workers, self.sandbox) if mutant.live]
        self.mutants: list[CoverMutant] = [mutant for mutant in live if mutant.screen == "runs"]  # in the harness
        self.hanging: list[CoverMutant] = [mutant for mutant in live if mutant.screen == "hangs"]
        self.unbuildable: list[CoverMutant] = []  # live, but the harness's simulator cannot build them
        self.sampled = tuple(scoped(expression, "hdlrl_dut") for expression in expressions)
        self.harness: Harness = self._build(self.flow.simulator)
        self.clock = self.design.clocks[0].name if self.design.clocks else None
        top = top_module_line(self.sources, self.design.top)
        self.bin_targets = bin_targets(self.groups, *top, self.clock) if top else {}

    def _build(self, simulator: str) -> Harness:
        """One build per distinct harness, shared by every run of it (policies, seeds, resumed runs).

        A mutant the simulator cannot build (Verilator refuses a loop it cannot unroll, which
        Icarus runs) leaves the harness and the build is tried again; where the design itself
        does not build on Verilator, Icarus, with functional coverage only.
        """
        spec = HarnessSpec(self.design, self.interface, self.space.ports, self.sampled,
                           tuple({mutant.file: mutant.text} for mutant in self.mutants), self.flow.max_cycles)
        folder = user_cache_dir("cover-harness", spec_digest(spec, simulator)[:20])
        try:
            return build_harness(spec, folder, simulator, self.sandbox)
        except HarnessBuildError as error:
            index = mutant_named_in(str(error))
            if index is not None and index < len(self.mutants):
                self.unbuildable.append(self.mutants.pop(index))
                return self._build(simulator)
            if simulator != "verilator":
                raise
            warnings.warn(f"{self.design.name}: Verilator cannot build the coverage harness ({error}); "
                          "falling back to Icarus: functional coverage and mutant kills only, no code coverage",
                          ToolWarning, stacklevel=2)
            return self._build("icarus")

    # ------------------------------------------------------------------ one program

    def functional_hits(self, run: HarnessRun) -> dict[str, int]:
        return run_hits(self.groups, self.clock, run.samples)

    def _simulate(self, sample: Sample, name: str, fallback_seed: int) -> Outcome:
        try:
            program = parse_program(sample.text, self.space, sample.metadata.get("seed", fallback_seed),
                                    sample.action or self.policy.name)
        except ProgramError as error:
            return Outcome(sample, None, None, {}, f"refused: {error}",
                           REFUSED_REWARD / 2 if error.read_json else REFUSED_REWARD)
        run = self.harness.run(render(program, self.space), name, self.flow.simulation_time_s)
        if not run.ok:
            return Outcome(sample, program, None, {}, run.reason)
        return Outcome(sample, program, run, self.functional_hits(run))

    def _items(self, outcome: Outcome) -> set[str]:
        items = {point_id for point_id, count in outcome.run.coverage.items() if count}
        return items | {f"functional|{bin_id}" for bin_id, count in outcome.functional.items() if count}

    def _reward(self, outcome: Outcome, covered: set[str], killed: set[int]) -> float:
        """Weighted fraction of each metric's points this program is the first to hit, plus
        (objective `mutants`) the weighted fraction of live mutants it is the first to kill."""
        totals = self.totals()
        reward = 0.0
        for item in self._items(outcome) - covered:
            metric = item.partition("|")[0]
            reward += self.flow.reward_weights.get(metric, 0.0) / max(totals.get(metric, 1), 1)
        if self.flow.objective == "mutants" and self.mutants:
            reward += self.flow.mutant_weight * len(set(outcome.run.killed) - killed) / len(self.mutants)
        return reward

    # ------------------------------------------------------------------ coverage so far

    def totals(self) -> dict[str, int]:
        """Points per metric (functional: bins)."""
        summary = summarise(self.state.code)
        return {**{metric: entry.total for metric, entry in summary.items()},
                "functional": len(self.functional_model.hits())}

    def covered(self) -> set[str]:
        return ({point_id for point_id, count in self.state.code.items() if count}
                | {f"functional|{bin_id}" for bin_id, count in self.state.functional.items() if count})

    def fractions(self) -> dict[str, float | None]:
        """Coverage per metric over the reachable points."""
        summary: dict[str, MetricSummary] = summarise(self.state.code, frozenset(self.state.unreachable))
        values: dict[str, float | None] = {metric: entry.fraction for metric, entry in summary.items()}
        values["functional"] = fraction(self.state.functional) if self.groups else None
        if not self.harness.code_coverage:
            values.update(line=None, branch=None, toggle=None)
        return values

    def hits_per_metric(self) -> dict[str, int]:
        return dict(Counter(item.partition("|")[0] for item in self.covered()))

    def curve(self) -> list[dict]:
        """Coverage after each simulation, per metric and overall, over the points reachable as
        finally known (a point shown unreachable late leaves the whole curve's denominator)."""
        totals = self.totals()
        for point_id in self.state.unreachable:
            totals[point_id.partition("|")[0]] -= 1
        reachable = sum(totals.values())
        points = []
        for entry in self.state.curve:
            hits = entry["hits"]
            fractions = {metric: hits.get(metric, 0) / total if total else None for metric, total in totals.items()}
            if not self.harness.code_coverage:
                fractions.update(line=None, branch=None, toggle=None)
            if not self.groups:
                fractions["functional"] = None
            points.append({"simulations": entry["simulations"], **fractions,
                           "overall": sum(hits.values()) / reachable if reachable else 1.0,
                           "mutation_score": (entry["killed"] + len(self.hanging)) / (len(self.mutants) + len(self.hanging))
                           if self.mutants or self.hanging else None})
        return points

    def overall(self) -> float:
        """The reachable items hit over every metric (points and functional bins): what the reward counts."""
        reachable = sum(self.totals().values()) - len(self.state.unreachable)
        hit = len(self.covered() - set(self.state.unreachable))
        return hit / reachable if reachable else 1.0

    def mutation_score(self) -> float | None:
        """Live mutants killed over live mutants; one that hangs a simulation counts as killed (any
        stimulus under the simulation time limit kills it), as in mutation testing tools."""
        live = len(self.mutants) + len(self.hanging)
        return (len(self.state.killed) + len(self.hanging)) / live if live else None

    @property
    def targets(self) -> dict[str, float]:
        return design_targets(self.flow.targets, self.design.root, bool(self.groups))

    def targets_met(self) -> bool:
        return targets_met(self.fractions(), self.targets)

    def examine_uncovered(self) -> None:
        """Show uncovered points not tried before unreachable, or waived: they leave the metrics, listed."""
        untried = [point_id for point_id, count in sorted(self.state.code.items())
                   if not count and point_id not in self.state.examined]
        if untried:
            self.state.unreachable.update(unreachable_points(self.design, untried, self.run_dir / "unreachable",
                                                             self.flow.proof_time_s, self.sandbox,
                                                             self.flow.unreachable_budget_s))
            self.state.examined += untried

    def cover_state(self) -> CoverState:
        uncovered_code = [point_id for point_id, count in sorted(self.state.code.items()) if not count
                          and not point_id.startswith("toggle|") and point_id not in self.state.unreachable]
        uncovered_bins = [bin_id for bin_id, count in sorted(self.state.functional.items()) if not count]
        if not self.state.functional:
            uncovered_bins = sorted(self.functional_model.hits())
        inputs = {port.name: port.width for port in self.space.ports}
        steering = {point_id: values for point_id in uncovered_code
                    if (values := steering_values(point_id, self.sources, inputs))}
        uncovered = [*uncovered_code, *uncovered_bins]
        if getattr(self.policy, "replays_solved_sequences", False):  # the cdg policy; no other reads them
            self.solve_some(uncovered)
        return CoverState(self.design.name, self.design.description, self.sources, inputs,
                          self.space.reset.name if self.space.reset else None, self.fractions(),
                          uncovered[:_UNCOVERED_SHOWN], steering, list(self.state.feedback), f"step{self.loop.state.step}",
                          {item: rows for item in uncovered if (rows := self.state.witnesses.get(item))},
                          stretch_lengths(uncovered, self.sources, inputs, self.groups, self.space.program_cycles),
                          max(filter(None, self.state.witnesses.values()), key=len, default=[]))

    def solve_some(self, uncovered: list[str]) -> None:
        """Model-check uncovered items that have a condition to check, as many as
        `hdlrl.cover.solve.check_plan` allows a step, in the order of `due_checks`; an item
        keeps its input sequence, or None."""
        flow, state, checks = self.flow, self.state, 0
        plan = check_plan(flow.solve_depth, flow.solve_deepenings, flow.solves_per_step, self.design.is_combinational)
        for check in due_checks(uncovered, plan, state.witnesses, state.solve_depths, state.chained,
                                list(self.bin_targets)):
            prefix = state.witnesses.get(check.prefix) if check.prefix else []
            if checks == plan.per_step or prefix is None:  # None: the check before it in its chain found nothing
                continue
            functional = "|" not in check.item  # a bin or a waypoint to one; a point id is metric|file|...
            target = self.bin_targets.get(check.item) if functional else code_target(check.item, self.sources)
            checks += target is not None
            if check.prefix is None:
                state.solve_depths[check.item] = check.depth if target is not None else GIVEN_UP
            else:
                state.chained.setdefault(check.item, []).append(check.prefix)
            state.witnesses[check.item] = None if target is None else solve(
                self.design, target, self.space.ports, self.run_dir / "solve" / f"step{self.loop.state.step}_{checks}",
                check.depth, flow.solve_time_s, self.sandbox, prefix)

    # ------------------------------------------------------------------ the job

    def start(self) -> list[PoolState]:
        """The pool's one state: the design, whose coverage the run raises."""
        self.prepare()
        return [PoolState("s00000", dict(self.sources), 0.0, initial=True)]

    def view(self, state: PoolState, drawn: list[Group]) -> CoverState:
        return self.cover_state()

    def judge(self, step: int, groups: list[Group]) -> list[list[Judged]]:
        """Simulate every program in parallel, then reward each, in order, by what it adds to the
        coverage of the run so far (earlier programs of the step included)."""
        samples = [sample for group in groups for sample in group.samples]
        with ThreadPoolExecutor(max_workers=self.flow.workers) as pool:
            outcomes = list(pool.map(lambda pair: self._simulate(pair[1], f"{self.token}_s{step}_{pair[0]}",
                                                                 self.seed * 1_000_003 + step * 1000 + pair[0]),
                                     enumerate(samples)))
        covered = self.covered()
        killed = {int(index) for index in self.state.killed}
        judged = [self._judged(outcome, covered, killed) for outcome in outcomes]
        missed = [item for sample in samples for item in sample.metadata.get("solved", [])
                  if item not in covered and f"functional|{item}" not in covered]
        self.state.witnesses.update(dict.fromkeys(missed))  # a solved sequence that missed is not offered again,
        self.state.solve_depths.update(dict.fromkeys(missed, GIVEN_UP))  # nor solved for again
        if self.harness.code_coverage and not any(verdict.row.get("new_items") for verdict in judged):
            self.examine_uncovered()  # coverage stalled: some holes may have no way in
        return [judged]

    def _judged(self, outcome: Outcome, covered: set[str], killed: set[int]) -> Judged:
        """One program's reward and row; `covered` and `killed` grow by what it reached."""
        if outcome.run is None:
            self.state.refused += outcome.program is None
            self.state.feedback = (self.state.feedback + [outcome.reason])[-self.flow.feedback_lines:]
            return Judged(outcome.reward, {"kind": "program", "action": outcome.sample.action,
                                           "reward": outcome.reward, "reason": outcome.reason})
        reward = self._reward(outcome, covered, killed)
        self.state.simulations += 1
        items = self._items(outcome)
        new_items, new_kills = items - covered, set(outcome.run.killed) - killed
        if new_items or new_kills:
            self.state.corpus.append(Entry(outcome.program.to_json(), outcome.program.seed,
                                           outcome.program.origin, sorted(items), sorted(outcome.run.killed)))
        self.state.code = merge_checked(self.state.code, outcome.run.coverage, self.state.unreachable)
        self.state.functional = merge_hits(self.state.functional, outcome.functional)
        for mutant in new_kills:
            self.state.killed[str(mutant)] = self.state.simulations
        covered |= items
        killed |= new_kills
        self.state.curve.append({"simulations": self.state.simulations, "hits": self.hits_per_metric(),
                                 "killed": len(self.state.killed)})
        return Judged(reward, {"kind": "program", "action": outcome.sample.action, "reward": reward,
                               "new_items": len(new_items), "new_kills": len(new_kills),
                               "cycles": outcome.program.cycles})

    def step_summary(self, rows: list[dict]) -> dict:
        return {"simulations": self.state.simulations, **self.fractions(), "mutation_score": self.mutation_score()}

    def postfix(self) -> dict[str, str]:
        return {metric: f"{value:.2f}" for metric, value in self.fractions().items() if value is not None}

    def finished(self) -> bool:
        return self.flow.stop_at_targets and self.state.simulations > 0 and self.targets_met()

    def resume_settings(self) -> dict:
        return {"design": self.design.name, "rtl": [rtl_digest(path) for path in self.design.rtl],
                "flow": hashlib.sha256(repr(replace(self.flow, budget=0)).encode()).hexdigest()}

    def save(self, folder: Path) -> None:
        (folder / "run_state.json").write_text(json.dumps(to_jsonable(self.state)))

    def load(self, folder: Path) -> None:
        """Continue from a checkpoint folder: the set-up is redone (the harness build is cached)."""
        self.prepare()
        data = json.loads((folder / "run_state.json").read_text())
        self.state = CoverRunState(**{**data, "corpus": [Entry(**entry) for entry in data["corpus"]]})

    # ------------------------------------------------------------------ the run

    def run(self, resume: bool = False) -> None:
        """Steps until the budget is spent or every target holds (the rest when resuming)."""
        self.loop.run(resume)
        if self.harness.code_coverage:
            self.examine_uncovered()

    @property
    def proposed(self) -> int:
        """Programs the policy proposed (the budget counts these)."""
        return self.loop.state.spent
