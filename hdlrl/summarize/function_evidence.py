"""Function claims checked by simulation: "`out` is a 4-to-1 multiplexer" must hold on Icarus too.

A function claim is written from Yosys's gate-level truth table (`hdlrl.summarize.behaviour`),
so a Yosys misreading, or a construct that simulates differently from how it synthesises,
would pass a checker that reads the same netlist. Here the module runs alone on Icarus over
its inputs: every assignment when they have at most `EXHAUSTIVE_BITS` bits, else
`RANDOM_VECTORS` vectors from a fixed seed. Every simulated output must equal the row of the
table the function was recognised from. One mismatch refutes the claim; a module that does not
simulate alone leaves it unverified, which counts as not verified.
"""

from __future__ import annotations

import re

from hdlrl.eda.runner import Limits
from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.ir import Module
from hdlrl.hdl.sources import file_text
from hdlrl.summarize.behaviour import Behaviour, function_claim
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.evidence_benches import run_bench
from hdlrl.summarize.reset_evidence import Evidence

BENCH_TOP = "hdlrl_function_evidence"
EXHAUSTIVE_BITS = 12
RANDOM_VECTORS = 4096
_LIMITS = Limits(time_s=20.0, memory_mb=1024)
_ROW = re.compile(r"^HDLRL (?P<values>[01xzXZ ]+)$")


def _testbench(module: Module, inputs: list[tuple[str, int]], outputs: list[tuple[str, int]]) -> str:
    total = sum(width for _, width in inputs)
    exhaustive = total <= EXHAUSTIVE_BITS
    vectors = 1 << total if exhaustive else RANDOM_VECTORS
    assignments, offset = [], 0
    for name, width in inputs:
        if exhaustive:
            assignments.append(f"{name} = vector[{offset + width - 1}:{offset}];")
        else:
            assignments.append(f"{name} = {{" + ", ".join(["$random(seed)"] * ((width + 31) // 32)) + "};")
        offset += width
    shown = [name for name, _ in inputs] + [name for name, _ in outputs]
    return "\n".join([
        "`timescale 1ns/1ps", f"module {BENCH_TOP};", "  integer seed = 7;", f"  reg [{max(total, 1)}:0] vector;",
        *(f"  reg [{width - 1}:0] {name};" for name, width in inputs),
        *(f"  wire [{width - 1}:0] {name};" for name, width in outputs),
        f"  {module.name} dut(" + ", ".join(f".{name}({name})" for name in shown) + ");",
        "  initial begin",
        f"    for (vector = 0; vector < {vectors}; vector = vector + 1) begin",
        "      " + " ".join(assignments), "      #1;",
        '      $display("HDLRL' + " %b" * len(shown) + '", ' + ", ".join(shown) + ");",
        "    end", "    $finish;", "  end", "endmodule", ""])


class FunctionEvidence:
    """Simulates one module once, on the first function claim; `__call__` gives each claim's evidence."""

    def __init__(self, module: Module, facts: ModuleFacts, behaviour: Behaviour, sandbox: bool | None = None):
        self.module, self.facts, self.behaviour, self.sandbox = module, facts, behaviour, sandbox
        self.cache: dict[str, Evidence] = {}  # output -> evidence for its recognised function

    def __call__(self, claim: Claim) -> Evidence:
        output = claim.names[0]
        function = self.behaviour.functions.get(output)
        if function is None or function_claim(function) != (claim.value, claim.names[1:]):
            return Evidence("refuted", f"the netlist does not show {output} computing that function")
        if not self.cache:
            self.cache = self._simulate()
        return self.cache.get(output, Evidence("unverified", f"{output} was not simulated"))

    def _simulate(self) -> dict[str, Evidence]:
        ports = self.facts.ports
        inputs = [(port.name, port.width) for port in ports if port.direction == "input"]
        outputs = [(port.name, port.width) for port in ports if port.direction == "output"]
        claimed = list(self.behaviour.functions)
        if any(width is None for _, width in inputs + outputs) or any(port.direction == "inout" for port in ports):
            return {name: Evidence("unverified", "a port's width is not a number") for name in claimed}
        run = run_bench(file_text(self.module), _testbench(self.module, inputs, outputs), BENCH_TOP, _LIMITS,
                        self.sandbox)
        if not run.ok:
            first = next(iter(run.output.strip().splitlines()), run.fault or "no output")
            return {name: Evidence("unverified", f"the module does not simulate alone: {first}") for name in claimed}
        rows = [match.group("values").split() for match in map(_ROW.match, run.output.splitlines()) if match]
        names = [name for name, _ in inputs + outputs]
        return {output: self._judge(output, [dict(zip(names, row, strict=True)) for row in rows]) for output in claimed}

    def _judge(self, output: str, rows: list[dict[str, str]]) -> Evidence:
        table = self.behaviour.tables[output]
        if not rows:
            return Evidence("unverified", "the simulation printed no rows")
        for row in rows:
            simulated = row[output].lower()
            expected = table.value({name: int(row[name], 2) for name, _ in table.inputs})
            if set(simulated) & set("xz") or int(simulated, 2) != expected:
                shown = ", ".join(f"{name}={row[name]}" for name, _ in table.inputs)
                return Evidence("refuted", f"with {shown} Icarus gives {output}={simulated}, the table {expected}")
        return Evidence("verified", f"Icarus agrees with the table on {len(rows)} input vectors")
