"""The testbench builder (`hdlrl.hdl.testbench`) on real designs under Icarus: alu8 (combinational)
gets the outputs a Python model of it predicts, with the stimulus words packed first port high;
its X-aware comparison finds a mutant and not an unchanged copy; updown_counter8 (clocked)
samples each cycle after the rising edge that took its inputs, with an undriven input held at 0."""

from __future__ import annotations

import random
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from hdlrl.design import Clock, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.hdl.rename import prefix_modules
from hdlrl.hdl.testbench import Bench, delay_literal, hex_word, indent, pack, readmemh, slices
from hdlrl.verify.interface import Interface, Port, read_interface

from conftest import DESIGNS_DIR

needs_icarus = pytest.mark.skipif(not all(has_tool(tool) for tool in ("iverilog", "vvp", "yosys")),
                                  reason="needs iverilog, vvp and yosys")


@dataclass
class Loaded:
    rtl: list[Path]
    interface: Interface
    clocks: tuple[Clock, ...]


def load(name: str, folder: Path) -> Loaded:
    design = load_design(DESIGNS_DIR / name)
    interface = read_interface(ToolRunner(folder / "interface"), list(design.rtl), design.top)
    return Loaded(list(design.rtl), interface, design.clocks)


def simulate(folder: Path, bench: Bench, text: str, sources: list[Path], rows: list[tuple[int, ...]]) -> list[str]:
    """Write the testbench and its stimulus.hex in `folder`, run it on Icarus, return stdout lines."""
    width = sum(port.width for port in bench.driven)
    (folder / "stimulus.hex").write_text("".join(hex_word(pack(bench.driven, row), width) + "\n" for row in rows))
    (folder / "tb.v").write_text(text)
    subprocess.run(["iverilog", "-g2012", "-s", bench.top, "-o", "tb.vvp", "tb.v", *map(str, sources)],
                   cwd=folder, check=True, capture_output=True, text=True)
    run = subprocess.run(["vvp", "-n", "tb.vvp"], cwd=folder, check=True, capture_output=True, text=True, timeout=60)
    return run.stdout.splitlines()


def sampling_bench(loaded: Loaded, driven: tuple[Port, ...]) -> Bench:
    return Bench("hdlrl_builder_tb", loaded.interface.inputs, loaded.interface.outputs, driven, loaded.clocks)


def sample_outputs(bench: Bench, top: str, cycles: int) -> str:
    """The design as `hdlrl_dut`, its outputs printed in binary each cycle."""
    printed = "".join(f", hdlrl_dut_{port.name}" for port in bench.outputs)
    display = f'$display("S %0d{" %b" * len(bench.outputs)}", hdlrl_cycle{printed});'
    body = [*bench.declarations(), *bench.instance(top, "hdlrl_dut"), bench.stimulus_memory(cycles),
            "    integer hdlrl_cycle;",
            *bench.initial([readmemh("stimulus.hex"), *bench.cycle_loop(str(cycles), display)])]
    return bench.module(body)


def samples(lines: list[str]) -> list[list[int]]:
    return [[int(value, 2) for value in line.split()[2:]] for line in lines if line.startswith("S ")]


def alu8(a: int, b: int, op: int) -> tuple[int, int, int]:
    results = {0: (a + b, (a + b) >> 8), 1: (a - b, int(a < b)), 2: (a & b, 0), 3: (a | b, 0), 4: (a ^ b, 0),
               5: (~(a | b), 0), 6: (a << 1, a >> 7), 7: (a >> 1, a & 1)}
    y, carry = results[op]
    return y & 0xFF, carry, int(y & 0xFF == 0)


def test_frame_pieces() -> None:
    ports = (Port("clk", "input", 1), Port("rst", "input", 1), Port("d", "input", 4), Port("mode", "input", 2),
             Port("q", "output", 4))
    bench = Bench("tb", ports[:4], ports[4:], (ports[1], ports[2]), (Clock("clk", 4.0), Clock("other", 1.0)))
    assert [clock.name for clock in bench.clocks] == ["clk"]  # a clock that is not an input is left out
    assert [port.name for port in bench.undriven] == ["mode"]
    assert [(port.name, high, low) for port, high, low in slices(bench.driven)] == [("rst", 4, 4), ("d", 3, 0)]
    assert hex_word(pack(bench.driven, (1, 0b1010)), 5) == "1a"
    assert delay_literal(10 / 3) == "3.333" and delay_literal(5.0) == "5"
    loop = bench.cycle_loop("8", "hdlrl_compare;")
    assert loop[1:-1] == indent(["#0.4 {rst, d} = hdlrl_stimulus[hdlrl_cycle];", "#3.2 hdlrl_compare;",
                                 "@(negedge clk);"])
    assert bench.initial([])[1] == "        mode = 0;"
    text = bench.module([*bench.declarations(), *bench.instance("dut", "u")], coverage_off=True)
    assert text.startswith("/*verilator coverage_off*/\n`timescale 1ns/1ps\nmodule tb;\n")
    assert "    always #2 clk = ~clk;\n" in text and "    wire [3:0] u_q;\n" in text
    assert "    dut u (.clk(clk), .rst(rst), .d(d), .mode(mode), .q(u_q));\n" in text


