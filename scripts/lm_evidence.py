"""Does a real language model's search learn? The runs and figures of docs/lm.md.

For each design and seed, `hdlrl optimize` with an hf policy in both modes (write, choose),
TTT beside frozen (`--no-update`) at the same budget; `hdlrl cover` with the model; and
`hdlrl summarize` with the model beside the embedded compose policy. Every run is a
subprocess writing its own folder under --out, skipped when its summary exists (rerunning
resumes the sweep). Then it writes evidence.json, an HTML report with the plots, and
prints markdown tables:

    python scripts/lm_evidence.py --out runs/lm-evidence --budget 12 --max-new-tokens 192
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from hdlrl.html_page import Series, html_page, svg_chart
from hdlrl.summarize.reference_scores import SentenceEmbedder, evaluate, references_from_designs
from hdlrl.summarize.batch import read_written
from hdlrl.text_tables import markdown_table

REPO = Path(__file__).resolve().parents[1]
# A rejection at one of these stages means the candidate did not get past it (hdlrl/verify/reward.py).
BEFORE = {"parsed": ("screen", "parse"), "elaborated": ("screen", "parse", "elaborate"),
          "passed": ("screen", "parse", "elaborate", "interface", "structure", "testbench")}
KL_SIGNALS = ("reference_kl", "effective_sample_size", "constant_fraction", "saturated_fraction", "kl_coef", "delta",
              "loss")
COLOURS = {"ttt": "#1f77b4", "frozen": "#ff7f0e", "embedded": "#7f7f7f"}
OTHER_COLOURS = ("#2ca02c", "#9467bd", "#8c564b")


def arms(arguments: argparse.Namespace, lm_mode: str) -> list[str]:
    """ttt (the hf policy's default learning rate), ttt-lrX for each further rate, frozen, and in
    choose mode the embedded rewrite policy that offers the menu (the rates too are choose mode's
    alone: the write mode's groups seldom carry a signal)."""
    extra = [f"ttt-lr{rate:g}" for rate in arguments.learning_rates] if lm_mode == "choose" else []
    for name, colour in zip(extra, OTHER_COLOURS):
        COLOURS.setdefault(name, colour)
    return ["ttt", *extra, "frozen", *(["embedded"] if lm_mode == "choose" else [])]


def hdlrl(*arguments: str) -> None:
    print("$ hdlrl " + " ".join(arguments), flush=True)
    subprocess.run([sys.executable, "-m", "hdlrl.cli", *arguments], check=True, stdout=subprocess.DEVNULL)


def history(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "history.jsonl").read_text().splitlines()]


def optimize_rows(out: Path, arguments: argparse.Namespace) -> list[dict]:
    """One row per (mode, update, design, seed, step): the stage fractions and the KL signals."""
    rows = []
    flow = out / "optimize.yaml"
    text = (REPO / "flows" / "optimize.yaml").read_text()
    flow.write_text(text.replace("groups: 2 ", "groups: 1 ").replace("group_size: 4 ", f"group_size: {arguments.k} "))
    for gate_file in ("gate.yaml", "eval.yaml"):
        (out / gate_file).write_text((REPO / "flows" / gate_file).read_text())
    for design in arguments.designs:
        for seed in arguments.seeds:
            for lm_mode in ("write", "choose"):
                for update in arms(arguments, lm_mode):
                    run_dir = out / "optimize" / f"{Path(design).name}-{lm_mode}-{update}-seed{seed}"
                    policy = (["--policy", "rewrite"] if update == "embedded" else
                              ["--policy", f"hf:{arguments.model}", "--lm-mode", lm_mode, *arguments.policy_options])
                    if not (run_dir / "summary.json").is_file():
                        hdlrl("optimize", design, *policy,
                              "--flow", str(flow), "--budget", str(arguments.budget), "--seed", str(seed),
                              "--out", str(run_dir), "--json",
                              *(["--no-update"] if update == "frozen" else []),
                              *(["--policy-option", f"learning_rate={update.removeprefix('ttt-lr')}"]
                                if update.startswith("ttt-lr") else []),
                              *(["--resume"] if run_dir.exists() else []))
                    candidates: dict[int, list[dict]] = defaultdict(list)
                    ratios = [row["ppa_ratio"] if row["accepted"] else 1.0 for row in history(run_dir)
                              if row["kind"] == "candidate"]
                    best = min(ratios, default=1.0)
                    # how many candidates the run judged before its best: the speed of the search
                    to_best = next((index + 1 for index, ratio in enumerate(ratios) if ratio == best), 0)
                    for row in history(run_dir):
                        if row["kind"] == "candidate":
                            candidates[row["step"]].append(row)
                        elif row["kind"] == "step":
                            judged = candidates[row["step"]]
                            fractions = {name: sum(1 for c in judged if c["accepted"] or c["stage"] not in stages)
                                         / max(len(judged), 1) for name, stages in BEFORE.items()}
                            fractions["accepted"] = sum(c["accepted"] for c in judged) / max(len(judged), 1)
                            rows.append({"design": Path(design).name, "seed": seed, "lm_mode": lm_mode,
                                         "update": update, "step": row["step"], **fractions,
                                         "best_ratio": row.get("best_ratio"), "candidates_to_best": to_best,
                                         **{signal: row.get(signal) for signal in KL_SIGNALS}})
    return rows


def cover_rows(out: Path, arguments: argparse.Namespace) -> list[dict]:
    rows = []
    for design in arguments.designs:
        for seed in arguments.cover_seeds or arguments.seeds:
            run_dir = out / "cover" / f"{Path(design).name}-seed{seed}"
            if not (run_dir / "summary.json").is_file():
                try:
                    hdlrl("cover", design, "--policy", f"hf:{arguments.model}", "--budget", str(arguments.budget),
                          "--seed", str(seed), "--out", str(run_dir), "--json", *arguments.policy_options,
                          *(["--resume"] if run_dir.exists() else []))
                except subprocess.CalledProcessError:  # no valid program at all: no testbench, the history stays
                    print(f"  {run_dir.name}: no testbench (no program reached coverage)", flush=True)
            programs: dict[int, list[dict]] = defaultdict(list)
            for row in history(run_dir):
                if row["kind"] == "program":
                    programs[row["step"]].append(row)
                elif row["kind"] == "step":
                    made = programs[row["step"]]
                    valid = sum(1 for program in made if not program.get("reason", "").startswith("refused"))
                    rows.append({"design": Path(design).name, "seed": seed, "step": row["step"],
                                 "valid": valid / max(len(made), 1),
                                 **{metric: row.get(metric) for metric in ("line", "branch", "toggle", "functional")},
                                 **{signal: row.get(signal) for signal in KL_SIGNALS}})
    return rows


def summarize_rows(out: Path, arguments: argparse.Namespace) -> list[dict]:
    references, _ = references_from_designs([Path(design) for design in arguments.designs])
    embedder = SentenceEmbedder()
    rows = []
    (out / "summarize").mkdir(parents=True, exist_ok=True)
    flow = out / "summarize" / "summarize.yaml"
    text = (REPO / "flows" / "summarize.yaml").read_text()
    for old, new in (("iterations: 64 ", f"iterations: {arguments.summary_rollouts} "), ("time_limit_s: 2.0 ", "time_limit_s: 3600 "),
                     ("candidates: 6 ", f"candidates: {arguments.k} "), ("update: false ", "update: true "),
                     ("item_time_limit_s: 30 ", "item_time_limit_s: 3600 ")):
        assert old in text, old
        text = text.replace(old, new)
    flow.write_text(text)
    for policy in ("compose", f"hf:{arguments.model}"):
        written = out / "summarize" / f"{policy.replace(':', '_')}.jsonl"
        extra = [] if policy == "compose" else ["--policy-option", f"max_new_tokens={arguments.summary_tokens}",
                                                "--policy-option", f"temperature={arguments.temperature}"]
        hdlrl("summarize", *[str(Path(design) / "rtl") for design in arguments.designs], "--policy", policy,
              "--flow", str(flow), "--out", str(written), "--resume", "--workers", "1", *extra)
        summaries = list(read_written(written).values())
        evaluation = evaluate(summaries, references, embedder)
        hallucinated = sum(len(row.get("hallucinated") or []) for row in summaries)
        scores = [row["scores"] for row in summaries if row.get("scores")]
        rows.append({"policy": policy, "modules": len(summaries), "hallucination_rejections": hallucinated,
                     "fc": mean([score["fc"] for score in scores]), "total": mean([score["total"] for score in scores]),
                     "rouge_l": evaluation.rouge_l, "cosine": evaluation.embedding})
    return rows


def mean(values: list) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.fmean(present) if present else None


def by_step(rows: list[dict], key: str, **match) -> list[tuple[float, float]]:
    steps: dict[int, list] = defaultdict(list)
    for row in rows:
        if all(row[name] == value for name, value in match.items()):
            steps[row["step"]].append(row[key])
    return [(step, value) for step, values in sorted(steps.items()) if (value := mean(values)) is not None]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/lm-evidence"))
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--designs", nargs="+", default=["designs/updown_counter8", "designs/alu8",
                                                         "designs/traffic_light"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--budget", type=int, default=16)
    parser.add_argument("--k", type=int, default=4, help="group size")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--summary-rollouts", type=int, default=8, help="rollouts per module")
    parser.add_argument("--summary-tokens", type=int, default=96, help="max_new_tokens of a summary edit")
    parser.add_argument("--cover-seeds", type=int, nargs="*", help="the seeds of the cover runs (default: --seeds)")
    parser.add_argument("--learning-rates", type=float, nargs="*", default=[],
                        help="also run TTT at these LoRA learning rates (the default is the hf policy's, 4e-5)")
    parser.add_argument("--figures", type=Path, help="also write each plot as NAME.svg here (docs/lm)")
    parser.add_argument("--skip", nargs="*", default=[], choices=("optimize", "cover", "summarize"))
    arguments = parser.parse_args()
    arguments.policy_options = ["--policy-option", f"max_new_tokens={arguments.max_new_tokens}",
                                "--policy-option", f"temperature={arguments.temperature}"]
    arguments.out.mkdir(parents=True, exist_ok=True)
    evidence = {"settings": {key: value for key, value in vars(arguments).items() if key != "out"}}
    evidence["settings"]["out"] = str(arguments.out)
    body: list[str] = []
    figures: dict[str, str] = {}
    if "optimize" not in arguments.skip:
        rows = evidence["optimize"] = optimize_rows(arguments.out, arguments)
        for lm_mode in ("write", "choose"):
            table = []
            for update in arms(arguments, lm_mode):
                for step, _ in by_step(rows, "accepted", lm_mode=lm_mode, update=update):
                    picked = [row for row in rows if (row["lm_mode"], row["update"], row["step"]) == (lm_mode, update, step)]
                    table.append([update, step, len(picked), *(round(mean([row[name] for row in picked]), 3)
                                                               for name in (*BEFORE, "accepted")),
                                  *(None if (value := mean([row[signal] for row in picked])) is None else round(value, 4)
                                    for signal in ("reference_kl", "effective_sample_size", "constant_fraction",
                                                   "saturated_fraction", "kl_coef"))])
            headers = ["update", "step", "runs", *BEFORE, "accepted", "reference_kl", "ess", "constant", "saturated",
                       "kl_coef"]
            print(f"\n### optimize, {lm_mode}\n\n" + markdown_table(headers, table))
            totals = []
            for update in arms(arguments, lm_mode):
                runs: dict[tuple, list[dict]] = defaultdict(list)
                for row in rows:
                    if (row["lm_mode"], row["update"]) == (lm_mode, update):
                        runs[row["design"], row["seed"]].append(row)
                finals = {key: run[-1]["best_ratio"] for key, run in runs.items()}
                totals.append([update, len(runs), *(round(mean([row[name] for run in runs.values() for row in run]), 3)
                                                    for name in (*BEFORE, "accepted")),
                               round(mean(list(finals.values())), 4),
                               round(mean([run[0]["candidates_to_best"] for run in runs.values()]), 1),
                               ", ".join(f"{design}/{seed}: {ratio:.4f}" for (design, seed), ratio in sorted(finals.items()))])
            print("\n" + markdown_table(["update", "runs", *BEFORE, "accepted", "mean final best ratio",
                                         "candidates to best", "per run"],
                                        totals))
            for fraction in ("parsed", "accepted"):
                body.append(figures.setdefault(f"optimize-{lm_mode}-{fraction}", svg_chart([Series(update, by_step(rows, fraction, lm_mode=lm_mode, update=update),
                                              COLOURS[update], "line") for update in arms(arguments, lm_mode)],
                                      "step", f"fraction {fraction}", f"{lm_mode}: {fraction}", y_include=(0, 1))))
    if "cover" not in arguments.skip:
        rows = evidence["cover"] = cover_rows(arguments.out, arguments)
        table = [[step, round(valid, 3), *(None if (value := mean([row[metric] for row in rows if row["step"] == step]))
                                           is None else round(value, 3) for metric in ("line", "branch", "toggle"))]
                 for step, valid in by_step(rows, "valid")]
        print("\n### cover\n\n" + markdown_table(["step", "valid programs", "line", "branch", "toggle"], table))
        body.append(figures.setdefault("cover", svg_chart([Series("valid programs", by_step(rows, "valid"), COLOURS["ttt"], "line"),
                               Series("line coverage", by_step(rows, "line"), COLOURS["frozen"], "line")],
                              "step", "fraction", "cover", y_include=(0, 1))))
    if "summarize" not in arguments.skip:
        rows = evidence["summarize"] = summarize_rows(arguments.out, arguments)
        print("\n### summarize\n\n" + markdown_table(list(rows[0]), [list(row.values()) for row in rows]))
    (arguments.out / "evidence.json").write_text(json.dumps(evidence, indent=2, default=str) + "\n")
    (arguments.out / "evidence.html").write_text(html_page("hdlrl: a language model in every job", body))
    if arguments.figures:
        arguments.figures.mkdir(parents=True, exist_ok=True)
        for name, svg in figures.items():
            (arguments.figures / f"{name}.svg").write_text(svg + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
