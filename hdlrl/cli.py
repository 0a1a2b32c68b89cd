"""The `hdlrl` command line. Bad input is one line on stderr and exit status 2, never a traceback;
with --json it is also the one JSON object on stdout, as `error`."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import warnings
from pathlib import Path
from typing import NoReturn

from hdlrl.design import design_folders

from hdlrl.checkpoint import DISK_FULL
from hdlrl.errors import HdlrlError
from hdlrl.optimize.arms import ARMS


def _add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """--json and --report of the commands whose result is a table."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--report", type=Path, help="also write a Markdown table to this file")


def _add_pdk_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pdk", default="generic", help="generic (embedded), nangate45 or sky130hd")
    parser.add_argument("--pdk-dir", help="folder holding third-party liberty files (default: $HDLRL_PDK_DIR)")


def _add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=_positive_int, default=1, help="evaluations run in parallel")
    parser.add_argument("--executor", choices=("local", "ray"), default="local")
    parser.add_argument("--ray-address", help="address of a running Ray cluster (default: start one locally)")


def _add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--flow", type=Path, help="gate flow YAML (default: flows/gate.yaml)")
    parser.add_argument("--no-cache", action="store_true", help="always run the tools")
    parser.add_argument("--no-sandbox", action="store_true", help="run tools without bubblewrap")


