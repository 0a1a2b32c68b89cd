"""The verification gate: one candidate against its design's reference, one `Verdict`.

Stages run cheapest first and stop at the first rejection, so a broken candidate costs a
parse, not a proof:

    screen -> parse -> elaborate -> interface lock -> lint and structure -> the design's
    testbench -> differential simulation against the reference -> formal equivalence -> PPA

A candidate whose preprocessed source is token for token the reference's is proven after the
interface lock, with the reference's PPA: every tool reads the same text the same way and
simulation and synthesis are deterministic, so it is the reference (`hdlrl/verify/identity.py`).

A candidate is accepted only when every stage passes and the equivalence level reached is
one the flow accepts; "failed" (a counterexample) never is, and a proof that timed out is
"unknown", which leaves the level at what simulation showed ("simulated").
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import evaluate, lint_sources, measure_ppa, run_testbench, screen_design
from hdlrl.evaluate.result import PPA, EvalResult
from hdlrl.evaluate.staging import ViewRefusal, build_view, stage_scratch
from hdlrl.hdl.view import PreprocessRecord
from hdlrl.pdk import Pdk
from hdlrl.serialize import JsonRecord, to_jsonable
from hdlrl.verify.diffsim import Mismatch, differential_simulation
from hdlrl.verify.equivalence import check_equivalence
from hdlrl.verify.gate_flow import GateFlow
from hdlrl.verify.identity import same_tokens
from hdlrl.verify.interface import Interface, InterfaceError, interface_differences, read_interface, yosys_error
from hdlrl.verify.reward import accepted_reward, rejected_reward
from hdlrl.verify.structure import StructureIssue, check_structure

REFERENCE_DIR = "reference"
NOT_DECIDED = "not decided: the gate has not finished"  # a verdict's reason until a stage decides it
Progress = Callable[[str], None]  # told the name of each stage as it starts


@dataclass
class Evidence:
    """What a rejection (or an acceptance) rests on, for the policy's feedback and for people."""

    interface_differences: list[str] = field(default_factory=list)
    structure_issues: list[StructureIssue] = field(default_factory=list)
    testbench_fail_lines: list[str] = field(default_factory=list)
    mismatch: Mismatch | None = None
    counterexample: list[dict[str, str]] | None = None


@dataclass
class Verdict(JsonRecord):
    design: str
    accepted: bool
    stage: str  # the stage that rejected the candidate, or "done"
    level: str  # proven, bounded(N), simulated, failed, or none (rejected before simulation)
    reason: str  # one sentence: the check that decided and its evidence, never empty
    level_reason: str = ""  # what the level rests on: the proof's method, or why no proof finished
    reward: float = 0.0  # the hierarchical dense reward (hdlrl/verify/reward.py)
    testbench_passed: bool | None = None
    differential_agreement: float | None = None
    differential_seed: int | None = None
    differential_cycles: int = 0
    simulator: str | None = None
    ppa: PPA | None = None
    reference_ppa: PPA | None = None
    ppa_ratio: float | None = None  # candidate PPA product / reference's: below 1 is better
    evidence: Evidence = field(default_factory=Evidence)
    preprocessing: PreprocessRecord | None = None  # how the one view every tool read was made
    timed_out: bool = False  # some tool ran out of its CPU budget: a machine fact, never cached
    sandboxed: bool = False
    wall_s: float = 0.0
    tool_s: float = 0.0  # of wall_s, the time inside the EDA tools (the rest is the gate's own work)
    cache_key: str = ""
    cached: bool = False

    def __setattr__(self, name: str, value: object) -> None:
        """Refuse an empty reason at construction and at every later assignment: a verdict a
        person or a policy cannot read the why of is a bug, caught where it is made."""
        if name == "reason" and not str(value).strip():
            raise ValueError("a verdict needs a reason: the check that decided it and its evidence")
        super().__setattr__(name, value)

    def summary(self) -> dict:
        """The machine-readable answer of `hdlrl gate --json`."""
        return {
            "design": self.design, "accepted": self.accepted, "stage": self.stage, "level": self.level,
            "reason": self.reason, "level_reason": self.level_reason, "reward": round(self.reward, 6),
            "testbench_passed": self.testbench_passed,
            "differential_agreement": self.differential_agreement,
            "differential_seed": self.differential_seed, "differential_cycles": self.differential_cycles,
            "simulator": self.simulator,
            "ppa": to_jsonable(self.ppa) if self.ppa else None,
            "reference_ppa": to_jsonable(self.reference_ppa) if self.reference_ppa else None,
            "ppa_ratio": self.ppa_ratio,
            "evidence": to_jsonable(self.evidence),
            "preprocessing": to_jsonable(self.preprocessing) if self.preprocessing else None,
            "timed_out": self.timed_out,
            "sandboxed": self.sandboxed, "cached": self.cached, "wall_s": round(self.wall_s, 4),
            "tool_s": round(self.tool_s, 4),
        }


