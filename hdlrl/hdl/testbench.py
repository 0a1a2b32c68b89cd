"""Verilog testbench text around one DUT: the frame the generated testbenches share.

Three testbenches are generated from it: the differential simulation's (the reference beside
the candidate, `hdlrl.verify.diffsim`), the compile-once coverage harness (the design beside
its mutants, stimulus named on the command line, `hdlrl.cover.harness`) and the standalone
replay (outputs checked against recorded ones, `hdlrl.cover.testbench`). What they share is
built here: the clocks, the input registers, DUT instances with their output wires, the
stimulus memory (one word per cycle, the driven inputs concatenated, the first in the high
bits), the X-aware comparison, and the cycle. A cycle is one period of the first clock:
inputs change a tenth of a period after its falling edge and outputs are sampled eight
tenths later, after the rising edge between them; without a clock a cycle is: apply the
inputs, wait 1 ns, sample. Each caller adds what is its own: what a sample does, what the
run reports at the end.

Text only. Ports are anything with a `name` and a `width` (an interface's ports), clocks
anything with a `name` and a `period_ns` (a design's clocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

INDENT = "    "
COVERAGE_OFF = "/*verilator coverage_off*/"
STIMULUS = "hdlrl_stimulus"  # the stimulus memory
CYCLE = "hdlrl_cycle"  # the cycle counter of the loop
COMPARE = "hdlrl_compare"  # the comparison task each caller fills


class PortLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def width(self) -> int: ...


class ClockLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def period_ns(self) -> float: ...


def delay_literal(nanoseconds: float) -> str:
    """A delay literal at the testbench's 1 ps precision."""
    return format(round(nanoseconds, 3), "f").rstrip("0").rstrip(".")


def declaration(kind: str, width: int, name: str) -> str:
    """`    reg [7:0] name;`, no range for one bit."""
    return f"{INDENT}{kind} {f'[{width - 1}:0] ' if width > 1 else ''}{name};"


def concatenation(ports: Sequence[PortLike]) -> str:
    return f"{{{', '.join(port.name for port in ports)}}}"


def slices(ports: Sequence[PortLike]) -> list[tuple[PortLike, int, int]]:
    """(port, msb, lsb) of each port in the concatenation of `ports`, the first in the high bits."""
    result, low = [], sum(port.width for port in ports)
    for port in ports:
        low -= port.width
        result.append((port, low + port.width - 1, low))
    return result


def hex_word(value: int, width: int) -> str:
    """`value` as a `$readmemh` word of `width` bits (at least one digit)."""
    return format(value, f"0{max(1, (width + 3) // 4)}x")


def pack(ports: Sequence[PortLike], row: Sequence[int]) -> int:
    """The values of `row` concatenated as `ports` are, the first in the high bits."""
    word = 0
    for port, value in zip(ports, row):
        word = (word << port.width) | value
    return word


def readmemh(file: str, memory: str = STIMULUS) -> str:
    return f'$readmemh("{file}", {memory});'


def mismatch(value: str, other: str, care: str) -> str:
    """True where `value` and `other` differ on a bit `care` has set; an X or Z in `care` counts as 0."""
    return f"((({value} ^ {other}) & {care}) !== 0)"


def indent(lines: Sequence[str], depth: int = 1) -> list[str]:
    return [INDENT * depth + line for line in lines]


