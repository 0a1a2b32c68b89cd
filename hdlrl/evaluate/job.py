"""One unit of evaluation work, and the function every executor runs on it.

A job carries plain, picklable values (the design, the PDK, the flow, the cache file) so the
same function runs in-process, in a process pool or on a Ray worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from hdlrl.design import Design
from hdlrl.eda.toolchain import tool_versions
from hdlrl.evaluate.cache import cache_key, cached_result
from hdlrl.evaluate.cascade import TOOLS, evaluate
from hdlrl.evaluate.eval_flow import EvalFlow
from hdlrl.evaluate.result import EvalResult
from hdlrl.pdk import Pdk


@dataclass(frozen=True)
class EvalJob:
    design: Design
    pdk: Pdk
    flow: EvalFlow
    cache_path: Path | None = None  # None: no cache
    sandbox: bool | None = None  # None: bubblewrap where installed
    with_ppa: bool = True  # False: stop once the testbench passed
    ppa_only: bool = False  # True: synthesis and timing only, for RTL the gate verified (another recipe)

    def run(self) -> EvalResult:
        return run_job(self)


class Job(Protocol):
    """Any unit of work an executor can run: an evaluation, a gate verdict, ..."""

    def run(self) -> Any:
        ...


def execute(job: Job) -> Any:
    """What every executor calls (a module-level function, so process pools can pickle it)."""
    return job.run()


def run_job(job: EvalJob) -> EvalResult:
    """Evaluate `job`, answering from the cache when the same inputs were evaluated before."""
    def key() -> str:
        return cache_key(job.design, job.pdk, job.flow, tool_versions(TOOLS),
                         {"with_ppa": job.with_ppa, **({"ppa_only": True} if job.ppa_only else {})})

    return cached_result(job.cache_path, key, EvalResult,
                         lambda: evaluate(job.design, job.pdk, job.flow, sandbox=job.sandbox, with_ppa=job.with_ppa,
                                          ppa_only=job.ppa_only))