@needs_icarus
def test_alu8_outputs_match_a_model(tmp_path: Path) -> None:
    loaded = load("alu8", tmp_path)
    bench = sampling_bench(loaded, loaded.interface.inputs)
    assert [port.name for port in bench.driven] == ["a", "b", "op"] and not bench.clocks
    rng = random.Random(7)
    rows = [(rng.getrandbits(8), rng.getrandbits(8), op) for op in range(8) for _ in range(6)]
    rows += [(0, 0, 0), (255, 1, 0), (0, 1, 1), (128, 0, 6), (1, 0, 7)]
    got = samples(simulate(tmp_path, bench, sample_outputs(bench, "alu8", len(rows)), loaded.rtl, rows))
    assert got == [list(alu8(*row)) for row in rows]


@needs_icarus
def test_comparison_finds_a_mutant_and_not_a_copy(tmp_path: Path) -> None:
    loaded = load("alu8", tmp_path)
    text = loaded.rtl[0].read_text()
    mutated = text.replace("OP_AND: y = a & b;", "OP_AND: y = a | b;")
    assert mutated != text
    (tmp_path / "copy.v").write_text(prefix_modules([text], "copy_")[0])
    (tmp_path / "mutant.v").write_text(prefix_modules([mutated], "mutant_")[0])
    bench = sampling_bench(loaded, loaded.interface.inputs)
    checks = bench.known("hdlrl_dut")
    for other in ("copy", "mutant"):
        checks.append(f"if ({' || '.join(bench.differs(port, 'hdlrl_dut', other) for port in bench.outputs)}) "
                      f"{other}_differs = {other}_differs + 1;")
    rng = random.Random(3)
    rows = [(rng.getrandbits(8), rng.getrandbits(8), rng.randrange(8)) for _ in range(200)]
    body = [*bench.declarations(), *bench.instance("alu8", "hdlrl_dut"), *bench.instance("copy_alu8", "copy"),
            *bench.instance("mutant_alu8", "mutant"), *bench.known_declarations(), bench.stimulus_memory(len(rows)),
            "    integer hdlrl_cycle, copy_differs = 0, mutant_differs = 0;", *bench.compare_task(checks),
            *bench.initial([readmemh("stimulus.hex"), *bench.cycle_loop(str(len(rows)), "hdlrl_compare;"),
                            '$display("DIFFERS %0d %0d", copy_differs, mutant_differs);'])]
    lines = simulate(tmp_path, bench, bench.module(body), [*loaded.rtl, tmp_path / "copy.v", tmp_path / "mutant.v"],
                     rows)
    found = next(re.match(r"DIFFERS (\d+) (\d+)", line) for line in lines if line.startswith("DIFFERS"))
    ands = sum(op == 2 and (a & b) != (a | b) for a, b, op in rows)
    assert (int(found[1]), int(found[2])) == (0, ands) and ands > 0


@needs_icarus
def test_clocked_counter_samples_after_the_edge(tmp_path: Path) -> None:
    loaded = load("updown_counter8", tmp_path)
    names = ("rst_n", "load", "d", "en")  # `up` left undriven: held at 0, the counter counts down
    driven = tuple(loaded.interface.port(name) for name in names)
    bench = sampling_bench(loaded, driven)
    assert [port.name for port in bench.undriven] == ["up"] and [clock.name for clock in bench.clocks] == ["clk"]
    rows = [(0, 0, 0, 0), (0, 0, 0, 0), (1, 0, 0, 1), (1, 0, 0, 1), (1, 0, 0, 0), (1, 1, 42, 0), (1, 0, 0, 1),
            (1, 0, 0, 1)]
    got = samples(simulate(tmp_path, bench, sample_outputs(bench, "updown_counter8", len(rows)), loaded.rtl, rows))
    # q after the rising edge of each cycle; tc = en and q == 0 (counting down)
    assert got == [[0, 0], [0, 0], [255, 0], [254, 0], [254, 0], [42, 0], [41, 0], [40, 0]]
