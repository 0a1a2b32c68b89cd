"""One unit of evaluation work, and the function every executor runs on it.

A job carries plain, picklable values (the design, the PDK, the flow, the cache file) so the
same function runs in-process, in a process pool or on a Ray worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.toolchain import tool_versions
from hdlrl.evaluate.cache import ResultCache, cache_key
from hdlrl.evaluate.cascade import TOOLS, evaluate
from hdlrl.evaluate.flow import EvalFlow
from hdlrl.evaluate.result import EvalResult
from hdlrl.pdk import Pdk


@dataclass(frozen=True)
class EvalJob:
    design: Design
    pdk: Pdk
    flow: EvalFlow
    cache_path: Path | None = None  # None: no cache
    sandbox: bool | None = None  # None: bubblewrap where installed


def run_job(job: EvalJob) -> EvalResult:
    """Evaluate `job`, answering from the cache when the same inputs were evaluated before."""
    if job.cache_path is None:
        return evaluate(job.design, job.pdk, job.flow, sandbox=job.sandbox)
    key = cache_key(job.design, job.pdk, job.flow, tool_versions(TOOLS))
    cache = ResultCache(job.cache_path)
    try:
        hit = cache.get(key)
        if hit is not None:
            return hit
        result = evaluate(job.design, job.pdk, job.flow, sandbox=job.sandbox)
        result.cache_key = key
        cache.put(key, result)
        return result
    finally:
        cache.close()