def _version() -> str:
    try:
        return importlib.metadata.version("hdlrl")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _positive_int(text: str) -> int:
    """An argparse type: a count that must be at least 1 (`--budget 0` is an error, not the default)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _add_optimize_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--policy", default="rewrite",
                        help="rewrite (embedded), hf:smollm2, hf:PATH_OR_NAME (a model folder or GGUF file) or openai:URL")
    parser.add_argument("--policy-option", action="append", metavar="KEY=VALUE",
                        help="a keyword option of the policy backend (e.g. lora_rank=16), repeatable")
    parser.add_argument("--lm-mode", choices=("write", "choose"), default="write",
                        help="how an hf policy acts: write the rewritten RTL, or choose from the rewrite "
                             "policy's menu of actions (default: write)")
    parser.add_argument("--budget", type=_positive_int, help="candidates in all (default: the flow's budget)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-update", action="store_true", help="frozen policy: search without learning")
    parser.add_argument("--best-of-n", action="store_true", help="baseline: sample the original design only, frozen")
    parser.add_argument("--accept-unproven", action="store_true",
                        help="report a bounded or simulated design as the best (default: proven designs only)")
    parser.add_argument("--out", type=Path, help="run directory (default: runs/DESIGN-seedS)")
    parser.add_argument("--flow", type=Path, help="optimiser flow YAML (default: flows/optimize.yaml)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--no-cache", action="store_true", help="always run the tools")
    parser.add_argument("--no-sandbox", action="store_true", help="run tools without bubblewrap")
    _add_pdk_arguments(parser)
    _add_executor_arguments(parser)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, subcommands' too: with `json_asked` (set by `main`), a usage error answers in JSON too."""

    json_asked = False

    def error(self, message: str) -> NoReturn:
        _json_error(argparse.Namespace(json=_Parser.json_asked), f"{self.prog}: {message}")
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hdlrl", description=__doc__)
    parser.add_argument("--version", action="version", version=f"hdlrl {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("tools", help="check the EDA tools against tools.lock")

    evaluate = commands.add_parser("eval", help="lint, simulate, synthesise and time designs")
    evaluate.add_argument("designs", nargs="+", type=Path, metavar="DESIGN_DIR")
    evaluate.add_argument("--rtl", type=Path, action="append", help="candidate source(s) replacing the design's RTL")
    _add_pdk_arguments(evaluate)
    _add_executor_arguments(evaluate)
    evaluate.add_argument("--flow", type=Path, help="evaluation flow YAML (default: flows/eval.yaml)")
    evaluate.add_argument("--recipe", default="flow",
                          help="synthesis recipe on top of the flow's options, as `hdlrl optimize` names it in "
                               "summary.json (a name such as hierarchical, or 'abc=balance,rewrite map=amap')")
    _add_table_arguments(evaluate)
    evaluate.add_argument("--no-cache", action="store_true", help="always run the tools")
    evaluate.add_argument("--no-sandbox", action="store_true", help="run tools without bubblewrap")
    evaluate.add_argument("--metrics", type=Path, help="write ORFS-shaped metrics JSON here (one design)")

    gate = commands.add_parser("gate", help="the verification gate's verdict on a candidate")
    gate.add_argument("design", type=Path, metavar="DESIGN_DIR")
    gate.add_argument("--rtl", type=Path, action="append", required=True, help="candidate source(s)")
    _add_pdk_arguments(gate)
    _add_gate_arguments(gate)
    gate.add_argument("--json", action="store_true", help="print JSON instead of a table")
    gate.add_argument("--no-ppa", action="store_true", help="stop after equivalence (no synthesis)")

    mutants = commands.add_parser("mutants", help="write seeded mutants of a design's RTL")
    mutants.add_argument("design", type=Path, metavar="DESIGN_DIR")
    mutants.add_argument("--n", type=_positive_int, default=30, help="how many mutants")
    mutants.add_argument("--out", type=Path, required=True, help="folder for mutant_NNN/ and mutants.json")
    mutants.add_argument("--seed", type=int, default=0)

    gate_score = commands.add_parser("gate-score", help="the gate's strength: mutants killed, false rejections")
    gate_score.add_argument("designs", nargs="+", type=Path, metavar="DESIGN_DIR")
    gate_score.add_argument("--n", type=_positive_int, default=30, help="mutants per design")
    gate_score.add_argument("--seed", type=int, default=0)
    _add_pdk_arguments(gate_score)
    _add_executor_arguments(gate_score)
    _add_gate_arguments(gate_score)
    _add_table_arguments(gate_score)

    gate_corpus = commands.add_parser("gate-corpus", help="the gate against an attack corpus: holes, false rejections")
    gate_corpus.add_argument("corpus", type=Path, metavar="CORPUS_YAML")
    gate_corpus.add_argument("--designs-dir", type=Path, default=Path("designs"), help="where project designs live")
    gate_corpus.add_argument("--rtllm", type=Path, help="imported RTLLM designs (hdlrl import rtllm), for rtllm/NAME")
    _add_pdk_arguments(gate_corpus)
    _add_executor_arguments(gate_corpus)
    _add_gate_arguments(gate_corpus)
    _add_table_arguments(gate_corpus)

    optimize = commands.add_parser("optimize", help="improve one design's PPA with a policy trained during the run")
    optimize.add_argument("design", type=Path, metavar="DESIGN_DIR")
    _add_optimize_arguments(optimize)
    optimize.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    suite = commands.add_parser("optimize-suite", help="optimise many designs; a table with the geometric mean")
    suite.add_argument("designs", nargs="+", type=Path, metavar="DESIGN_DIR")
    _add_optimize_arguments(suite)
    suite.add_argument("--resume", action="store_true", help="continue each design's run from its checkpoint")
    suite.add_argument("--arms", nargs="+", choices=tuple(ARMS),
                       help="run each of these arms at the same budget (overrides --no-update, --best-of-n "
                            "and --policy random); folders OUT/ARM-seedS")
    suite.add_argument("--seeds", nargs="+", type=int, help="run each arm with each of these seeds (default: --seed)")
    suite.add_argument("--report", type=Path,
                       help="also write the report here: a Markdown table for .md, else HTML with best-so-far curves")

    cover = commands.add_parser("cover", help="generate a testbench that reaches coverage targets and kills mutants")
    cover.add_argument("design", type=Path, metavar="DESIGN_DIR")
    cover.add_argument("--policy", default="cdg", help="cdg (embedded), random, hf:PATH_OR_NAME or openai:URL")
    cover.add_argument("--policy-option", action="append", metavar="KEY=VALUE",
                       help="a keyword option of the policy backend, repeatable")
    cover.add_argument("--budget", type=_positive_int, help="stimulus programs in all (default: the flow's budget)")
    cover.add_argument("--objective", choices=("coverage", "mutants"), default="coverage",
                       help="reward coverage gained, or also the mutants a program kills")
    cover.add_argument("--seed", type=int, default=0)
    cover.add_argument("--out", type=Path, help="run directory (default: runs/cover-DESIGN-POLICY-seedS)")
    cover.add_argument("--flow", type=Path, help="cover flow YAML (default: flows/cover.yaml)")
    cover.add_argument("--json", action="store_true", help="print the summary as JSON")
    cover.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    cover.add_argument("--no-sandbox", action="store_true", help="run tools without bubblewrap")
    cover.add_argument("--grade", type=Path, metavar="STIMULUS",
                       help="grade these stimulus programs (JSON) against the coverage targets: exit 0 pass, 1 fail")

    compare = commands.add_parser("cover-compare", help="stimulus policies side by side: coverage per simulation")
    compare.add_argument("designs", type=Path, nargs="+", metavar="DESIGN_DIR")
    compare.add_argument("--policies", default="random,cdg", help="comma-separated; the first is the baseline")
    compare.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    compare.add_argument("--budget", type=_positive_int, help="stimulus programs per run (default: the flow's budget)")
    compare.add_argument("--objective", choices=("coverage", "mutants"), default="coverage")
    compare.add_argument("--flow", type=Path, help="cover flow YAML (default: flows/cover.yaml)")
    compare.add_argument("--out", type=Path, default=Path("runs/cover-compare"))
    compare.add_argument("--report", type=Path, help="also write a Markdown table to this file")

    summarize = commands.add_parser("summarize", help="checked, hierarchical summaries of HDL modules, as a batch job")
    summarize.add_argument("inputs", nargs="*", metavar="PATH_OR_GLOB", help="HDL files, folders or globs")
    summarize.add_argument("--out", type=Path, help="JSON lines, one per module (default: summaries.jsonl)")
    summarize.add_argument("--policy", default="compose", help="compose (embedded), hf:PATH_OR_NAME or openai:URL")
    summarize.add_argument("--policy-option", action="append", metavar="KEY=VALUE",
                           help="a keyword option of the policy backend, repeatable")
    summarize.add_argument("--resume", action="store_true", help="keep the rows already in --out and skip their ids")
    summarize.add_argument("--include", "-I", type=Path, action="append", default=[], help="include directory")
    summarize.add_argument("--define", "-D", action="append", default=[], metavar="NAME[=VALUE]", help="macro")
    summarize.add_argument("--flow", type=Path, help="summarize flow YAML (default: flows/summarize.yaml)")
    summarize.add_argument("--eval", type=Path, metavar="REFS.jsonl",
                           help="score the summaries in --out against reference descriptions instead: JSON lines "
                                '{"module": NAME, "reference": TEXT}, with "path" (the defining file, relative to '
                                'REFS) or "id" (a '
                                "summary row's id) where modules share a name")
    summarize.add_argument("--json", action="store_true", help="print the batch's totals as JSON")
    _add_executor_arguments(summarize)
    references = commands.add_parser("summarize-refs",
                                     help="reference descriptions of design folders, for hdlrl summarize --eval")
    references.add_argument("designs", nargs="+", type=Path, metavar="DESIGN_OR_FOLDER")
    references.add_argument("--out", type=Path, default=Path("references.jsonl"), help="JSON lines to write")

    merge = commands.add_parser("merge", help="merge LoRA adapters of one base into one, with peft, no training")
    merge.add_argument("adapters", nargs="+", type=Path, metavar="ADAPTER_DIR")
    merge.add_argument("--out", type=Path, required=True, help="folder for the merged adapter")
    merge.add_argument("--method", default="svd", help="peft's combination type: svd (default), cat, linear, ties, "
                       "dare_linear, dare_ties, magnitude_prune, ties_svd, dare_linear_svd, dare_ties_svd, "
                       "magnitude_prune_svd")
    merge.add_argument("--weights", type=float, nargs="+", help="one per adapter (default: 1/n each; 1 for TIES)")
    merge.add_argument("--density", type=float, help="fraction of entries kept (TIES, DARE, magnitude pruning)")
    merge.add_argument("--rank", type=_positive_int, help="the merged rank, SVD methods (default: the largest input's)")
    merge.add_argument("--majority-sign", choices=("total", "frequency"), default="total", help="TIES's sign election")
    merge.add_argument("--base", help="base model folder or name (default: the one the adapters record)")
    merge.add_argument("--seed", type=int, default=0, help="DARE's random pruning")
    merge.add_argument("--json", action="store_true", help="print the report as JSON")

    importer = commands.add_parser("import", help="import benchmark designs into the design format")
    importer.add_argument("suite", choices=("rtllm",))
    importer.add_argument("source", type=Path)
    importer.add_argument("destination", type=Path,
                          help="usable designs land in DESTINATION/NAME, the others in DESTINATION/.unusable/NAME; "
                               "DESTINATION/.import.json reports every design")
    importer.add_argument("--workers", type=int, default=2, help="designs imported at once")
    importer.add_argument("--report", type=Path, help="also write the import as a Markdown table here")

    pdk = commands.add_parser("pdk", help="list or install PDKs")
    pdk_commands = pdk.add_subparsers(dest="pdk_command", required=True)
    pdk_commands.add_parser("list")
    install = pdk_commands.add_parser("install")
    install.add_argument("name")
    install.add_argument("--url", help="download from here instead of tools.lock's URL (file:// works)")
    install.add_argument("--dest", type=Path, help="install folder (default: the hdlrl cache)")

    bench = commands.add_parser("bench", help="benchmarks")
    bench_commands = bench.add_subparsers(dest="bench_command", required=True)
    bench_eval = bench_commands.add_parser("eval", help="bridge overhead, parallel speedup, cache-hit latency")
    bench_eval.add_argument("--design", type=Path, default=Path("designs/alu8"))
    bench_eval.add_argument("--pdk", default="nangate45")
    bench_eval.add_argument("--pdk-dir")
    bench_eval.add_argument("--candidates", type=int, default=20)
    bench_eval.add_argument("--output", type=Path, help="write the results JSON here")
    bench_cover = bench_commands.add_parser("cover", help="stimulus runs per second on the compile-once harness")
    bench_cover.add_argument("--design", type=Path, default=Path("designs/sync_fifo"))
    bench_cover.add_argument("--runs", type=int, default=100)
    bench_cover.add_argument("--rounds", type=int, default=3)
    bench_cover.add_argument("--cycles", type=int, default=256)
    bench_cover.add_argument("--workers", type=_positive_int, default=2)
    bench_cover.add_argument("--output", type=Path, help="write the results JSON here")
    bench_summarize = bench_commands.add_parser("summarize", help="modules summarised per second, renamed copies")
    bench_summarize.add_argument("inputs", nargs="*", type=Path, default=[Path("designs")], metavar="PATH")
    bench_summarize.add_argument("--copies", type=int, default=8, help="renamed copies of each file")
    bench_summarize.add_argument("--rounds", type=int, default=2)
    bench_summarize.add_argument("--workers", type=_positive_int, default=2)
    bench_summarize.add_argument("--output", type=Path, help="write the results JSON here")
    bench_policy = bench_commands.add_parser("policy", help="a language model's load time, tokens/s, TTT step "
                                                           "time and peak memory")
    bench_policy.add_argument("--model", default="smollm2", help="what hf:MODEL names (default: smollm2)")
    bench_policy.add_argument("--design", type=Path, default=Path("designs/updown_counter8"))
    bench_policy.add_argument("--group-size", type=_positive_int, default=4, help="k, completions per group")
    bench_policy.add_argument("--max-new-tokens", type=_positive_int, default=128)
    bench_policy.add_argument("--rounds", type=_positive_int, default=3)
    bench_policy.add_argument("--output", type=Path, help="write the results JSON here")
    for subcommands in (commands, pdk_commands, bench_commands):
        for command_parser in subcommands.choices.values():
            command_parser.set_defaults(command_parser=command_parser)  # the innermost command's wins
    return parser


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      line: str | None = None) -> str:
    """A warning as hdlrl prints everything else: one line, no source excerpt."""
    return f"hdlrl: warning: {message}\n"


