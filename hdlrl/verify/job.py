"""One gate verdict as a job: picklable for process pools and Ray, answered from the cache.

The cache key covers the candidate's exact bytes, the reference sources, the testbench, the
gate flow (which holds the evaluation flow), the PDK and the tool versions, so a verdict is
reused only when nothing that could change it has changed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.toolchain import tool_versions
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import cache_key, cached_result, file_digest
from hdlrl.evaluate.cascade import TOOLS
from hdlrl.eda.synth.yosys import SynthOptions
from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.pdk import Pdk
from hdlrl.verify.gate_flow import GateFlow
from hdlrl.verify.gate import Progress, Verdict, gate, implausible_gain, reference_ppa_of
from hdlrl.verify.interface import InterfaceError
from hdlrl.verify.reward import accepted_reward, rejected_reward

GATE_SCHEMA = 7  # bump when Verdict or the gate's stages change meaning (7: fast identity; 6: body parameters)


@dataclass(frozen=True)
class GateJob:
    design: Design  # the reference design
    candidate: tuple[Path, ...]
    pdk: Pdk
    flow: GateFlow
    cache_path: Path | None = None
    sandbox: bool | None = None
    with_ppa: bool = True
    synthesis: SynthOptions | None = None  # the candidate's recipe; None: the flow's. The reference keeps the flow's

    def key(self) -> str:
        extra = {"kind": "gate", "schema": GATE_SCHEMA, "with_ppa": self.with_ppa,
                 "reference": [file_digest(path) for path in self.design.rtl],
                 "synthesis": asdict(self.synthesis) if self.synthesis else None}
        return cache_key(self.design.with_rtl(self.candidate), self.pdk, self.flow, tool_versions(TOOLS), extra)

    def run(self) -> Verdict:
        return run_gate_job(self)


def _judge_under_recipe(job: GateJob, progress: Progress | None) -> Verdict:
    """The RTL's verdict under the flow's recipe, its PPA measured again under the job's.

    Verification does not depend on the synthesis recipe, so every recipe of one RTL shares
    its (cached) proofs; only synthesis and timing run again.
    """
    verdict = run_gate_job(replace(job, synthesis=None), progress)
    if not (verdict.accepted and job.with_ppa):
        return verdict
    evaluation = replace(job.flow.evaluation, synthesis=job.synthesis)
    measured = run_job(EvalJob(job.design.with_rtl(job.candidate), job.pdk, evaluation, job.cache_path, job.sandbox,
                               ppa_only=True))
    if not measured.verified:
        return replace(verdict, accepted=False, stage="ppa", reason=measured.reason, reward=rejected_reward("ppa"))
    ratio = measured.ppa.normalised_to(verdict.reference_ppa, job.design.objective)
    implausible = implausible_gain(ratio, verdict.level, job.flow.max_unproven_gain)
    if implausible:
        return replace(verdict, accepted=False, stage="ppa", reason=implausible, reward=rejected_reward("ppa"))
    return replace(verdict, ppa=measured.ppa, ppa_ratio=ratio, reward=accepted_reward(ratio))


def _judge(job: GateJob, progress: Progress | None) -> Verdict:
    if job.synthesis is not None:
        return _judge_under_recipe(job, progress)
    reference_ppa = None
    if job.with_ppa:  # from the cache when judged before
        if progress:
            progress("reference")
        reference = run_job(EvalJob(job.design, job.pdk, job.flow.evaluation, job.cache_path, job.sandbox))
        reference_ppa = reference_ppa_of(reference, job.design)
    try:
        return gate(job.design, job.candidate, job.pdk, job.flow, reference_ppa=reference_ppa,
                    with_ppa=job.with_ppa, sandbox=job.sandbox, progress=progress)
    except InterfaceError as error:
        raise HdlrlError(f"the reference does not elaborate: {error}", job.design.root / "design.yaml") from None


def run_gate_job(job: GateJob, progress: Progress | None = None) -> Verdict:
    """The verdict on `job.candidate`, from the cache when the same inputs were judged before;
    `progress` hears the stages that run (none for a cached verdict)."""
    return cached_result(job.cache_path, job.key, Verdict, lambda: _judge(job, progress))
