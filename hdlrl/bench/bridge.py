"""`hdlrl bench eval`: what the bridge costs on top of the tools, and what it buys.

Three measurements, each side by side in one process so machine noise hits both arms:
1. overhead: per candidate, the cascade's wall time against the raw time of the very
   same tool invocations replayed with plain `subprocess.run` (no sandbox, no limits,
   no Python around them), alternating cascade and replay;
2. parallel speedup: the same candidates through a 1-worker and a 2-worker executor;
3. cache-hit latency: `run_job` answered from the sqlite cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from hdlrl.design import Design, load_design
from hdlrl.evaluate.cascade import evaluate
from hdlrl.evaluate.executors.local import LocalExecutor
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.pdk import get_pdk


def candidates(design: Design, count: int, folder: Path) -> list[Design]:
    """`count` copies of the design, each a distinct file (a unique comment) so none is shared."""
    designs = []
    for index in range(count):
        sources = []
        for path in design.rtl:
            target = folder / f"candidate{index}" / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"// candidate {index}\n" + path.read_text())
            sources.append(target)
        designs.append(design.with_rtl(tuple(sources)))
    return designs


def replay(calls: list[list[str]], scratch: Path) -> float:
    """Wall time of running `calls` one after another in `scratch`, as a user would by hand."""
    started = time.perf_counter()
    for argv in calls:
        subprocess.run(argv, cwd=scratch, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def measure_overhead(designs: list[Design], pdk, flow, sandbox: bool | None) -> dict:
    cascade_times, raw_times = [], []
    for design in designs:
        scratch = Path(tempfile.mkdtemp(prefix="hdlrl-bench-"))
        try:
            result = evaluate(design, pdk, flow, sandbox=sandbox, keep_scratch=scratch)
            if not result.verified:
                raise RuntimeError(f"benchmark design failed: {result.reason}")
            cascade_times.append(result.wall_s)
            raw_times.append(replay([call.argv for call in result.tool_calls], scratch))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return {
        "candidates": len(designs),
        "cascade_median_s": statistics.median(cascade_times),
        "raw_median_s": statistics.median(raw_times),
        "overhead_ratio": sum(cascade_times) / sum(raw_times),
        "sandboxed": result.sandboxed,
    }


def measure_speedup(designs: list[Design], pdk, flow) -> dict:
    times = {}
    for workers in (1, 2):
        jobs = [EvalJob(design, pdk, flow) for design in designs]
        started = time.perf_counter()
        executor = LocalExecutor(workers)
        try:
            results = list(executor.map(jobs))
        finally:
            executor.close()
        times[workers] = time.perf_counter() - started
        assert all(result.verified for result in results)
    return {"candidates": len(designs), "serial_s": times[1], "two_workers_s": times[2],
            "speedup": times[1] / times[2]}


def measure_cache_hit(design: Design, pdk, flow, cache_path: Path, repeats: int = 50) -> dict:
    job = EvalJob(design, pdk, flow, cache_path)
    run_job(job)  # fill
    latencies = []
    for _ in range(repeats):
        started = time.perf_counter()
        hit = run_job(job)
        latencies.append(time.perf_counter() - started)
        assert hit.cached
    latencies.sort()
    return {"repeats": repeats, "median_ms": 1e3 * statistics.median(latencies),
            "p95_ms": 1e3 * latencies[int(0.95 * (len(latencies) - 1))]}


def run_bench_eval(arguments: argparse.Namespace) -> int:
    design = load_design(arguments.design)
    pdk = get_pdk(arguments.pdk, arguments.pdk_dir)
    flow = load_flow()
    with tempfile.TemporaryDirectory(prefix="hdlrl-bench-") as folder:
        designs = candidates(design, arguments.candidates, Path(folder))
        evaluate(designs[0], pdk, flow)  # warm the page cache and the tool probes
        report = {
            "design": design.name, "pdk": pdk.name, "cpus": os.cpu_count(),
            "overhead": measure_overhead(designs[: max(3, arguments.candidates // 4)], pdk, flow, None),
            "speedup": measure_speedup(designs, pdk, flow),
            "cache_hit": measure_cache_hit(designs[0], pdk, flow, Path(folder) / "cache.sqlite"),
        }
    text = json.dumps(report, indent=2)
    if arguments.output:
        arguments.output.write_text(text + "\n")
    print(text)
    return 0
