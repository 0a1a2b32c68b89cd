"""Batch jobs of `hdlrl summarize`: many files in, one JSON line per module out, resumable.

Files are parsed on the batch's executor (tens of milliseconds each, a sixth of a batch's CPU),
their modules grouped by the instance hierarchy, and each group is one job: its modules are
summarised children first, so that a parent's search sees its children's summaries. Jobs run on
the project's executors (a process pool, or Ray). Rows are appended and flushed as jobs finish;
`--resume` keeps the rows already written (a torn last line from a killed run is cut off, a
corrupt row is an error) and skips their ids. Each module has a time limit; a module that fails
or runs out of time gets a row with `status` and `error`, and the batch goes on.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import itertools
import json
import signal
import time
import threading
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hdlrl.checkpoint import complete_lines, disk_full_stops, read_rows
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.executors import Executor
from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.sources import Hierarchy, UnreadModule, read_text, screened_text
from hdlrl.policy import make_policy
from hdlrl.summarize.compose_policy import EMBEDDED_POLICIES
from hdlrl.ttt.protocol import Policy
from hdlrl.summarize.claim import Claim, reset_claim
from hdlrl.summarize.summarize_flow import SummarizeFlow
from hdlrl.summarize.fluency import LanguageModelFluency, embedded_fluency
from hdlrl.summarize.behaviour import ResetValue, module_behaviour
from hdlrl.summarize.count_evidence import CountEvidence
from hdlrl.summarize.data_evidence import DataPathEvidence
from hdlrl.summarize.flag_evidence import FlagEvidence
from hdlrl.summarize.flip_flop_evidence import FlipFlopEvidence
from hdlrl.summarize.fsm_evidence import StateChangeEvidence
from hdlrl.summarize.memory_evidence import MemoryEvidence
from hdlrl.summarize.mode_evidence import RegisterModeEvidence
from hdlrl.summarize.evidence_benches import EvidenceBenches
from hdlrl.summarize.enable_evidence import EnableEvidence
from hdlrl.summarize.function_evidence import FunctionEvidence
from hdlrl.summarize.reset_evidence import Evidence, ResetEvidence
from hdlrl.summarize.rewards import DocumentScorer, salient_behaviour_facts
from hdlrl.summarize.search import SummarySearch

HDL_SUFFIXES = (".v", ".sv", ".vh", ".svh")


class ItemTimeout(Exception):
    pass


def module_id(path: str, name: str | None, text: str) -> str:
    """path + module + a hash of the module's source: a changed module is summarised again."""
    return f"{path}:{name or '-'}:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def expand_inputs(patterns: list[str]) -> list[Path]:
    """Files named by paths, folders (searched recursively for HDL files) and globs, each once, in order."""
    files: dict[Path, None] = {}
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True)) or [pattern]
        for match in map(Path, matches):
            if match.is_dir():
                files.update(dict.fromkeys(sorted(path for path in match.rglob("*") if path.suffix in HDL_SUFFIXES)))
            elif match.is_file():
                files[match] = None
            else:
                raise HdlrlError("no such file or folder", match)
    return list(files)


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ItemTimeout in this thread after `seconds` (SIGALRM; no limit off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise ItemTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def error_row(identifier: str, path: str, name: str | None, parser: str | None, status: str, reason: str) -> dict:
    return {"id": identifier, "path": path, "module": name, "parser": parser, "summary": None, "blocks": [],
            "children": [], "scores": None, "hallucinated": [], "status": status, "error": reason}


_policies: dict[tuple[str, str], Policy] = {}  # one policy per process and spec: an LM loads once


def _policy(spec: str, options: dict[str, Any]) -> Policy:
    key = (spec, json.dumps(options, sort_keys=True))
    if key not in _policies:
        _policies[key] = make_policy(spec, EMBEDDED_POLICIES, **options)
    return _policies[key]


def fluency_function(flow: SummarizeFlow, policy: Policy) -> Callable[[str], float]:
    """The fluency the flow names: the embedded heuristic, or SLOR under the hf policy's model and tokenizer."""
    if flow.fluency == "embedded":
        return embedded_fluency
    if getattr(policy, "tokenizer", None) is None:  # only the hf policy holds a model with its tokenizer
        raise HdlrlError(f"fluency: lm needs an hf policy (hf:PATH_OR_NAME), not {policy.name}")
    return _language_model_fluency(policy)


@functools.cache
def _language_model_fluency(policy: Policy) -> LanguageModelFluency:
    """One scorer per policy, so its unigram pass and its cache serve every module of the batch."""
    return LanguageModelFluency(policy.model, policy.tokenizer)


def summarize_module(module: Module, policy: Policy, flow: SummarizeFlow,
                     children: dict[str, dict]) -> dict:
    """The row of one module: its search result, with the children's rows (by module name) as context."""
    started = time.monotonic()
    facts = module_facts(module)
    child_behaviours = tuple(dict.fromkeys(behaviour for row in children.values()
                                           for behaviour in row.get("behaviours", [])))

    fluency = fluency_function(flow, policy)
    behaviour = module_behaviour(module, facts) if flow.read_netlist and facts.ports else None  # a bench has no netlist
    evidence = ResetEvidence(module, facts) if flow.simulate_resets else None
    functions = FunctionEvidence(module, facts, behaviour) if behaviour is not None else None
    enables = EnableEvidence(module, facts, behaviour) if behaviour is not None else None
    counts = CountEvidence(module, facts, behaviour.netlist) if behaviour and behaviour.netlist else None
    data_paths = DataPathEvidence(module, facts, behaviour) if behaviour and behaviour.netlist else None
    flip_flops = FlipFlopEvidence(module, facts, behaviour) if behaviour and behaviour.flip_flops else None
    flags = FlagEvidence(module, facts, behaviour) if behaviour and behaviour.flags else None
    memories = MemoryEvidence(module, facts, behaviour) if behaviour and behaviour.memories else None
    changes = StateChangeEvidence(module, facts, behaviour) if behaviour and behaviour.netlist else None
    modes = RegisterModeEvidence(module, facts, behaviour) if behaviour and behaviour.register_modes else None
    simulated = {"function": functions, "enable": enables, "count_range": counts, "data_path": data_paths,
                 "flip_flop": flip_flops, "flag": flags,
                 "memory_write": memories, "memory_read": memories, "transition_when": changes,
                 "state_output": changes, "register_mode": modes}
    reset_values = {(value.signal, value.register): value for value in behaviour.reset_values} if behaviour else {}

    @functools.cache  # the search checks the same claims over and over
    def independent(claim: Claim) -> bool | None:
        """Resets, and every claim written from the netlist, must also hold in simulation; other kinds
        rest on the facts. A netlist claim nothing simulated is not verified."""
        found = _evidence(claim, evidence, simulated, reset_values)
        if found is None:
            return False if claim.kind in ("reset_value", *simulated) else None
        return found.status == "verified"

    resets = [reset_claim(reset.signal, reset.active_low, reset.asynchronous) for reset in facts.resets]
    planned = [*salient_behaviour_facts(facts, behaviour), *resets]
    with EvidenceBenches().active() as benches:  # their benches in one run, before the search and its time limit
        benches.plan(functools.partial(independent, claim) for claim in planned)
        for claim in planned:
            independent(claim)

    score = DocumentScorer(facts, flow.rewards, frozenset(child_behaviours), fluency, independent, behaviour)
    search = SummarySearch(policy, module.name, module.source, facts, score, flow.search,
                           {name: row["summary"] for name, row in children.items() if row.get("summary")},
                           child_behaviours, behaviour)
    single_shot = search.single_shot()
    result = search.run([single_shot.document])
    scores = result.scores
    behaviours = [claim.value for claim, verified in zip(scores.claims, scores.verified)
                  if verified and claim.kind == "behaviour"]
    return {
        "id": module_id(module.path, module.name, module.source), "path": module.path, "module": module.name,
        "parser": module.parser, "summary": result.document.summary,
        "blocks": [{"index": block.index, "kind": block.kind, "lines": [block.line, block.end_line], "summary": text}
                   for block, text in zip(facts.blocks, result.document.blocks, strict=True)],
        "children": list(children), "scores": scores.as_row(), "single_shot": single_shot.scores.as_row(),
        "hallucinated": list(scores.hallucinated), "behaviours": list(dict.fromkeys(behaviours)),
        "claims": [_claim_row(claim, verified) for claim, verified in zip(scores.claims, scores.verified)],
        "evidence": [_evidence_row(claim, found) for claim in dict.fromkeys(scores.claims)
                     if (found := _evidence(claim, evidence, simulated, reset_values)) is not None],
        "iterations": result.iterations, "seconds": round(time.monotonic() - started, 4),
        "status": "ok", "error": None,
    }


def _evidence(claim: Claim, resets: ResetEvidence | None, simulated: dict[str, Callable[[Claim], Evidence] | None],
              reset_values: dict[tuple[str, ...], ResetValue]) -> Evidence | None:
    """The simulation's word on a claim the summary makes, where one was simulated."""
    if claim.kind == "reset" and resets:
        return resets(claim)
    if claim.kind == "reset_value" and resets and claim.names in reset_values:
        return resets.value_evidence(reset_values[claim.names])
    judge = simulated.get(claim.kind)
    return judge(claim) if judge else None


def _evidence_row(claim: Claim, found: Evidence) -> dict:
    return {"claim": [claim.kind, list(claim.names), claim.value], "status": found.status, "reason": found.reason}


def _claim_row(claim: Claim, verified: bool) -> list:
    return [claim.kind, list(claim.names), claim.value, verified]


@dataclass(frozen=True)
class SummarizeJob:
    """One group of modules connected by instantiation, children first; picklable for any executor."""

    modules: tuple[Module, ...]
    children: dict[str, tuple[str, ...]]  # module id -> ids of its children in this group
    policy: str
    policy_options: dict[str, Any]
    flow: SummarizeFlow
    written: dict[str, dict] = field(default_factory=dict)  # id -> row already in the output (resume)

    def run(self) -> list[dict]:
        policy = _policy(self.policy, self.policy_options)
        rows: dict[str, dict] = dict(self.written)
        new_rows = []
        for module in self.modules:
            identifier = module_id(module.path, module.name, module.source)
            if identifier in rows:
                continue
            children = {rows[child]["module"]: rows[child] for child in self.children[identifier] if child in rows}
            try:
                with time_limit(self.flow.item_time_limit_s):
                    row = summarize_module(module, policy, self.flow, children)
            except ItemTimeout:
                row = error_row(identifier, module.path, module.name, module.parser, "timeout",
                                f"no summary within the item time limit of {self.flow.item_time_limit_s:g} s")
            except HdlrlError as error:
                row = error_row(identifier, module.path, module.name, module.parser, "error", str(error))
            except Exception as error:  # a bug must cost one row, not the batch
                row = error_row(identifier, module.path, module.name, module.parser, "error",
                                f"internal error: {type(error).__name__}: {error}")
            rows[identifier] = row
            new_rows.append(row)
        return new_rows


def read_written(out: Path) -> dict[str, dict]:
    """The complete rows of an earlier run, by id; a torn last line (a killed run) is cut off the file,
    a corrupt row before it is an error naming its line."""
    if not out.is_file():
        return {}
    data = out.read_bytes()
    complete = complete_lines(data)
    rows = {row["id"]: row for row in read_rows(complete, out, "id")}
    if len(complete) < len(data):
        with out.open("r+b") as handle:
            handle.truncate(len(complete))
    return rows


@dataclass(frozen=True)
class ReadSourceJob:
    """One file's text to parse; it travels with the job, so a worker needs no copy of the file."""

    path: str
    text: str
    include_dirs: tuple[Path, ...]
    defines: dict[str, str] | None

    @property
    def includes(self) -> bool:
        """Whether parsing may read other files: those are on this machine, so it is parsed here."""
        return "`include" in self.text

    def run(self) -> tuple[list[Module], list[UnreadModule]]:
        return read_text(self.text, self.path, self.include_dirs, self.defines)


def read_sources(files: list[Path], executor: Executor, include_dirs: list[Path] = (),
                 defines: dict[str, str] | None = None) -> tuple[list[Module], list[UnreadModule]]:
    """The modules of `files`, in order, and those that could not be read; parsed on `executor`."""
    jobs = [text if isinstance(text := screened_text(path), UnreadModule)
            else ReadSourceJob(str(path), text, tuple(include_dirs), defines) for path in files]
    parsed = executor.map(job for job in jobs if isinstance(job, ReadSourceJob) and not job.includes)
    modules: list[Module] = []
    unread: list[UnreadModule] = []
    for job in jobs:
        if isinstance(job, UnreadModule):
            unread.append(job)
            continue
        read, failed = job.run() if job.includes else next(parsed)
        modules += read
        unread += failed
    return modules, unread


@dataclass
class BatchPlan:
    jobs: list[SummarizeJob]
    unread: list[dict]  # error rows for files and modules that could not be parsed
    modules: int  # modules in all, written ones included
    written: dict[str, dict]  # id -> row of an earlier run, kept (resume)


def plan_batch(files: list[Path], policy: str, policy_options: dict[str, Any], flow: SummarizeFlow,
               written: dict[str, dict], executor: Executor, include_dirs: list[Path] = (),
               defines: dict[str, str] | None = None) -> BatchPlan:
    """The jobs of a batch: `files` parsed on `executor`, their modules grouped by the hierarchy."""
    modules, unread = read_sources(files, executor, include_dirs, defines)
    hierarchy = Hierarchy(modules)
    jobs = []
    for group in hierarchy.groups():
        ids = [module_id(module.path, module.name, module.source) for module in group]
        if all(identifier in written for identifier in ids):
            continue
        children = {module_id(module.path, module.name, module.source):
                    tuple(module_id(child.path, child.name, child.source) for child in hierarchy.children(module))
                    for module in group}
        jobs.append(SummarizeJob(tuple(group), children, policy, policy_options, flow,
                                 {identifier: written[identifier] for identifier in ids if identifier in written}))
    error_rows = []
    for failed in unread:
        identifier = module_id(failed.path, failed.name, failed.source)
        if identifier not in written:
            error_rows.append(error_row(identifier, failed.path, failed.name, None, "error",
                                        f"{failed.path}:{failed.line or 1}: {failed.reason}"))
    return BatchPlan(jobs, error_rows, len(modules) + len(unread), written)



def write_batch(plan: BatchPlan, executor: Executor, out: Path,
                progress: Callable[[dict], None] = lambda row: None) -> list[dict]:
    """Run the plan's jobs and write each row to `out` as it comes, flushed, so that a killed batch
    keeps every finished row; the rows the plan resumes from stay. Returns every row."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = list(plan.written.values())
    with (disk_full_stops(out, "every row written is kept: free space and run again with --resume"),
          out.open("a" if plan.written else "w") as handle):
        try:
            for row in itertools.chain(plan.unread, (row for rows_of_job in executor.map(plan.jobs)
                                                     for row in rows_of_job)):
                handle.write(json.dumps(row) + "\n")
                handle.flush()
                rows.append(row)
                progress(row)
        except BrokenProcessPool:
            raise HdlrlError(f"a worker process died (a crash in a parser's native code?) after {len(rows)} rows; "
                             "every row written is kept: run again with --resume (--workers 1 names the module)",
                             out) from None
    return rows
