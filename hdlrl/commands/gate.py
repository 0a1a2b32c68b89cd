"""`hdlrl gate` (one verdict), `hdlrl gate-score` (the gate's strength, by mutants) and
`hdlrl gate-corpus` (its strength against an attack corpus)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import default_cache_path
from hdlrl.evaluate.executors import Executor, make_executor
from hdlrl.evaluate.staging import user_paths
from hdlrl.pdk import Pdk, get_pdk
from hdlrl.text_tables import markdown_table, text_table
from hdlrl.serialize import to_jsonable
from hdlrl.verify.corpus import AttackResult, load_corpus, run_corpus
from hdlrl.verify.gate_flow import DEFAULT_GATE_FLOW, GateFlow, load_gate_flow
from hdlrl.verify.gate import Verdict
from hdlrl.verify.job import GateJob, run_gate_job
from hdlrl.verify.score import GateScore, pooled_score, score_design

SCORE_HEADERS = ("design", "mutants", "equivalent", "killed_by_testbench", "kill_rate_testbench",
                 "killed_by_gate", "kill_rate_gate", "false_rejections", "gate_median_s", "gate_p90_s",
                 "tool_median_s", "tool_p90_s")


CORPUS_HEADERS = ("candidate", "design", "class", "expect", "verdict", "stage", "level", "reason", "ppa_ratio",
                  "reward", "wall_s")


@dataclass
class StageLines:
    """`gate: STAGE (started at 0.6 s)` on stderr as each stage starts, and the verdict's time at
    the end: a minute of proofs is seen being spent. Whole lines, so that a tool's warning
    printed during a stage breaks none of them."""

    started: float = field(default_factory=time.perf_counter)

    def __call__(self, stage: str) -> None:
        print(f"gate: {stage} (started at {time.perf_counter() - self.started:.1f} s)", file=sys.stderr, flush=True)

    def done(self, verdict: Verdict) -> None:
        print(f"gate: verdict after {time.perf_counter() - self.started:.1f} s{' (cached)' if verdict.cached else ''}",
              file=sys.stderr, flush=True)


def run_gate(arguments: argparse.Namespace) -> int:
    design = load_design(arguments.design)
    for path in arguments.rtl:
        if not path.is_file():
            raise HdlrlError("candidate source not found", path)
    job = GateJob(design, tuple(path.resolve() for path in arguments.rtl), get_pdk(arguments.pdk, arguments.pdk_dir),
                  load_gate_flow(arguments.flow or DEFAULT_GATE_FLOW), default_cache_path(not arguments.no_cache),
                  False if arguments.no_sandbox else None, with_ppa=not arguments.no_ppa)
    stages = None if arguments.json else StageLines()  # --json prints nothing but the answer, as every command
    verdict = run_gate_job(job, stages)
    if stages:
        stages.done(verdict)
    verdict.reason = user_paths(verdict.reason, design.with_rtl(job.candidate))
    if arguments.json:
        print(json.dumps(verdict.summary(), indent=2))
    else:
        rows = [("accepted", "yes" if verdict.accepted else "no"), ("stage", verdict.stage), ("level", verdict.level),
                ("reason", verdict.reason), ("reward", round(verdict.reward, 4)),
                ("differential", f"{verdict.differential_agreement} over {verdict.differential_cycles} cycles, "
                                 f"seed {verdict.differential_seed}" if verdict.differential_agreement is not None else "-"),
                ("ppa ratio", verdict.ppa_ratio if verdict.ppa_ratio is not None else "-")]
        print(text_table(("field", "value"), rows))
    return 0 if verdict.accepted else 1


def _score_row(score: GateScore) -> tuple:
    if score.error:
        return (score.design, *["-"] * (len(SCORE_HEADERS) - 1))
    return tuple(getattr(score, name) for name in SCORE_HEADERS)


def _score_or_error(design_path: Path, arguments: argparse.Namespace, pdk: Pdk, flow: GateFlow, executor: Executor,
                    cache_path: Path | None) -> GateScore:
    """The design's score; a design that cannot be scored gets its one-line error and the run goes on."""
    try:
        design = load_design(design_path)
        return score_design(design, arguments.n, pdk, flow, executor, cache_path, arguments.seed,
                            False if arguments.no_sandbox else None)
    except HdlrlError as error:
        return GateScore(design_path.name, seed=arguments.seed, error=str(error))