@dataclass(frozen=True)
class Bench:
    """The frame of a testbench module `top` around DUT instances of one interface."""

    top: str  # the testbench module
    inputs: tuple[PortLike, ...]  # the DUT's inputs, clocks among them
    outputs: tuple[PortLike, ...]  # the DUT's outputs
    driven: tuple[PortLike, ...]  # the inputs a stimulus row drives, in row order
    clocks: tuple[ClockLike, ...] = ()  # generated here; clocks that are not inputs are left out

    def __post_init__(self) -> None:
        names = {port.name for port in self.inputs}
        object.__setattr__(self, "clocks", tuple(clock for clock in self.clocks if clock.name in names))

    @property
    def undriven(self) -> tuple[PortLike, ...]:
        """Inputs neither driven nor a clock: held at 0."""
        other = {port.name for port in self.driven} | {clock.name for clock in self.clocks}
        return tuple(port for port in self.inputs if port.name not in other)

    def module(self, body: Sequence[str], comments: Sequence[str] = (), coverage_off: bool = False) -> str:
        """The whole file: the timescale, `comments`, then `module top; body endmodule`."""
        lines = [COVERAGE_OFF] if coverage_off else []
        lines += ["`timescale 1ns/1ps", *comments, f"module {self.top};", *body, "endmodule"]
        return "\n".join(lines) + "\n"

    def declarations(self) -> list[str]:
        """The clocks, each toggling every half period from 0, and a register per other input."""
        lines = []
        for clock in self.clocks:
            lines += [f"{INDENT}reg {clock.name} = 1'b0;",
                      f"{INDENT}always #{delay_literal(clock.period_ns / 2)} {clock.name} = ~{clock.name};"]
        return lines + [declaration("reg", port.width, port.name) for port in (*self.driven, *self.undriven)]

    def instance(self, module: str, name: str) -> list[str]:
        """An instance `name` of `module` on the inputs, its outputs on wires `name_<output>`."""
        connections = [f".{port.name}({port.name})" for port in self.inputs]
        connections += [f".{port.name}({name}_{port.name})" for port in self.outputs]
        return [*(declaration("wire", port.width, f"{name}_{port.name}") for port in self.outputs),
                f"{INDENT}{module} {name} ({', '.join(connections)});"]

    def stimulus_memory(self, rows: int) -> str:
        width = max(1, sum(port.width for port in self.driven))
        return f"{INDENT}reg [{width - 1}:0] {STIMULUS} [0:{max(rows, 1) - 1}];"

    def known_declarations(self) -> list[str]:
        """Per output a two-state mask `hdlrl_known_<output>` (see `known`)."""
        return [declaration("bit", port.width, f"hdlrl_known_{port.name}") for port in self.outputs]

    def known(self, reference: str) -> list[str]:
        """Statements setting each mask to 1 where instance `reference`'s output is 0 or 1, 0 where X or Z."""
        return [f"hdlrl_known_{port.name} = ~({reference}_{port.name} ^ {reference}_{port.name});"
                for port in self.outputs]

    def differs(self, port: PortLike, reference: str, other: str) -> str:
        """Instance `other`'s output `port` differs from `reference`'s on a known bit (after `known`)."""
        return mismatch(f"{reference}_{port.name}", f"{other}_{port.name}", f"hdlrl_known_{port.name}")

    def compare_task(self, statements: Sequence[str]) -> list[str]:
        """The task `hdlrl_compare` that a sample calls."""
        return [f"{INDENT}task {COMPARE};", f"{INDENT * 2}begin", *indent(statements, 3),
                f"{INDENT * 2}end", f"{INDENT}endtask", ""]

    def initial(self, statements: Sequence[str]) -> list[str]:
        """The initial block: the undriven inputs set to 0, `statements`, `$finish`."""
        return [f"{INDENT}initial begin", *indent([f"{port.name} = 0;" for port in self.undriven], 2),
                *indent(statements, 2), f"{INDENT * 2}$finish;", f"{INDENT}end"]

    def cycle_loop(self, count: str, sample: str, then: Sequence[str] = (), row: str = CYCLE) -> list[str]:
        """`count` cycles (`hdlrl_cycle` counts them): drive the inputs from `hdlrl_stimulus[row]`,
        wait for the outputs, `sample` and `then`, wait for the next falling edge of the clock."""
        period = self.clocks[0].period_ns if self.clocks else None
        apply = f"#{delay_literal(period / 10)} " if period else ""
        settle = f"#{delay_literal(period * 8 / 10)}" if period else "#1"
        drive = f"{concatenation(self.driven)} = {STIMULUS}[{row}];" if self.driven else ";"
        body = [f"{apply}{drive}", f"{settle} {sample}", *then]
        if self.clocks:
            body.append(f"@(negedge {self.clocks[0].name});")
        return [f"for ({CYCLE} = 0; {CYCLE} < {count}; {CYCLE} = {CYCLE} + 1) begin", *indent(body), "end"]


# A Verilator `--cc --exe` main: run the model until $finish, then write the run's coverage
# where +coverage= says (Verilator's `--binary` main loses it when `$finish` ends the run).
_MAIN_TEMPLATE = """\
#include <memory>
#include "verilated.h"
#include "verilated_cov.h"
#include "V{top}.h"

int main(int argc, char** argv) {{
    const std::unique_ptr<VerilatedContext> context{{new VerilatedContext}};
    context->commandArgs(argc, argv);
    const std::unique_ptr<V{top}> model{{new V{top}{{context.get()}}}};
    while (!context->gotFinish()) {{
        model->eval();
        if (!model->eventsPending()) break;
        context->time(model->nextTimeSlot());
    }}
    model->final();
    const char* coverage = context->commandArgsPlusMatch("coverage=");
    context->coveragep()->write(coverage[0] ? coverage + sizeof("+coverage=") - 1 : "coverage.dat");
    return 0;
}}
"""


def coverage_main(top: str) -> str:
    """C++ main for a Verilator `--cc --exe` build of `top` that keeps its coverage (`+coverage=FILE`)."""
    return _MAIN_TEMPLATE.format(top=top)