def _reject(verdict: Verdict, stage: str, reason: str, progress: float = 0.0) -> Verdict:
    verdict.stage, verdict.reason = stage, reason
    verdict.reward = rejected_reward(stage, progress)
    return verdict


def _stage_reference(design: Design, scratch: Path) -> list[Path]:
    """The reference RTL under scratch/reference/, apart from the candidate's copies."""
    placed = []
    for path in design.rtl:
        relative = Path(REFERENCE_DIR) / path.relative_to(design.root)
        (scratch / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, scratch / relative)
        placed.append(relative)
    return placed


def _elaboration_failure(runner: ToolRunner, sources: list[Path], includes: list[Path], error: InterfaceError,
                         top: str, staged: list[Path]) -> tuple[str, str]:
    """("parse" or "elaborate", reason): re-read without `hierarchy` to tell which failed. `staged`
    are the candidate's own files, named when none of them defines the top module."""
    if error.fault:
        return "elaborate", f"undecided: {error}"
    run = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join(read_commands(sources, includes))])
    if not run.ok:
        return "parse", yosys_error(runner, run, sources, str(error))
    if str(error) == f"Module `{top}' not found!":
        others = f", nor do the other {len(staged) - 1} candidate files" if len(staged) > 1 else ""
        return "elaborate", f"{staged[0]}:1: defines no module {top} (the design's top){others}"
    return "elaborate", str(error)


def reference_ppa_of(reference: EvalResult, design: Design) -> PPA:
    """The PPA of the reference's evaluation; a reference that fails it is bad input."""
    if not reference.verified:
        raise HdlrlError(f"the reference itself fails the evaluation at {reference.stage}: {reference.reason}",
                         design.root / "design.yaml")
    return reference.ppa


def gate(design: Design, candidate: tuple[Path, ...], pdk: Pdk, flow: GateFlow, reference: Interface | None = None,
         reference_ppa: PPA | None = None, with_ppa: bool = True, sandbox: bool | None = None,
         progress: Progress | None = None) -> Verdict:
    """Judge `candidate` (RTL files replacing `design.rtl`) against the design's reference.

    `reference` and `reference_ppa` may be passed in when judging many candidates of one
    design; otherwise they are measured here. `with_ppa=False` stops after equivalence
    (mutation scoring needs the verdict, not the PPA). `progress` hears each stage start: a
    correct candidate takes a minute, which a person waiting should see being spent.
    """
    started = time.perf_counter()
    progress = progress or (lambda stage: None)
    if with_ppa and reference_ppa is None:
        progress("reference")
        reference_ppa = reference_ppa_of(evaluate(design, pdk, flow.evaluation, sandbox=sandbox), design)
    scratch = Path(tempfile.mkdtemp(prefix=f"hdlrl-gate-{design.name}-"))
    evaluation = flow.evaluation
    runner = ToolRunner(scratch, evaluation.limits, sandbox=sandbox, readable=(pdk.liberty,))
    verdict = Verdict(design.name, False, "screen", "none", NOT_DECIDED, sandboxed=runner.sandboxed,
                      reference_ppa=reference_ppa)
    try:
        _run_gate(design, design.with_rtl(candidate), pdk, flow, runner, reference, with_ppa, verdict, progress)
    finally:
        verdict.timed_out = verdict.timed_out or any(run.timed_out for run in runner.history)
        verdict.tool_s = sum(run.wall_s for run in runner.history)
        verdict.wall_s = time.perf_counter() - started
        shutil.rmtree(scratch, ignore_errors=True)
    return verdict