def _report(scores: list[GateScore], total: GateScore) -> str:
    """Markdown: one row per design and the pooled row, then survivors, false rejections, errors."""
    lines = [markdown_table(SCORE_HEADERS, [_score_row(score) for score in scores] + [_score_row(total)]), ""]
    lines += [f"- survivor: {survivor.design} {survivor.file}:{survivor.line} {survivor.operator}: "
              f"{survivor.description} (level {survivor.level})" for survivor in total.survivors]
    lines += [f"- false rejection: {reason}" for reason in total.false_rejection_reasons]
    lines += [f"- not scored: {score.design}: {score.error}" for score in scores if score.error]
    return "\n".join(lines) + "\n"


def run_gate_score(arguments: argparse.Namespace) -> int:
    pdk = get_pdk(arguments.pdk, arguments.pdk_dir)
    flow = load_gate_flow(arguments.flow or DEFAULT_GATE_FLOW)
    cache_path = default_cache_path(not arguments.no_cache)
    executor = make_executor(arguments.executor, arguments.workers, arguments.ray_address)
    try:
        scores = [_score_or_error(path, arguments, pdk, flow, executor, cache_path) for path in arguments.designs]
    finally:
        executor.close()
    total = pooled_score([score for score in scores if not score.error])
    if arguments.report:
        arguments.report.write_text(_report(scores, total))
    if arguments.json:
        print(json.dumps(to_jsonable(scores[0]) if len(scores) == 1 else
                         {"designs": to_jsonable(scores), "all": to_jsonable(total)}, indent=2))
    else:
        print(text_table(SCORE_HEADERS, [_score_row(score) for score in scores] +
                         ([_score_row(total)] if len(scores) > 1 else [])))
        for score in scores:
            if score.error:
                print(f"hdlrl: not scored: {score.error}")
    return 1 if any(score.error for score in scores) else 0


def _corpus_row(result: AttackResult) -> tuple:
    verdict = "accepted" if result.accepted else "rejected"
    if not result.held:
        verdict += " (HOLE)" if result.attack.expect != "accept" else " (FALSE REJECTION)"
    ratio = round(result.ppa_ratio, 4) if result.ppa_ratio is not None else "-"
    return (result.attack.name, result.attack.design, result.attack.kind, result.attack.expect, verdict,
            result.stage, result.level, result.reason or "-", ratio, round(result.reward, 4), round(result.wall_s, 2))


def run_gate_corpus(arguments: argparse.Namespace) -> int:
    attacks = load_corpus(arguments.corpus)
    executor = make_executor(arguments.executor, arguments.workers, arguments.ray_address)
    try:
        results = run_corpus(attacks, arguments.designs_dir, arguments.rtllm, get_pdk(arguments.pdk, arguments.pdk_dir),
                             load_gate_flow(arguments.flow or DEFAULT_GATE_FLOW), executor,
                             default_cache_path(not arguments.no_cache), progress=not arguments.json)
    finally:
        executor.close()
    rows = [_corpus_row(result) for result in results]
    if arguments.report:
        arguments.report.write_text(markdown_table(CORPUS_HEADERS, rows) + "\n")
    if arguments.json:
        print(json.dumps([{**to_jsonable(result), "held": result.held} for result in results], indent=2))
    else:
        print(text_table(CORPUS_HEADERS, rows))
    skipped = len(attacks) - len(results)
    if skipped:
        print(f"hdlrl: {skipped} candidates skipped: their RTLLM designs need --rtllm", file=sys.stderr)
    return 0 if all(result.held for result in results) else 1
