"""Yosys synthesis to a liberty: generic `synth`, then flip-flop and ABC technology mapping.

The script follows what OpenROAD-flow-scripts feeds its timers: a flat netlist with split
nets, tie cells for constants and buffers for plain assigns, written without expressions,
so OpenSTA can read it. Area comes from `stat -liberty`.

A recipe may add word-level Yosys passes between `synth`'s coarse and fine stages, and may
replace Yosys's own ABC script by a sequence of ABC's logic optimisations ended by one of its
technology mappers, as DRiLLS and ABC-RL search over. Every command of both vocabularies
preserves the logic function, so the gate's verdict on the RTL holds for every recipe.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator

from hdlrl.eda.diagnostics import emit_warnings, first_error, parse_diagnostics
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.synth import SynthResult
from hdlrl.eda.toolchain import require_tool
from hdlrl.pdk import Pdk

NETLIST = "netlist.v"
STAT = "stat.txt"


def _plain_abc_options(text: str) -> str:
    """The options are pasted into the Yosys script after `abc`: a `;` or newline would add commands."""
    if not re.fullmatch(r"[A-Za-z0-9_.+= -]{0,200}", text):
        raise ValueError(f"{text!r}: only abc options such as '-D 1000' (letters, digits, _ . + = - and spaces)")
    return text


AbcOptions = Annotated[str, AfterValidator(_plain_abc_options)]

# Word-level passes a recipe may run between `synth -run :fine` and `synth -run fine:`.
COARSE_PASSES = {
    "opt_full": "opt -full",  # mux and constant folding beyond synth's default
    "share_aggressive": "share -aggressive",  # share operators even where it adds muxes
    "opt_share": "opt_share",  # merge cells of one type that feed one mux
    "muxpack": "muxpack",  # chains of muxes into parallel muxes
    "pmuxtree": "pmuxtree",  # parallel muxes into trees of 2-input muxes
    "wreduce": "wreduce",  # drop bits whose value is known
}
# ABC's combinational logic optimisations (its abc.rc aliases: b, rw, rwz, rf, rfz, rs, rsz).
ABC_COMMANDS = {
    "balance": "balance", "rewrite": "rewrite", "rewrite_z": "rewrite -z",
    "refactor": "refactor", "refactor_z": "refactor -z", "resub": "resub", "resub_z": "resub -z",
    "dc2": "dc2", "ifraig": "ifraig", "choices": "dch -f",
}
# `dch` leaves an AIG with choice nodes, on which ABC's rewriting commands write no network (Yosys
# then stops: "Can't open ABC output file"); balance, dc2 and ifraig give a plain AIG back.
NEED_PLAIN_AIG = frozenset({"rewrite", "rewrite_z", "refactor", "refactor_z", "resub", "resub_z"})
GIVE_PLAIN_AIG = frozenset({"balance", "dc2", "ifraig"})
# ABC's technology mappers to the liberty's cells; {D} is Yosys's delay target, empty without -D.
ABC_MAPPERS = {
    "nf": "&get -n; &nf {D}; &put",  # the delay-oriented mapper of Yosys's own script
    "map": "map {D}",  # the classic mapper
    "amap": "amap",  # area-oriented mapping
    "sized": "map {D}; buffer; upsize {D}; dnsize {D}",  # mapping, then buffering and gate sizing
}
CoarsePass = Literal[tuple(COARSE_PASSES)]
AbcCommand = Literal[tuple(ABC_COMMANDS)]
AbcMapper = Literal[tuple(ABC_MAPPERS)]


@dataclass(frozen=True)
class SynthOptions:
    """Knobs of the synthesis recipe (part of the flow configuration and of every cache key)."""

    flatten: bool = True
    abc_script: AbcOptions = ""  # extra options for `abc`, e.g. "-D 1000" (target delay in ps)
    coarse_passes: tuple[CoarsePass, ...] = ()  # run in this order between synth's coarse and fine stages
    abc_commands: tuple[AbcCommand, ...] = ()  # with abc_mapper: ABC's script instead of Yosys's own
    abc_mapper: AbcMapper | None = None  # None: Yosys's own ABC script (abc_commands must be empty)

    def __post_init__(self):
        if self.abc_commands and self.abc_mapper is None:
            raise ValueError("abc_commands need an abc_mapper to end the sequence")
        misplaced = choices_conflict(self.abc_commands)
        if misplaced:
            raise ValueError(f"abc command {misplaced} cannot follow choices without balance, dc2 or ifraig between")


def choices_conflict(commands: tuple[str, ...]) -> str | None:
    """The first command that would run on `dch`'s choice nodes and cannot, else None."""
    with_choices = False
    for command in commands:
        if with_choices and command in NEED_PLAIN_AIG:
            return command
        with_choices = command == "choices" or (with_choices and command not in GIVE_PLAIN_AIG)
    return None


