"""`hdlrl bench summarize`: modules summarised per second by the batch job, embedded policy.

The corpus is the given HDL files copied `copies` times, each copy with every module and
every internal identifier renamed, so that no row can be a cache hit and the corpus has as
many distinct modules as a repository would. A run is what `hdlrl summarize` does after the
interpreter starts: parse every file, plan the jobs by hierarchy, summarise and write the
JSON lines. One worker and `workers` workers run in turns, round after round, so machine
noise hits both arms alike.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from hdlrl.evaluate.executors import make_executor
from hdlrl.hdl.rename import alpha_renames, defined_modules, rename_identifiers, rename_modules
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.batch import expand_inputs, plan_batch, write_batch
from hdlrl.summarize.summarize_flow import DEFAULT_SUMMARIZE_FLOW, load_summarize_flow


def replicated_corpus(files: list[Path], copies: int, folder: Path) -> list[Path]:
    """`copies` renamed copies of each file in `folder`: copy c names module m `m_cC` and each
    internal identifier n `n_cC`."""
    written = []
    for copy in range(copies):
        for index, path in enumerate(files):
            text = path.read_text(errors="replace")
            modules, _ = read_source(path)
            renamed = rename_identifiers(text, alpha_renames(modules, lambda _, name: f"{name}_c{copy}"))
            renamed = rename_modules(renamed, {name: f"{name}_c{copy}" for name in defined_modules(text)})
            target = folder / f"c{copy}" / f"{index}_{path.name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(renamed)
            written.append(target)
    return written


def timed_batch(files: list[Path], workers: int, out: Path) -> tuple[float, list[dict]]:
    """Seconds from parsing the first file to the last row written, and the rows."""
    flow = load_summarize_flow(DEFAULT_SUMMARIZE_FLOW)
    started = time.perf_counter()
    executor = make_executor("local", workers)
    try:
        plan = plan_batch(files, "compose", {}, flow, {}, executor)
        rows = write_batch(plan, executor, out)
    finally:
        executor.close()
    return time.perf_counter() - started, rows


def run_bench_summarize(arguments: argparse.Namespace) -> int:
    sources = expand_inputs([str(path) for path in arguments.inputs])
    with tempfile.TemporaryDirectory(prefix="hdlrl-bench-summarize-") as folder:
        corpus = replicated_corpus(sources, arguments.copies, Path(folder) / "corpus")
        seconds = {1: 0.0, arguments.workers: 0.0}
        for _ in range(arguments.rounds):
            for workers in seconds:
                elapsed, rows = timed_batch(corpus, workers, Path(folder) / f"rows-{workers}.jsonl")
                seconds[workers] += elapsed
    modules = len(rows) * arguments.rounds
    result = {"source_files": len(sources), "copies": arguments.copies, "corpus_files": len(corpus),
              "modules": len(rows), "rounds": arguments.rounds, "ok": sum(row["status"] == "ok" for row in rows),
              "hallucinated": sum(len(row["hallucinated"]) for row in rows),
              "parsers": {parser: sum(row["parser"] == parser for row in rows) for parser in ("pyverilog", "pyslang")},
              "serial_modules_per_s": round(modules / seconds[1], 1), "workers": arguments.workers,
              "parallel_modules_per_s": round(modules / seconds[arguments.workers], 1)}
    print(json.dumps(result, indent=2))
    if arguments.output:
        arguments.output.write_text(json.dumps(result, indent=2) + "\n")
    return 0
