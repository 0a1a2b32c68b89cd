"""Yosys synthesis to a liberty: generic `synth`, then flip-flop and ABC technology mapping.

The script follows what OpenROAD-flow-scripts feeds its timers: a flat netlist with split
nets, tie cells for constants and buffers for plain assigns, written without expressions,
so OpenSTA can read it. Area comes from `stat -liberty`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

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


@dataclass(frozen=True)
class SynthOptions:
    """Knobs of the synthesis recipe (part of the flow configuration and of every cache key)."""

    flatten: bool = True
    abc_script: AbcOptions = ""  # extra options for `abc`, e.g. "-D 1000" (target delay in ps)


def read_commands(sources: list[Path], include_dirs: list[Path] = ()) -> list[str]:
    """One `read_verilog -sv` per source, with the include folders: how every Yosys script
    of hdlrl (synthesis, interface, structure, equivalence) reads RTL."""
    includes = "".join(f" -I{directory}" for directory in include_dirs)
    return [f"read_verilog -sv{includes} {source}" for source in sources]


def synthesis_script(sources: list[Path], top: str, include_dirs: list[Path], pdk: Pdk,
                     options: SynthOptions) -> str:
    liberty = str(pdk.liberty)
    reads = "\n".join(read_commands(sources, include_dirs))
    return "\n".join([
        f"read_liberty -lib {liberty}",  # cell port directions, so `check` sees who drives what
        reads,
        f"hierarchy -check -top {top}",
        f"synth -top {top}" + (" -flatten" if options.flatten else ""),
        f"dfflibmap -liberty {liberty}",
        f"abc -liberty {liberty} {options.abc_script}".rstrip(),
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