def abc_sequence_argument(options: SynthOptions) -> str:
    """The `-script` argument of `abc` for a recipe's sequence, "" for Yosys's own script.

    Inline (`+cmd;cmd`, commas for spaces), so the whole recipe stays in the synthesis script.
    """
    if options.abc_mapper is None:
        return ""
    script = "; ".join(["strash", *(ABC_COMMANDS[name] for name in options.abc_commands),
                        ABC_MAPPERS[options.abc_mapper]])
    return "-script +" + ";".join(command.replace(" ", ",") for command in script.split("; "))


def read_commands(sources: list[Path], include_dirs: list[Path] = ()) -> list[str]:
    """One `read_verilog -sv` per source, with the include folders: how every Yosys script
    of hdlrl (synthesis, interface, structure, equivalence) reads RTL."""
    includes = "".join(f" -I{directory}" for directory in include_dirs)
    return [f"read_verilog -sv{includes} {source}" for source in sources]


def synthesis_script(sources: list[Path], top: str, include_dirs: list[Path], pdk: Pdk,
                     options: SynthOptions) -> str:
    liberty = str(pdk.liberty)
    reads = "\n".join(read_commands(sources, include_dirs))
    synth = f"synth -top {top}" + (" -flatten" if options.flatten else "")
    stages = [f"{synth} -run :fine", *(COARSE_PASSES[name] for name in options.coarse_passes),
              f"{synth} -run fine:"] if options.coarse_passes else [synth]
    return "\n".join([
        f"read_liberty -lib {liberty}",  # cell port directions, so `check` sees who drives what
        reads,
        f"hierarchy -check -top {top}",
        *stages,
        f"dfflibmap -liberty {liberty}",
        " ".join(filter(None, ["abc", f"-liberty {liberty}", abc_sequence_argument(options), options.abc_script])),
        "opt_clean -purge",
        "splitnets -ports",
        "opt_clean -purge",
        f"hilomap -singleton -hicell {pdk.tie_high[0]} {pdk.tie_high[1]} -locell {pdk.tie_low[0]} {pdk.tie_low[1]}",
        f"insbuf -buf {' '.join(pdk.buffer)}",
        "opt_clean -purge",
        "check -assert",
        f"tee -q -o {STAT} stat -liberty {liberty}",
        f"write_verilog -noattr -noexpr -nohex -nodec {NETLIST}",
        "",
    ])


_CHIP_AREA = re.compile(r"Chip area for (?:top )?module '\\?(?P<module>[^']+)':\s*(?P<area>[\d.eE+-]+)")
_CELL_LINE = re.compile(r"^\s{5}(?P<cell>\S+)\s+(?P<count>\d+)\s*$")


def parse_stat(text: str) -> tuple[float, dict[str, int]]:
    """Area and per-cell counts from the output of `stat -liberty`."""
    areas = [float(match.group("area")) for match in _CHIP_AREA.finditer(text)]
    cells = {match.group("cell"): int(match.group("count"))
             for match in map(_CELL_LINE.match, text.splitlines()) if match}
    return (areas[-1] if areas else 0.0), cells


class YosysSynthesizer:
    name = "yosys"

    def synthesize(self, runner: ToolRunner, sources: list[Path], top: str, include_dirs: list[Path],
                   pdk: Pdk, options: SynthOptions) -> SynthResult:
        script = runner.scratch / "synth.ys"
        script.write_text(synthesis_script(sources, top, include_dirs, pdk, options))
        run = runner.run([require_tool("yosys").path, "-q", "-l", "synth.log", "-s", script.name])
        log = (runner.scratch / "synth.log").read_text(errors="replace") if (runner.scratch / "synth.log").exists() else ""
        # Liberty parsing noise: Yosys cannot read scan-flop functions, which it never maps to anyway.
        warnings = emit_warnings("yosys", parse_diagnostics("yosys", log), ignore=("unsupported expression",))
        if not run.ok:
            if run.memory_exceeded:
                reason = f"synthesis exceeded the {run.limits.memory_mb} MiB memory limit"
            elif run.fault:
                reason = f"yosys {run.fault}"
            else:
                reason = first_error("yosys", run.output + log, f"yosys failed (exit {run.returncode})")
            return SynthResult(False, reason, warnings=warnings, wall_s=run.wall_s)
        area, cells = parse_stat((runner.scratch / STAT).read_text())
        return SynthResult(True, "", area, sum(cells.values()), cells, Path(NETLIST), warnings, run.wall_s)
