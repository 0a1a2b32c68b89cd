"""The standalone replay testbench `hdlrl cover` leaves in its run directory.

The coverage a cover run reports is only worth something if someone without hdlrl can
reproduce it and reuse the stimulus as a regression. So the final stimulus set is written as
data beside a plain Verilog testbench that replays it on any simulator, checks every output
against what the reference design did (X-aware: bits where the reference was X or Z are
don't-care), and two shell scripts: `replay/run.sh` (Icarus, pass/fail on a DUT given by the
user or on the copied reference) and `replay/coverage.sh` (Verilator, the reported line,
branch and toggle coverage again).

Layout under the run directory:

- `testbench/hdlrl_replay_tb.v`: top `hdlrl_replay_tb`, the DUT as `hdlrl_dut`;
- `testbench/stimulus.hex`: one word per cycle, the driven inputs concatenated (first port in
  the high bits), all stimuli one after the other;
- `testbench/expected.hex` / `expected_mask.hex`: per cycle the reference's outputs
  concatenated the same way, and the bits to compare (0 where the reference was X/Z, and for
  every bit of the cycles before a stimulus's `first_compared`);
- `testbench/rtl/`: the reference RTL (and include folders), as laid out in the design;
  the design's data files in `testbench/`, where the harness's `$readmemh` finds them too;
- `testbench/hdlrl_replay_main.cpp`: the C++ main that keeps Verilator's coverage;
- `replay/run.sh`, `replay/coverage.sh`, `replay/README.md`.

The cycle timing is the harness's, and the scripts run each stimulus in a simulation of its
own (`+stimulus=S`), from power-up as the harness did: back to back (the testbench without
`+stimulus`), a stimulus would start from the state the previous one left, which its reset
rows do not clear where the design keeps unreset state (a RAM), and the outputs and toggles
would differ from the recorded ones.

The recorded outputs come from Verilator when the harness gave code coverage, and Verilator
is two-state: it reads an unwritten RAM word or an unreset flop as 0 where Icarus (and the
language) say X. So the reference is replayed once on Icarus here too (the Icarus harness),
and a bit is compared only where both simulators know it; otherwise `run.sh` would fail on the
reference itself. (Where both know a bit and differ, it stays compared: a race between the
design and the testbench that `run.sh` should show.)
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hdlrl.cover.harness import HarnessBuildError, HarnessSpec, build_harness
from hdlrl.design import Design
from hdlrl.eda.sim.verilator import VERILATOR_QUIET
from hdlrl.hdl.testbench import Bench, concatenation, coverage_main, hex_word, indent, mismatch, readmemh, slices
from hdlrl.verify.diffsim import Stimulus, write_stimulus
from hdlrl.verify.interface import Interface, Port

TESTBENCH_TOP = "hdlrl_replay_tb"
TESTBENCH_FILE = "hdlrl_replay_tb.v"
STIMULUS_FILE = "stimulus.hex"
EXPECTED_FILE = "expected.hex"
MASK_FILE = "expected_mask.hex"
MAIN_FILE = "hdlrl_replay_main.cpp"
DUT_INSTANCE = "hdlrl_dut"
PASS_LINE = "REPLAY PASSED"
MISMATCH_LINE = "REPLAY MISMATCH"


@dataclass
class ReplayFiles:
    """What `hdlrl cover` reports of the replay it leaves behind."""

    testbench: Path
    run_script: Path
    coverage_script: Path
    cycles: int  # all stimuli together


def _icarus_outputs(design: Design, interface: Interface, driven: tuple[Port, ...],
                    stimuli: list[Stimulus]) -> tuple[list[list[list[str]]] | None, str]:
    """The reference's outputs on Icarus (four-state), from the Icarus build of the harness; None
    and the reason where Icarus cannot build or run it."""
    spec = HarnessSpec(design, interface, driven, max_cycles=max(len(stimulus.rows) for stimulus in stimuli))
    with tempfile.TemporaryDirectory(prefix="hdlrl-replay-") as scratch:
        try:
            harness = build_harness(spec, Path(scratch), "icarus")
        except HarnessBuildError as error:
            return None, str(error)
        outputs = []
        for number, stimulus in enumerate(stimuli):
            run = harness.run(stimulus, f"stimulus{number}")
            if not run.ok:
                return None, f"stimulus {number}: {run.reason}"
            outputs.append(run.outputs)
    return outputs, ""


def _expected_words(interface: Interface, stimuli: list[Stimulus], expected: list[list[list[str]]],
                    on_icarus: list[list[list[str]]] | None) -> tuple[list[str], list[str], int]:
    """Hex lines of expected.hex and expected_mask.hex, and how many bits known in `expected` are
    left out because they are X or Z on Icarus. X/Z bits are 0 in both files."""
    width = sum(port.width for port in interface.outputs)
    values, masks, dropped = [], [], 0
    for number, (stimulus, cycles) in enumerate(zip(stimuli, expected)):
        for cycle, row in enumerate(cycles):
            bits = "".join(row)
            compared = cycle >= stimulus.first_compared
            known = [compared and bit in "01" for bit in bits]
            if on_icarus is not None:
                set_there = [bit in "01" for bit in "".join(on_icarus[number][cycle])]
                dropped += sum(k and not there for k, there in zip(known, set_there))
                known = [k and there for k, there in zip(known, set_there)]
            value = "".join("1" if bit == "1" else "0" for bit in bits)
            mask = "".join("1" if k else "0" for k in known)
            values.append(hex_word(int(value or "0", 2), width))
            masks.append(hex_word(int(mask or "0", 2), width))
    return values, masks, dropped


def _check(interface: Interface, driven: tuple[Port, ...], stimuli: list[Stimulus],
           expected: list[list[list[str]]]) -> None:
    """Refuse outputs that do not fit the stimuli before anything is simulated or written."""
    if not stimuli or not any(stimulus.rows for stimulus in stimuli):
        raise ValueError("no stimulus to replay")
    if len(expected) != len(stimuli):
        raise ValueError(f"{len(stimuli)} stimuli but outputs of {len(expected)}")
    widths = [port.width for port in interface.outputs]
    for number, (stimulus, cycles) in enumerate(zip(stimuli, expected)):
        if stimulus.ports != driven:
            raise ValueError(f"stimulus {number} does not drive the `driven` ports in their order")
        if len(cycles) != len(stimulus.rows):
            raise ValueError(f"stimulus {number}: {len(stimulus.rows)} cycles but {len(cycles)} rows of outputs")
        for cycle, row in enumerate(cycles):
            if [len(bits) for bits in row] != widths:
                raise ValueError(f"stimulus {number} cycle {cycle}: expected {len(widths)} outputs of widths "
                                 f"{widths}, got {row}")


def replay_verilog(design: Design, interface: Interface, driven: tuple[Port, ...], lengths: list[int]) -> str:
    """The testbench: the harness's clocks and cycle, the expected outputs compared every cycle,
    `$fatal` (exit 1 on Icarus) at the first mismatch; `+stimulus=S` replays stimulus S alone."""
    bench = Bench(TESTBENCH_TOP, interface.inputs, interface.outputs, driven, design.clocks)
    outputs, rows = interface.outputs, sum(lengths)
    output_width = max(1, sum(port.width for port in outputs))
    comments = [f"// Replays the final stimulus set of `hdlrl cover` on {interface.top} ({len(lengths)} stimuli, "
                f"{rows} cycles) and checks every output against the reference's.",
                f"// {STIMULUS_FILE}: {concatenation(driven)} per cycle; {EXPECTED_FILE}: {concatenation(outputs)}; "
                f"{MASK_FILE}: 1 where a bit is compared.",
                "// +stimulus=S replays stimulus S alone, from power-up as hdlrl ran it (replay/run.sh runs each so);",
                "// without it all run back to back, each from the state the previous one left."]
    body = [*bench.declarations(), *bench.instance(interface.top, DUT_INSTANCE), bench.stimulus_memory(rows),
            f"    reg [{output_width - 1}:0] hdlrl_expected [0:{rows - 1}];",
            f"    reg [{output_width - 1}:0] hdlrl_care [0:{rows - 1}];",
            f"    reg [{output_width - 1}:0] hdlrl_want, hdlrl_known;",
            f"    integer hdlrl_cycles [0:{len(lengths) - 1}];",
            # Counters start here, not in the initial block: there Verilator 5.006 (--timing) would
            # print the pass line with the count's value from before the loop.
            f"    integer hdlrl_first = 0, hdlrl_last = {len(lengths) - 1}, hdlrl_replayed = 0, hdlrl_row = 0;",
            "    integer hdlrl_stimulus_number, hdlrl_cycle;", ""]

    given = " ".join(f"{port.name}=%h" for port in driven)
    checks = ["hdlrl_want = hdlrl_expected[hdlrl_row];", "hdlrl_known = hdlrl_care[hdlrl_row];"]
    for port, high, low in slices(outputs):
        got, want, known = f"{DUT_INSTANCE}_{port.name}", f"hdlrl_want[{high}:{low}]", f"hdlrl_known[{high}:{low}]"
        checks += [
            f"if {mismatch(got, want, known)} begin",
            f'    $display("{MISMATCH_LINE} stimulus %0d cycle %0d output {port.name} expected %b got %b",'
            f" hdlrl_stimulus_number, hdlrl_cycle, ({want} & {known}) | (~{known} & {{{port.width}{{1'bx}}}}), {got});",
            f'    $display("  inputs: {given}"{"".join(f", {port.name}" for port in driven)});',
            '    $fatal(1, "replay failed at stimulus %0d cycle %0d", hdlrl_stimulus_number, hdlrl_cycle);',
            "end",
        ]
    body += bench.compare_task(checks)

    replay = bench.cycle_loop("hdlrl_cycles[hdlrl_stimulus_number]", "hdlrl_compare;",
                              ["hdlrl_row = hdlrl_row + 1;", "hdlrl_replayed = hdlrl_replayed + 1;"], row="hdlrl_row")
    body += bench.initial([
        *[f"hdlrl_cycles[{number}] = {length};" for number, length in enumerate(lengths)],
        readmemh(STIMULUS_FILE), readmemh(EXPECTED_FILE, "hdlrl_expected"), readmemh(MASK_FILE, "hdlrl_care"),
        'if ($value$plusargs("stimulus=%d", hdlrl_first)) hdlrl_last = hdlrl_first;',
        "for (hdlrl_stimulus_number = 0; hdlrl_stimulus_number < hdlrl_first; "
        "hdlrl_stimulus_number = hdlrl_stimulus_number + 1)",
        "    hdlrl_row = hdlrl_row + hdlrl_cycles[hdlrl_stimulus_number];",
        "for (hdlrl_stimulus_number = hdlrl_first; hdlrl_stimulus_number <= hdlrl_last; "
        "hdlrl_stimulus_number = hdlrl_stimulus_number + 1)",
        *indent(replay),
        f'$display("{PASS_LINE} %0d cycles", hdlrl_replayed);',
    ])
    return bench.module(body, comments, coverage_off=True)


def _copy_sources(design: Design, bench: Path) -> tuple[list[str], list[str]]:
    """The reference RTL and include folders under `bench/rtl`, the data files in `bench`;
    returns the RTL and include paths relative to `bench`."""
    rtl, includes = [], []
    for path in design.rtl:
        relative = Path("rtl") / path.relative_to(design.root)
        (bench / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, bench / relative)
        rtl.append(str(relative))
    for directory in design.include_dirs:
        relative = Path("rtl") / directory.relative_to(design.root)
        shutil.copytree(directory, bench / relative, dirs_exist_ok=True)
        includes.append(str(relative))
    for data_file in design.data_files:
        shutil.copyfile(data_file, bench / data_file.name)
    return rtl, includes


_PROLOGUE = """\
#!/usr/bin/env bash
# {purpose}
set -euo pipefail
bench="$(cd "$(dirname "${{BASH_SOURCE[0]}}")/../testbench" && pwd -P)"
build="$(mktemp -d "${{TMPDIR:-/tmp}}/hdlrl-replay.XXXXXX")"
trap 'rm -rf "$build"' EXIT
"""

_RUN_SCRIPT = """\
sources=()
for source in "$@"; do
    case "$source" in /*) sources+=("$source") ;; *) sources+=("$PWD/$source") ;; esac
done
[ "${{#sources[@]}}" -gt 0 ] || sources=({reference})
iverilog -g2012 -s {top} -o "$build/replay.vvp" {includes} "$bench/{testbench}" "${{sources[@]}}"
cd "$bench"
cycles=0
for ((stimulus = 0; stimulus < {stimuli}; stimulus++)); do
    status=0
    timeout "${{HDLRL_REPLAY_TIMEOUT:-60}}" vvp -n "$build/replay.vvp" +stimulus="$stimulus" > "$build/replay.log" 2>&1 || status=$?
    passed="$(sed -n 's/^{passed} \\([0-9][0-9]*\\) cycles$/\\1/p' "$build/replay.log" | tail -n 1)"
    if [ "$status" -ne 0 ] || [ -z "$passed" ] || grep -q '^{mismatch}' "$build/replay.log"; then
        cat "$build/replay.log"
        echo "REPLAY FAILED on stimulus $stimulus (vvp exit $status)" >&2
        exit 1
    fi
    cycles=$((cycles + passed))
done
echo "{passed} $cycles cycles ({stimuli} stimuli)"
"""

# The awk counts points as hdlrl does (`hdlrl.cover.coverage`): records with the same file,
# line, source range, kind and instance are one point; branch = the if/else/case points.
_COVERAGE_SCRIPT = """\
out="${{1:-$PWD/replay-coverage}}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
export OBJCACHE="${{OBJCACHE:-$(command -v ccache || true)}}"
cd "$bench"
verilator --cc --exe --build --timing --coverage-line --coverage-toggle {quiet} --top-module {top} \\
    -Mdir "$build" -j 0 -o replay {includes} "$bench/{testbench}" {reference} "$bench/{main}" > "$build/build.log" 2>&1 \\
    || {{ cat "$build/build.log" >&2; exit 1; }}
for ((stimulus = 0; stimulus < {stimuli}; stimulus++)); do
    "$build/replay" +stimulus="$stimulus" +coverage="$build/stimulus$stimulus.dat" > "$build/replay.log" 2>&1 \\
        || {{ cat "$build/replay.log" >&2; echo "the replay of stimulus $stimulus failed" >&2; exit 1; }}
done
verilator_coverage --write "$out/coverage.dat" "$build"/stimulus*.dat
verilator_coverage --annotate-min 1 --annotate "$out/annotated" "$out/coverage.dat"
verilator_coverage --write-info "$out/coverage.info" "$out/coverage.dat"
awk '
    /^C / {{
        count = $NF; key = substr($0, 4, length($0) - length(count) - 5)
        split("", field); n = split(key, parts, "\\001")
        for (i = 1; i <= n; i++) if ((at = index(parts[i], "\\002")) > 0)
            field[substr(parts[i], 1, at - 1)] = substr(parts[i], at + 1)
        range = ("S" in field) ? field["S"] : field["l"]
        id = field["f"] SUBSEP field["l"] SUBSEP range SUBSEP field["o"] SUBSEP field["h"]
        if (field["page"] ~ /^v_toggle/) hits["toggle", id] += count
        else if (field["o"] ~ /^(if|else|elsif|case)$/) {{ hits["line", id] += count; hits["branch", id] += count }}
        else if (field["page"] ~ /^v_line/) hits["line", id] += count
    }}
    END {{
        for (point in hits) {{ split(point, part, SUBSEP); total[part[1]]++; if (hits[point] > 0) hit[part[1]]++ }}
        split("line branch toggle", metrics, " ")
        for (m = 1; m <= 3; m++) {{
            metric = metrics[m]
            if (total[metric]) printf "%-7s %d/%d (%.1f%%)\\n", metric, hit[metric], total[metric], 100 * hit[metric] / total[metric]
        }}
    }}' "$out/coverage.dat"
echo "coverage.dat, coverage.info (lcov) and annotated sources in $out"
"""

_README = """\
Replay of the final stimulus set of `hdlrl cover` ({cycles} cycles, {stimuli} stimuli); no hdlrl needed.
- `run.sh [DUT.v ...]`: Icarus (`iverilog -g2012`) replay on the given DUT sources, default the reference copy in
  `../testbench/rtl`; exit 1 and the stimulus, cycle, output and values at the first mismatch, else 0.
- `coverage.sh [OUT_DIR]`: Verilator line and toggle coverage of the reference copy on the same replay; writes
  `OUT_DIR/coverage.dat` (default `./replay-coverage`), `OUT_DIR/coverage.info` (lcov: `genhtml` makes a web page of
  it) and `OUT_DIR/annotated`, prints line/branch/toggle as hdlrl does.
"""


def _script(path: Path, purpose: str, body: str) -> Path:
    path.write_text(_PROLOGUE.format(purpose=purpose) + body)
    path.chmod(0o755)
    return path


def write_replay(folder: Path, design: Design, interface: Interface, driven: tuple[Port, ...],
                 stimuli: list[Stimulus], expected: list[list[list[str]]]) -> ReplayFiles:
    """Write the testbench, its data and the scripts under `folder/testbench` and `folder/replay`.

    `stimuli[i].rows` hold the `driven` ports in order; `expected[i][c]` the reference's outputs
    (in `interface.outputs` order, `%b` strings, x/z don't-care) at cycle c, as `HarnessRun.outputs`.
    """
    _check(interface, driven, stimuli, expected)
    bench, replay = folder / "testbench", folder / "replay"
    shutil.rmtree(bench, ignore_errors=True)
    bench.mkdir(parents=True)
    replay.mkdir(parents=True, exist_ok=True)

    on_icarus, failure = _icarus_outputs(design, interface, driven, stimuli)
    values, masks, dropped = _expected_words(interface, stimuli, expected, on_icarus)
    rows = tuple(row for stimulus in stimuli for row in stimulus.rows)
    write_stimulus(bench / STIMULUS_FILE, Stimulus(driven, rows, 0))
    (bench / EXPECTED_FILE).write_text("\n".join(values) + "\n")
    (bench / MASK_FILE).write_text("\n".join(masks) + "\n")
    lengths = [len(stimulus.rows) for stimulus in stimuli]
    testbench = bench / TESTBENCH_FILE
    testbench.write_text(replay_verilog(design, interface, driven, lengths))
    (bench / MAIN_FILE).write_text(coverage_main(TESTBENCH_TOP))
    rtl, includes = _copy_sources(design, bench)

    def in_bench(paths: list[str], prefix: str = "") -> str:
        return " ".join(f'{prefix}"$bench/"{shlex.quote(path)}' for path in paths)

    names = dict(top=TESTBENCH_TOP, testbench=TESTBENCH_FILE, reference=in_bench(rtl),
                 includes=in_bench(includes, "-I"), stimuli=len(stimuli))
    run_script = _script(replay / "run.sh", "Replays the stimulus on DUT sources (default: the reference) with "
                         "Icarus; exit 1 at the first mismatch.",
                         _RUN_SCRIPT.format(**names, mismatch=MISMATCH_LINE, passed=PASS_LINE))
    coverage_script = _script(replay / "coverage.sh", "Replays the stimulus on the reference with Verilator "
                              "coverage and reports it.",
                              _COVERAGE_SCRIPT.format(**names, main=MAIN_FILE, quiet=" ".join(VERILATOR_QUIET)))
    note = (f"Not compared: {dropped} output bits that are X on Icarus (unset state) but 0/1 in the recorded outputs.\n"
            if dropped else "" if on_icarus is not None else
            f"Icarus could not replay the reference, so run.sh will fail: {failure}\n")
    (replay / "README.md").write_text(_README.format(cycles=len(rows), stimuli=len(stimuli)) + note)
    return ReplayFiles(testbench, run_script, coverage_script, len(rows))
