"""Which architecture rewrites reduce PPA, design by design, as judged by the verification gate.

For each design: every rule (each option separately) applied at all its sites of the
reference is judged by the gate (accepted?, level, PPA-product ratio). Then a greedy chain:
the best accepted candidate becomes the new starting point and every rule is tried again on
it, until nothing improves (see `measure` for its one step of lookahead). Prints a markdown
report (and JSON with --json).

    .venv/bin/python scripts/measure_rewrites.py /tmp/rtllm/* --pdk nangate45 --pdk-dir ../shared/pdk
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from hdlrl.design import Design, load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cache import default_cache_path
from hdlrl.hdl.design_files import parse_rtl, write_sources
from hdlrl.hdl.rewrites import RULES, apply_everywhere, rule_options, variant_name
from hdlrl.hdl.verilog_ast import ParsedSource, unparse
from hdlrl.optimize.suite_report import geometric_mean
from hdlrl.pdk import get_pdk
from hdlrl.verify.gate_flow import DEFAULT_GATE_FLOW, load_gate_flow
from hdlrl.verify.job import GateJob, run_gate_job


@dataclass
class Trial:
    design: str
    step: int  # 0: the rule on the reference; n: the rule on the best chain of n-1 rules
    rule: str  # rule or rule:option
    sites: int
    accepted: bool
    level: str
    ppa_ratio: float | None  # against the reference
    reason: str


@dataclass
class DesignResult:
    design: str
    trials: list[Trial] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)  # rules of the best accepted candidate, in order
    best_ratio: float = 1.0


def judge(design: Design, sources: dict[str, ParsedSource], arguments,
          folder: Path) -> tuple[bool, str, float | None, str]:
    paths = write_sources(design, {file: unparse(source) for file, source in sources.items()}, folder)
    job = GateJob(design, paths, get_pdk(arguments.pdk, arguments.pdk_dir), load_gate_flow(DEFAULT_GATE_FLOW),
                  default_cache_path(True))
    verdict = run_gate_job(job)
    return verdict.accepted, verdict.level, verdict.ppa_ratio, verdict.reason[:120]


def candidates(current: dict[str, ParsedSource]) -> list[tuple[str, int, dict[str, ParsedSource]]]:
    """(rule:option, sites rewritten, new sources) for every rule and option that changes something."""
    found = []
    for rule in RULES:
        for option in rule_options(rule, current):
            rewritten, count = dict(current), 0
            for file, source in current.items():
                rewritten[file], done = apply_everywhere(file, source, rule, option)
                count += len(done)
            if count:
                found.append((variant_name(rule, option), count, rewritten))
    return found


def measure(design: Design, arguments) -> DesignResult:
    """Greedy chain with one step of lookahead: when no single rule improves, a rule that was
    accepted without gain is kept if a second rule on top of it improves (a hand-built adder
    turned into `+` is no better until the `+` gets a prefix tree)."""
    result = DesignResult(design.name)
    current, best = parse_rtl(design), 1.0
    with tempfile.TemporaryDirectory(prefix=f"hdlrl-rewrites-{design.name}-") as scratch:
        folders = (Path(scratch) / str(number) for number in itertools.count())

        def judged(step: int, start: dict[str, ParsedSource], prefix: str) -> list[tuple[str, float, dict]]:
            """(rules, ratio, sources) of every accepted candidate one rule away from `start`."""
            accepted = []
            for rule, count, sources in candidates(start):
                name = f"{prefix}{rule}"
                ok, level, ratio, reason = judge(design, sources, arguments, next(folders))
                result.trials.append(Trial(design.name, step, name, count, ok, level, ratio, reason))
                print(f"{design.name} step {step} {name}: {ok} {level} {ratio}", file=sys.stderr)
                if ok and ratio is not None:
                    accepted.append((name, ratio, sources))
            return accepted

        for step in range(arguments.max_chain):
            accepted = judged(step, current, "")
            improving = [entry for entry in accepted if entry[1] < best * (1 - arguments.min_gain)]
            if not improving:
                improving = [entry for first, _, sources in accepted
                             for entry in judged(step, sources, f"{first} + ")
                             if entry[1] < best * (1 - arguments.min_gain)]
            if not improving:
                break
            rules, best, current = min(improving, key=lambda entry: entry[1])
            result.chain.append(rules)
    result.best_ratio = best
    return result


def report(results: list[DesignResult]) -> str:
    lines = ["| design | rule (all sites) | sites | accepted | level | PPA ratio | reason |",
             "|---|---|---|---|---|---|---|"]
    for result in results:
        for trial in result.trials:
            if trial.step == 0:
                ratio = f"{trial.ppa_ratio:.3f}" if trial.ppa_ratio is not None else "-"
                lines.append(f"| {trial.design} | {trial.rule} | {trial.sites} | {'yes' if trial.accepted else 'no'} | "
                             f"{trial.level} | {ratio} | {trial.reason.replace('|', '/')} |")
    lines += ["", "| design | best chain | best PPA ratio |", "|---|---|---|"]
    for result in results:
        lines.append(f"| {result.design} | {' + '.join(result.chain) or '(none helps)'} | {result.best_ratio:.3f} |")
    geomean = geometric_mean([result.best_ratio for result in results])
    lines += ["", f"Geometric mean of the best ratios over {len(results)} designs: {geomean:.3f}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("designs", nargs="+", type=Path)
    parser.add_argument("--pdk", default="nangate45")
    parser.add_argument("--pdk-dir", type=Path)
    parser.add_argument("--max-chain", type=int, default=4, help="most rules chained per design")
    parser.add_argument("--min-gain", type=float, default=0.005, help="relative gain a chain step must bring")
    parser.add_argument("--json", type=Path, help="also write every trial here")
    arguments = parser.parse_args()
    results = []
    for path in arguments.designs:
        try:
            results.append(measure(load_design(path), arguments))
        except HdlrlError as error:
            print(f"{path.name}: not measured: {error}", file=sys.stderr)
    print(report(results), end="")
    if arguments.json:
        arguments.json.write_text(json.dumps([asdict(result) for result in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