def _run_gate(design: Design, candidate: Design, pdk: Pdk, flow: GateFlow, runner: ToolRunner,
              reference: Interface | None, with_ppa: bool, verdict: Verdict, progress: Progress) -> None:
    progress("screen")
    refusal = screen_design(candidate)
    if refusal:
        _reject(verdict, "screen", refusal)
        return
    progress("preprocess")
    scratch = runner.scratch
    rtl, testbench, includes = stage_scratch(candidate, scratch)
    try:
        reference_view, _ = build_view(runner, _stage_reference(design, scratch), includes, REFERENCE_DIR,
                                       reference=True)
    except ViewRefusal as refusal:
        raise HdlrlError(f"the reference is refused: {refusal}", design.root / "design.yaml") from None
    try:
        view, verdict.preprocessing = build_view(runner, rtl, includes, "candidate")
    except ViewRefusal as refusal:
        _reject(verdict, refusal.stage, str(refusal))
        return
    staged, rtl, reference_rtl = rtl, [view], [reference_view]
    progress("interface")
    if reference is None:
        try:
            reference = read_interface(runner, reference_rtl, design.top, includes, "reference_interface.json")
        except InterfaceError as error:
            if not error.fault:
                raise  # the reference itself does not elaborate: bad input, not a verdict
            _reject(verdict, "interface", f"undecided: the reference's {error}")
            return
    try:
        interface = read_interface(runner, rtl, design.top, includes)
    except InterfaceError as error:
        stage, reason = _elaboration_failure(runner, rtl, includes, error, design.top, staged)
        _reject(verdict, stage, reason)
        return
    differences = interface_differences(reference, interface)
    if differences:
        verdict.evidence.interface_differences = differences
        _reject(verdict, "interface", "interface changed: " + "; ".join(differences))
        return

    tokens = same_tokens((scratch / reference_view).read_text(errors="replace"),
                         (scratch / view).read_text(errors="replace"))
    if tokens is not None:
        verdict.level = "proven"
        verdict.level_reason = f"identical source: {tokens} tokens the same as the reference's"
        acceptance = f"proven equivalent: the preprocessed source is token for token the reference's ({tokens} tokens)"
    else:
        acceptance = _verify(design, candidate, flow, runner, reference, (reference_rtl, rtl, testbench, includes),
                             verdict, progress)
        if acceptance is None:
            return
    if with_ppa:
        progress("ppa")
        if tokens is not None and verdict.reference_ppa is not None:
            verdict.ppa, verdict.ppa_ratio = verdict.reference_ppa, 1.0  # the reference's synthesis, deterministic
        elif not _measure_ppa(design, candidate, pdk, flow, runner, rtl, includes, verdict):
            return
    implausible = implausible_gain(verdict.ppa_ratio, verdict.level, flow.max_unproven_gain)
    if implausible:
        _reject(verdict, "ppa", implausible)
        return
    verdict.accepted, verdict.stage, verdict.reason = True, "done", acceptance
    verdict.reward = accepted_reward(verdict.ppa_ratio if verdict.ppa_ratio is not None else 1.0)


def _measure_ppa(design: Design, candidate: Design, pdk: Pdk, flow: GateFlow, runner: ToolRunner, rtl: list[Path],
                 includes: list[Path], verdict: Verdict) -> bool:
    """Synthesise and time the candidate into `verdict`; False (and the verdict rejected) when that fails."""
    measured = EvalResult(design.name, design.top, pdk.name, False, "synthesize", "")
    measure_ppa(runner, rtl, candidate, includes, pdk, flow.evaluation, measured)
    if not measured.verified:
        _reject(verdict, "ppa", measured.reason)
        return False
    verdict.ppa = measured.ppa
    if verdict.reference_ppa is not None:
        verdict.ppa_ratio = measured.ppa.normalised_to(verdict.reference_ppa, design.objective)
    return True


