"""`hdlrl cover`: generate a testbench that reaches the design's coverage targets and kills mutants."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

from hdlrl.checkpoint import refuse_unfinished
from hdlrl.cover.cover_flow import DEFAULT_COVER_FLOW, CoverFlow, load_cover_flow
from hdlrl.cover.harness import HarnessBuildError
from hdlrl.cover.loop import CoverRun
from hdlrl.cover.outputs import write_outputs
from hdlrl.design import Design, load_design
from hdlrl.errors import HdlrlError
from hdlrl.cover.directed_policy import stimulus_policy
from hdlrl.policy import policy_options
from hdlrl.text_tables import markdown_table, text_table


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def run_grade(design: Design, flow: CoverFlow, arguments: argparse.Namespace) -> int:
    """`--grade STIMULUS`: pass (0) only when every coverage target holds, else fail (1)."""
    from hdlrl.cover.grade import grade

    run_dir = (arguments.out or Path("runs") / f"grade-{design.name}").resolve()
    refuse_unfinished(run_dir)
    try:
        result = grade(design, flow, arguments.grade, run_dir, False if arguments.no_sandbox else None)
    except HarnessBuildError as error:
        raise HdlrlError(f"the coverage harness does not build: {error}", design.root) from None
    if arguments.json:
        print(json.dumps(asdict(result), indent=2))
    else:
        print(text_table(("metric", "target", "measured", "verdict"),
                         [(metric.metric, _percent(metric.target), _percent(metric.measured),
                           "met" if metric.met else "not met" if metric.measured is not None else "not measured")
                          for metric in result.metrics]))
        print(f"{design.name}: {'PASS' if result.passed else 'FAIL'} ({result.programs} programs on {result.simulator})")
    return 0 if result.passed else 1


def run_cover(arguments: argparse.Namespace) -> int:
    design = load_design(arguments.design)
    flow = load_cover_flow(arguments.flow or DEFAULT_COVER_FLOW)
    if arguments.grade:
        return run_grade(design, flow, arguments)
    flow = replace(flow, objective=arguments.objective, **({"budget": arguments.budget} if arguments.budget is not None else {}))
    run_dir = arguments.out or Path("runs") / f"cover-{design.name}-{arguments.policy.replace(':', '_')}-seed{arguments.seed}"
    run_dir = run_dir.resolve()  # tools and the replay check run from other folders
    if not arguments.resume:
        refuse_unfinished(run_dir)
    policy = stimulus_policy(arguments.policy, flow, **policy_options(arguments.policy_option or []))
    run = CoverRun(design, policy, flow, run_dir, arguments.seed, False if arguments.no_sandbox else None,
                   progress=not arguments.json)
    try:
        run.run(resume=arguments.resume)
    except HarnessBuildError as error:
        raise HdlrlError(f"the coverage harness does not build: {error}", design.root) from None
    summary = write_outputs(run)
    if not summary["code_coverage"]:
        print(f"hdlrl: {design.name}: simulated on {summary['simulator']}, which has no code coverage: "
              "functional coverage and mutant kills only", file=sys.stderr)
    if arguments.json:
        print(json.dumps(summary, indent=2))
    else:
        print(text_table(("field", "value"), [
            ("design", summary["design"]), ("policy", summary["policy"]), ("simulator", summary["simulator"]),
            *[(metric, _percent(summary[metric])) for metric in ("line", "branch", "toggle", "functional")],
            ("mutation score", f"{_percent(summary['mutation_score'])} of {summary['mutants']} live mutants"),
            ("simulations", summary["simulations"]),
            ("final set", f"{summary['final_programs']} programs, {summary['final_cycles']} cycles"),
            ("targets met", "yes" if summary["targets_met"] else "no"),
            ("testbench", summary["testbench"]), ("replay", summary["replay"])]))
    return 0


def run_cover_compare(arguments: argparse.Namespace) -> int:
    from hdlrl.cover.compare import compare_design, write_comparison

    flow = load_cover_flow(arguments.flow or DEFAULT_COVER_FLOW)
    flow = replace(flow, objective=arguments.objective, **({"budget": arguments.budget} if arguments.budget is not None else {}))
    policies = arguments.policies.split(",")
    results, failures = [], []
    for path in arguments.designs:
        try:
            results.append(compare_design(load_design(path), policies, arguments.seeds, flow, arguments.out,
                                          baseline=policies[0]))
            write_comparison(results, arguments.out)  # after every design: a killed comparison keeps what it had
        except (HdlrlError, HarnessBuildError) as error:
            failures.append(f"{path.name}: {error}")
            print(f"hdlrl: not compared: {failures[-1]}", file=sys.stderr)
    write_comparison(results, arguments.out)
    def per_seed(values: list[int | None]) -> str:
        return " / ".join("-" if value is None else str(value) for value in values)

    def functional_and_branch(row: dict) -> str:
        """The lowest over seeds of each: the acceptance asks every seed to reach them."""
        lowest = [min((fractions.get(metric) for fractions in row["final_metrics"]
                       if fractions.get(metric) is not None), default=None) for metric in ("functional", "branch")]
        return " / ".join("-" if value is None else f"{value:.3f}" for value in lowest)

    baseline = policies[0]
    headers = ("design", *[f"{policy} final" for policy in policies],
               *[f"{policy} functional / branch (worst seed)" for policy in policies],
               *[f"{policy} sims to 95 %" for policy in policies], f"{baseline} sims to its final",
               *[f"{policy} sims to {baseline}'s final (within half?)" for policy in policies[1:]],
               "best expert", "union", "routing")
    rows = []
    for result in results:
        rows.append((result["design"], *[round(result["policies"][policy]["final_mean"], 4) for policy in policies],
                     *[functional_and_branch(result["policies"][policy]) for policy in policies],
                     *[per_seed(result["policies"][policy]["simulations_to_95"]) for policy in policies],
                     per_seed(result["policies"][baseline]["simulations_to_own_final"]),
                     *[f"{per_seed(result['policies'][policy]['simulations_to_baseline_final'])} "
                       f"({'yes' if result['policies'][policy]['within_half_of_baseline'] else 'no'})"
                       for policy in policies[1:]],
                     f"{result['experts']['best_single']['expert']} {result['experts']['best_single']['coverage']:.4f}",
                     round(result["experts"]["union"]["coverage"], 4),
                     f"{result['experts']['routing']['expert']} {result['experts']['routing']['coverage']:.4f}"))
    if arguments.report:
        arguments.report.write_text(markdown_table(headers, rows) + "\n"
                                    + "".join(f"\n- not compared: {failure}" for failure in failures) + "\n")
    print(text_table(headers, rows))
    return 1 if failures else 0
