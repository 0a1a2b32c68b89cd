"""Bounded model checks with ABC's `bmc3`, for the solver's input sequences.

Yosys's own `sat -seq N` hands all N cycles to one SAT problem: on a 4x4 keypad scanner it
spent over two minutes of CPU proving that no key can be pressed within 24 cycles, and the
solver's 30 s limit cut most such checks short. ABC's `bmc3` unrolls one cycle at a time and
stops at the first cycle that fails, so the same question takes a tenth of a second, and the
sequence it returns is a shortest one. Yosys still reads the design (the same text every other
tool sees), flattens it and writes it as AIGER; a driver module around the top holds the reset
in the first cycle and replays a fixed prefix, so the only inputs ABC may choose are the free
ones after it.

The model is 2-valued from all-zero registers, as `sat -set-init-zero` was: a stimulus
generator, not a proof. The harness still simulates every sequence it returns.
"""

from __future__ import annotations

import re

from hdlrl.design import Design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import require_tool
from hdlrl.verify.interface import Port

DRIVER_MODULE = "hdlrl_bmc_driver"
DRIVER_FILE = "hdlrl_bmc_driver.v"

# The commands that turn the flat model into an and-inverter graph with zero-initialised latches
# (every register starts at zero, as the solver's model always has) and the assertion as a bad
# state: the fine-grained cells write_aiger takes, with flip-flops that step every cycle. The
# word-level `opt` and `wreduce` before `techmap` shrink what it expands (12 s to 3 s of CPU
# on the keypad scanner).
AIGER_COMMANDS = ("zinit -all", "setundef -zero", "opt -fast", "wreduce", "opt_clean", "techmap", "opt -fast",
                  "dffunmap", "abc -g AND -fast", "opt_clean", "write_aiger -zinit -I -B -L -map model.map model.aig")

# A value in a counterexample of `write_cex -n`: primary input number, time frame, bit.
_CEX_VALUE = re.compile(r"\bpi(\d+)@(\d+)=([01])\b")
# A row of write_aiger's map file for an input bit: AIGER input number, bit, port name.
_MAP_INPUT = re.compile(r"^input (\d+) (\d+) (\S+)$")


def reset_cycles(design: Design) -> int:
    """The cycles the driver holds the reset before the data ports' first row: one, or none
    without a reset."""
    return 1 if design.reset is not None else 0


def driver_module(design: Design, data: tuple[Port, ...], prefix: list[dict[str, int]]) -> str:
    """A Verilog module around `design.top` whose inputs are the data ports, free: a cycle
    counter (zero at the start, saturating) holds the reset for `reset_cycles` and releases it
    after, and drives the data ports with `prefix`'s rows in the cycles that follow. Every clock
    of the design is the driver's one clock."""
    first = reset_cycles(design)
    bits = max(1, (first + len(prefix) + 1).bit_length())
    lines = [f"module {DRIVER_MODULE} (input hdlrl_clock"
             + "".join(f", input [{port.width - 1}:0] {port.name}" for port in data) + ");",
             f"    reg [{bits - 1}:0] hdlrl_cycle;",
             "    always @(posedge hdlrl_clock) if (~&hdlrl_cycle) hdlrl_cycle <= hdlrl_cycle + 1'b1;",
             *(f"    reg [{port.width - 1}:0] hdlrl_drive_{port.name};" for port in data),
             "    always @* begin",
             *(f"        hdlrl_drive_{port.name} = {port.name};" for port in data)]
    if prefix and data:
        lines.append("        case (hdlrl_cycle)")
        for index, row in enumerate(prefix):
            values = " ".join(f"hdlrl_drive_{port.name} = {port.width}'d{row.get(port.name, 0)};" for port in data)
            lines.append(f"            {bits}'d{first + index}: begin {values} end")
        lines.append("            default: ;")
        lines.append("        endcase")
    lines.append("    end")
    connections = [f".{clock.name}(hdlrl_clock)" for clock in design.clocks]
    if design.reset is not None:
        active, inactive = ("1'b1", "1'b0") if design.reset.polarity == "high" else ("1'b0", "1'b1")
        connections.append(f".{design.reset.name}(hdlrl_cycle == {bits}'d0 ? {active} : {inactive})")
    connections += [f".{port.name}(hdlrl_drive_{port.name})" for port in data]
    lines += [f"    {design.top} hdlrl_dut ({', '.join(connections)});", "endmodule", ""]
    return "\n".join(lines)


def input_bits(map_text: str) -> dict[int, tuple[str, int]]:
    """AIGER input number -> (port, bit), from write_aiger's map file."""
    return {int(match[1]): (match[3], int(match[2])) for match in map(_MAP_INPUT.match, map_text.splitlines())
            if match}


def counterexample_frames(cex_text: str, bits: dict[int, tuple[str, int]],
                          ports: tuple[Port, ...]) -> list[dict[str, int]]:
    """The values of `ports` in each time frame of an ABC counterexample (`write_cex -n`), the
    first frame first; a bit it does not name reads as 0."""
    frames: dict[int, dict[str, int]] = {}
    names = {port.name for port in ports}
    for number, frame, value in _CEX_VALUE.findall(cex_text):
        port, bit = bits.get(int(number), ("", 0))
        row = frames.setdefault(int(frame), dict.fromkeys(names, 0))
        if port in names and value == "1":
            row[port] |= 1 << bit
    return [frames[frame] for frame in sorted(frames)]


def bounded_check(runner: ToolRunner, model_commands: list[str], frames: int,
                  ports: tuple[Port, ...]) -> list[dict[str, int]] | None:
    """Build the model (`model_commands`, the driver its top) and look for a time frame within
    `frames` where its assertion fails: the values of `ports` in each frame up to that one, or
    None (none within `frames`, the limits ran out, or the model would not build)."""
    build = runner.run([require_tool("yosys").path, "-q", "-p", "; ".join([*model_commands, *AIGER_COMMANDS])])
    if not build.ok:
        return None
    check = runner.run([require_tool("yosys-abc").path, "-c",
                        f"read_aiger model.aig; bmc3 -F {frames}; write_cex -n counterexample.txt"])
    counterexample = runner.scratch / "counterexample.txt"
    if not check.ok or "was asserted in frame" not in check.output or not counterexample.exists():
        return None
    bits = input_bits((runner.scratch / "model.map").read_text())
    return counterexample_frames(counterexample.read_text(), bits, ports)