def _verify(design: Design, candidate: Design, flow: GateFlow, runner: ToolRunner, reference: Interface,
            paths: tuple[list[Path], list[Path], list[Path], list[Path]], verdict: Verdict,
            progress: Progress) -> str | None:
    """Structure, lint, testbench, differential simulation and equivalence: the acceptance's reason
    (`verdict.level` set), or None with the verdict rejected. `paths`: the reference's view, the
    candidate's, the testbench and the include folders, staged."""
    reference_rtl, rtl, testbench, includes = paths
    progress("structure")
    structure = check_structure(runner, rtl, design.top, includes)  # first: its reasons are the precise ones
    if not structure.ok:
        verdict.evidence.structure_issues = structure.issues
        _reject(verdict, "structure", structure.reason)
        return None
    progress("lint")
    lint = lint_sources(runner, rtl, design.top, includes, flow.evaluation)
    if lint and not lint[-1].ok:
        _reject(verdict, "structure", lint[-1].reason)
        return None

    progress("testbench")
    simulation = run_testbench(candidate, runner, rtl, testbench, includes, flow.evaluation)
    verdict.simulator = simulation.simulator
    verdict.testbench_passed = simulation.passed
    if not simulation.passed:
        verdict.evidence.testbench_fail_lines = simulation.fail_lines
        _reject(verdict, "testbench", simulation.reason)
        return None

    progress("differential")
    differential = differential_simulation(runner, design, reference, reference_rtl, rtl, includes, flow.differential)
    verdict.differential_seed, verdict.differential_cycles = differential.seed, differential.cycles
    verdict.differential_agreement = differential.agreement if differential.ran else 0.0
    if not differential.ran or not differential.agreed:
        verdict.level = "failed" if differential.ran else "none"
        verdict.evidence.mismatch = differential.first_mismatch
        _reject(verdict, "differential", differential.reason, verdict.differential_agreement)
        return None

    progress("equivalence")
    equivalence = check_equivalence(runner, design, reference, reference_rtl, rtl, includes, flow.equivalence)
    verdict.evidence.counterexample = equivalence.counterexample
    verdict.timed_out = equivalence.timed_out  # also when the budget was spent between two of its runs
    if equivalence.level == "failed":
        verdict.level = "failed"
        _reject(verdict, "equivalence", equivalence.reason)
        return None
    if equivalence.level == "unknown" and not equivalence.timed_out:
        _reject(verdict, "equivalence", f"equivalence undecided ({equivalence.method}): {equivalence.reason}")
        return None
    every = ", every input value among them" if differential.exhaustive else ""
    if equivalence.level == "unknown":
        verdict.level = "simulated"
        verdict.level_reason = (f"no proof within the budget ({equivalence.reason}); the differential simulation "
                                f"agreed on {differential.cycles} cycles{every}")
        acceptance = f"simulated {differential.cycles:,} cycles equal to the reference{every}; {equivalence.reason}"
    else:
        verdict.level = equivalence.label
        verdict.level_reason = f"{equivalence.method}: {equivalence.reason}"
        claim = "proven equivalent" if equivalence.level == "proven" else "bounded equivalence"
        acceptance = f"{claim} by {equivalence.method}: {equivalence.reason}"  # no time: the same on any load
    level_name = verdict.level.split("(")[0]
    if level_name not in flow.accept_levels:
        _reject(verdict, "equivalence", f"equivalence reached only {verdict.level} "
                f"(accepted: {', '.join(flow.accept_levels)}): {equivalence.reason}".rstrip(": "))
        return None
    return acceptance


def implausible_gain(ppa_ratio: float | None, level: str, max_unproven_gain: float) -> str:
    """Why a PPA gain is too good to take without a proof, or "".

    A candidate that only simulated (or was checked to a bounded depth) and claims more than
    `max_unproven_gain` times better PPA than the reference has most likely dropped logic the
    stimulus never exercised; it must be proven to be believed."""
    if ppa_ratio is None or level == "proven" or ppa_ratio * max_unproven_gain >= 1:
        return ""
    return (f"implausible: {1 / ppa_ratio:.1f}x better PPA than the reference at level {level}; "
            f"a gain above {max_unproven_gain:g}x must be proven")
