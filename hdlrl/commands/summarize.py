"""`hdlrl summarize`: summarise every module of many HDL files, one JSON line each, resumably."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from hdlrl.errors import HdlrlError
from hdlrl.evaluate.executors import make_executor
from hdlrl.policy import policy_options
from hdlrl.text_tables import text_table
from hdlrl.summarize.batch import expand_inputs, plan_batch, read_written, write_batch
from hdlrl.summarize.reference_scores import SentenceEmbedder, evaluate, load_references, references_from_designs
from hdlrl.summarize.summarize_flow import DEFAULT_SUMMARIZE_FLOW, load_summarize_flow


def _defines(pairs: list[str]) -> dict[str, str]:
    return {name: value for name, _, value in (pair.partition("=") for pair in pairs)}


def batch_totals(rows: list[dict]) -> dict:
    """Counts by status and mean scores over the rows that have them."""
    scored = [row for row in rows if row.get("scores")]
    totals: dict = {"modules": len(rows), "ok": sum(row["status"] == "ok" for row in rows),
                    "errors": sum(row["status"] == "error" for row in rows),
                    "timeouts": sum(row["status"] == "timeout" for row in rows),
                    "hallucinated": sum(len(row["hallucinated"]) for row in rows)}
    for key in ("fc", "lca", "fluency", "total"):
        totals[key] = round(sum(row["scores"][key] for row in scored) / len(scored), 4) if scored else None
        totals[f"single_shot_{key}"] = (round(sum(row["single_shot"][key] for row in scored) / len(scored), 4)
                                        if scored else None)
    totals["parsers"] = {parser: sum(row.get("parser") == parser for row in rows) for parser in ("pyverilog", "pyslang")}
    return totals


def run_summarize(arguments: argparse.Namespace) -> int:
    out: Path = arguments.out or Path("summaries.jsonl")
    if arguments.eval:
        return run_evaluation(arguments.eval, out, arguments.json)
    if not arguments.inputs:
        raise HdlrlError("name the HDL files, folders or globs to summarise")
    flow = load_summarize_flow(arguments.flow or DEFAULT_SUMMARIZE_FLOW)
    files = expand_inputs(arguments.inputs)
    written = read_written(out) if arguments.resume else {}
    executor = make_executor(arguments.executor, arguments.workers, arguments.ray_address)
    try:
        plan = plan_batch(files, arguments.policy, policy_options(arguments.policy_option or []), flow, written,
                          executor, arguments.include, _defines(arguments.define))
        with tqdm(total=plan.modules, initial=len(written), unit="module", desc="summarize", file=sys.stderr,
                  disable=arguments.json or None) as progress:
            rows = write_batch(plan, executor, out, lambda row: progress.update(1))
    finally:
        executor.close()
    totals = batch_totals(rows)
    if arguments.json:
        print(json.dumps(totals, indent=2))
    else:
        print(text_table(("field", "value"), [(key, value) for key, value in totals.items() if key != "parsers"]
                         + [("parsers", ", ".join(f"{k} {v}" for k, v in totals["parsers"].items()))]))
        print(f"rows: {out}")
    return 0


def run_evaluation(references_path: Path, out: Path, as_json: bool) -> int:
    """The summaries in `out` against the references: ROUGE-L and embedding similarity per module, and means."""
    if not out.is_file():
        raise HdlrlError("no summaries to evaluate (run hdlrl summarize first, or name them with --out)", out)
    references = load_references(references_path)
    evaluation = evaluate(list(read_written(out).values()), references, SentenceEmbedder())
    if evaluation.embedding_note and evaluation.embedding is None:
        print(f"hdlrl: {evaluation.embedding_note}", file=sys.stderr)
    if as_json:
        print(json.dumps(evaluation.as_dict(), indent=2))
        return 0
    print(text_table(("module", "path", "ROUGE-L", "embedding"),
                     [(row["module"], row["path"], row["rouge_l"], row["embedding"]) for row in evaluation.rows]
                     + [("mean", f"{len(evaluation.rows)} matched", evaluation.rouge_l, evaluation.embedding)]))
    if evaluation.unmatched_references:
        print(f"{evaluation.unmatched_references} of {len(references)} references match no summary")
    return 0


def run_summarize_references(arguments: argparse.Namespace) -> int:
    references, undescribed = references_from_designs(arguments.designs)
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text("".join(json.dumps({"module": reference.module, "path": reference.path,
                                                 "reference": reference.text}) + "\n" for reference in references))
    print(f"{len(references)} references written to {arguments.out}"
          + (f"; {undescribed} designs have no description" if undescribed else ""))
    return 0
