"""`hdlrl bench cover`: stimulus runs per second on the compile-once harness, no recompiling.

The harness is built once (its build time is reported apart); then the same rendered random
programs run one at a time and on `workers` threads (each run is one process of the built
simulator), interleaved per round so machine noise hits both arms. A run counts from writing
its stimulus file to its coverage parsed into point counts: what the cover loop pays per
simulation.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hdlrl.cover.harness import HarnessSpec, build_harness
from hdlrl.cover.stimulus import Segment, StimulusProgram, StimulusSpace, render
from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.verify.interface import read_interface


def run_bench_cover(arguments: argparse.Namespace) -> int:
    design = load_design(arguments.design)
    with tempfile.TemporaryDirectory(prefix="hdlrl-bench-cover-") as folder:
        interface = read_interface(ToolRunner(Path(folder) / "interface"), list(design.rtl), design.top)
        space = StimulusSpace.of(design, interface)
        started = time.perf_counter()
        harness = build_harness(HarnessSpec(design, interface, space.ports), Path(folder) / "harness")
        build_s = time.perf_counter() - started
        stimuli = [render(StimulusProgram((Segment("random", arguments.cycles),), seed), space)
                   for seed in range(arguments.runs)]
        serial_s = parallel_s = 0.0
        for round_index in range(arguments.rounds):
            started = time.perf_counter()
            for index, stimulus in enumerate(stimuli):
                assert harness.run(stimulus, f"serial{index}").ok
            serial_s += time.perf_counter() - started
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=arguments.workers) as pool:
                results = list(pool.map(lambda pair: harness.run(pair[1], f"parallel{pair[0]}"), enumerate(stimuli)))
            parallel_s += time.perf_counter() - started
            assert all(result.ok for result in results)
    runs = arguments.runs * arguments.rounds
    result = {"design": design.name, "cycles_per_run": arguments.cycles, "runs": runs, "build_s": round(build_s, 2),
              "sandboxed": has_tool("bwrap"), "serial_runs_per_s": round(runs / serial_s, 1),
              "workers": arguments.workers, "parallel_runs_per_s": round(runs / parallel_s, 1)}
    print(json.dumps(result, indent=2))
    if arguments.output:
        arguments.output.write_text(json.dumps(result, indent=2) + "\n")
    return 0