def _json_error(arguments: argparse.Namespace, message: str, path: Path | None = None, line: int | None = None) -> None:
    """With --json an error exit still prints one JSON object for scripts: `error`, `file`, `line` (null if unknown)."""
    if getattr(arguments, "json", False):
        print(json.dumps({"error": message, "file": str(path) if path is not None else None, "line": line}, indent=2))


def main(argv: list[str] | None = None) -> int:
    words = [*(sys.argv[1:] if argv is None else argv), "--"]  # --json, or a prefix argparse reads as it, before `--`
    _Parser.json_asked = any(len(word) > 2 and "--json".startswith(word) for word in words[:words.index("--")])
    arguments, unknown = build_parser().parse_known_args(argv)
    if unknown:  # said with the usage of the command they were given to, not the top level's
        arguments.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    # Python's defaults show each distinct warning once per place; add deprecations met by
    # hdlrl's own calls, which the defaults hide outside __main__.
    warnings.filterwarnings("default", category=DeprecationWarning, module=r"hdlrl\b")
    warnings.formatwarning = _one_line_warning
    try:
        if isinstance(getattr(arguments, "designs", None), list):  # a folder of designs stands for them
            arguments.designs = design_folders(arguments.designs)
        if arguments.command == "tools":
            from hdlrl.commands.tools import run_tools

            return run_tools()
        if arguments.command == "eval":
            from hdlrl.commands.eval import run_eval

            return run_eval(arguments)
        if arguments.command == "gate":
            from hdlrl.commands.gate import run_gate

            return run_gate(arguments)
        if arguments.command == "gate-corpus":
            from hdlrl.commands.gate import run_gate_corpus

            return run_gate_corpus(arguments)
        if arguments.command == "gate-score":
            from hdlrl.commands.gate import run_gate_score

            return run_gate_score(arguments)
        if arguments.command == "mutants":
            from hdlrl.commands.mutants import run_mutants

            return run_mutants(arguments)
        if arguments.command == "optimize":
            from hdlrl.commands.optimize import run_optimize

            return run_optimize(arguments)
        if arguments.command == "optimize-suite":
            from hdlrl.commands.optimize_suite import run_optimize_suite

            return run_optimize_suite(arguments)
        if arguments.command == "cover":
            from hdlrl.commands.cover import run_cover

            return run_cover(arguments)
        if arguments.command == "cover-compare":
            from hdlrl.commands.cover import run_cover_compare

            return run_cover_compare(arguments)
        if arguments.command == "summarize":
            from hdlrl.commands.summarize import run_summarize

            return run_summarize(arguments)
        if arguments.command == "summarize-refs":
            from hdlrl.commands.summarize import run_summarize_references

            return run_summarize_references(arguments)
        if arguments.command == "merge":
            from hdlrl.commands.merge import run_merge

            return run_merge(arguments)
        if arguments.command == "import":
            from hdlrl.importers.rtllm import run_import

            return run_import(arguments.source, arguments.destination, arguments.workers, arguments.report)
        if arguments.command == "pdk":
            from hdlrl.commands.pdk import run_pdk

            return run_pdk(arguments)
        if arguments.command == "bench" and arguments.bench_command == "summarize":
            from hdlrl.bench.summarize import run_bench_summarize

            return run_bench_summarize(arguments)
        if arguments.command == "bench" and arguments.bench_command == "policy":
            from hdlrl.bench.policy import run_bench_policy

            return run_bench_policy(arguments)
        if arguments.command == "bench" and arguments.bench_command == "cover":
            from hdlrl.bench.cover import run_bench_cover

            return run_bench_cover(arguments)
        if arguments.command == "bench":
            from hdlrl.bench.bridge import run_bench_eval

            return run_bench_eval(arguments)
    except HdlrlError as error:
        print(f"hdlrl: error: {error}", file=sys.stderr)
        _json_error(arguments, str(error), error.path, error.line)
        return 2
    except OSError as error:
        if error.errno not in DISK_FULL:
            raise
        message = (f"{os.strerror(error.errno)} writing {error.filename}; a run keeps its last checkpoint: "
                   "free space and run again with --resume")
        print(f"hdlrl: error: {message}", file=sys.stderr)
        _json_error(arguments, message)
        return 2
    except KeyboardInterrupt:
        print("hdlrl: interrupted", file=sys.stderr)
        _json_error(arguments, "interrupted")
        return 130
    return 1


if __name__ == "__main__":
    sys.exit(main())
