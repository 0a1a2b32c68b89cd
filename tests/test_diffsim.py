"""Differential simulation on real simulators: a reference agrees with itself, injected bugs are
caught at the cycle the stimulus predicts (a hidden counter's deviation long after reset too), and a
broken or hanging candidate is reported, not raised."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hdlrl.design import Design, load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.evaluate.eval_flow import FLOWS_DIR
from hdlrl.evaluate.staging import stage_scratch
from hdlrl.verify.diffsim import DiffSimOptions, DiffSimResult, differential_simulation, generate_stimulus
from hdlrl.verify.gate_flow import load_gate_flow
from hdlrl.verify.interface import Interface, read_interface

from conftest import DESIGNS_DIR

GATE = load_gate_flow().differential
ICARUS = DiffSimOptions(simulator="icarus", exhaustive_input_bits=0)  # random rows only: cycles are as laid out


class Bench:
    """One design staged in a scratch folder, ready to be compared with candidates."""

    def __init__(self, tmp_path: Path, name: str):
        self.design: Design = load_design(DESIGNS_DIR / name)
        self.runner = ToolRunner(tmp_path / "scratch")
        self.rtl, _, self.includes = stage_scratch(self.design, self.runner.scratch)
        self.interface: Interface = read_interface(self.runner, self.rtl, self.design.top, self.includes)

    def mutant(self, old: str, new: str) -> str:
        """The reference RTL with one fragment replaced (it must occur exactly once)."""
        text = (self.runner.scratch / self.rtl[0]).read_text()
        assert text.count(old) == 1, f"{old!r} must occur once in {self.rtl[0]}"
        return text.replace(old, new)

    def write(self, folder: str, text: str | None) -> list[Path]:
        """`text` as the design's RTL file under `folder` in the scratch; the staged reference for None."""
        if text is None:
            return self.rtl
        path = Path(folder) / self.rtl[0].name
        (self.runner.scratch / folder).mkdir(exist_ok=True)
        (self.runner.scratch / path).write_text(text)
        return [path]

    def compare(self, candidate_text: str | None = None, options: DiffSimOptions = ICARUS,
                reference_text: str | None = None) -> DiffSimResult:
        return differential_simulation(self.runner, self.design, self.interface,
                                       self.write("reference", reference_text), self.write("candidate", candidate_text),
                                       self.includes, options)


@pytest.mark.parametrize("name", ["alu8", "mac8", "seq_detect", "sync_fifo"])
def test_reference_agrees_with_itself(tmp_path: Path, name: str) -> None:
    bench = Bench(tmp_path, name)
    result = bench.compare()
    assert result.ran and result.agreed, result.reason
    assert result.agreement == 1.0 and result.mismatched_cycles == 0 and result.first_mismatch is None
    expected_cycles = ICARUS.cycles + ICARUS.reset_free_cycles - (ICARUS.reset_cycles if bench.design.reset else 0)
    assert result.cycles == expected_cycles
    assert result.simulator == "icarus" and result.seed == ICARUS.seed


def _first_cycle_with_xor_bug(bench: Bench, options: DiffSimOptions) -> tuple[int, dict[str, int]]:
    """Where an XOR computed as OR first shows: op = 4 with a and b sharing a set bit."""
    stimulus = generate_stimulus(bench.design, bench.interface, options)
    names = [port.name for port in stimulus.ports]
    for cycle, row in enumerate(stimulus.rows):
        values = dict(zip(names, row))
        if values["op"] == 4 and values["a"] & values["b"]:
            return cycle, values
    raise AssertionError("the stimulus never exercises XOR with overlapping operands")


def test_injected_bug_is_caught_at_the_predicted_cycle(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    result = bench.compare(bench.mutant("OP_XOR: y = a ^ b;", "OP_XOR: y = a | b;"))
    cycle, values = _first_cycle_with_xor_bug(bench, ICARUS)
    assert result.ran and not result.agreed
    mismatch = result.first_mismatch
    assert (mismatch.cycle, mismatch.output) == (cycle, "y")
    assert mismatch.reference == f"8'h{values['a'] ^ values['b']:02x}"
    assert mismatch.candidate == f"8'h{values['a'] | values['b']:02x}"
    assert mismatch.inputs == {"a": f"8'h{values['a']:02x}", "b": f"8'h{values['b']:02x}", "op": "3'h4"}
    assert result.reason.startswith(f"output y differs at cycle {cycle}: reference {mismatch.reference}, "
                                    f"candidate {mismatch.candidate} (a=")
    assert "\n" not in result.reason
    assert 0 < result.mismatched_cycles < result.cycles
    assert result.agreement == pytest.approx(1 - result.mismatched_cycles / result.cycles)


def test_bug_on_a_corner_value_is_caught(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    # Wrong only when a is all ones: uniform random stimulus alone would hit it once in 256 cycles
    # per operation, the corner values make it frequent.
    result = bench.compare(bench.mutant("OP_ADD: begin y = sum[7:0];",
                                        "OP_ADD: begin y = (a == 8'hff) ? 8'h00 : sum[7:0];"))
    assert result.ran and not result.agreed
    assert result.first_mismatch.inputs["a"] == "8'hff" and result.first_mismatch.inputs["op"] == "3'h0"


def test_bug_after_a_midrun_reset_is_caught(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "updown_counter8")
    # Resets to 1 instead of 0 on every reset but the first one.
    candidate = bench.mutant("        if (!rst_n)\n            q <= 8'd0;",
                             "        if (!rst_n)\n            q <= reset_before ? 8'd1 : 8'd0;")
    candidate = candidate.replace("    always @(posedge clk or negedge rst_n)",
                                  "    reg reset_before = 1'b0;\n    always @(posedge rst_n) reset_before <= 1'b1;\n"
                                  "    always @(posedge clk or negedge rst_n)", 1)
    assert bench.compare(candidate, replace(ICARUS, midrun_reset=False)).agreed

    result = bench.compare(candidate)
    stimulus = generate_stimulus(bench.design, bench.interface, ICARUS)
    midrun_start = next(cycle for cycle in range(ICARUS.reset_cycles, ICARUS.cycles) if stimulus.rows[cycle][0] == 0)
    assert ICARUS.cycles // 4 <= midrun_start < 3 * ICARUS.cycles // 4
    assert result.ran and not result.agreed
    assert (result.first_mismatch.cycle, result.first_mismatch.output) == (midrun_start, "q")
    assert result.first_mismatch.inputs["rst_n"] == "1'h0"
    assert (result.first_mismatch.reference, result.first_mismatch.candidate) == ("8'h00", "8'h01")


def _reset_cycles(bench: Bench, options: DiffSimOptions) -> list[int]:
    """The cycles of the generated stimulus with the reset asserted, at the design's polarity."""
    stimulus = generate_stimulus(bench.design, bench.interface, options)
    assert stimulus.ports[0].name == bench.design.reset.name
    active = 1 if bench.design.reset.polarity == "high" else 0
    return [cycle for cycle, row in enumerate(stimulus.rows) if row[0] == active]


def _longest_hold(values: list[int]) -> int:
    longest = length = 1
    for previous, value in zip(values, values[1:]):
        length = length + 1 if value == previous else 1
        longest = max(longest, length)
    return longest


@pytest.mark.parametrize("name", ["seq_detect", "mac8"])  # reset active low, active high
def test_gate_flow_ends_in_a_reset_free_stretch_of_two_to_the_17_cycles(tmp_path: Path, name: str) -> None:
    assert GATE.reset_free_cycles >= 2 ** 17
    bench = Bench(tmp_path, name)
    stimulus = generate_stimulus(bench.design, bench.interface, GATE)
    assert len(stimulus.rows) == GATE.cycles + GATE.reset_free_cycles
    resets = _reset_cycles(bench, GATE)
    midrun = resets[GATE.reset_cycles:]
    assert resets[:GATE.reset_cycles] == list(range(GATE.reset_cycles))
    assert len(midrun) == 2 and GATE.cycles // 4 <= midrun[0] < 3 * GATE.cycles // 4
    stretch = stimulus.rows[midrun[-1] + 1:]
    assert len(stretch) >= GATE.reset_free_cycles
    # The long holds of control inputs go on over the whole stretch, not only in the opening.
    controls = [index for index, port in enumerate(stimulus.ports) if index and port.width <= 2]
    assert controls
    for index in controls:
        for part in (stretch[:len(stretch) // 2], stretch[len(stretch) // 2:]):
            assert _longest_hold([row[index] for row in part]) >= 512


@pytest.mark.parametrize("differential, reset_free_cycles", [("{reset_free_cycles: 5}", 5),
                                                             ("{seed: 2}", 1 << 17)])
def test_gate_flow_loader_reads_the_reset_free_stretch(tmp_path: Path, differential: str,
                                                       reset_free_cycles: int) -> None:
    """A gate flow that names no stretch gets the 2^17 cycles of the options' default."""
    flow = tmp_path / "gate.yaml"
    flow.write_text(f"evaluation: {FLOWS_DIR / 'eval.yaml'}\ndifferential: {differential}\n")
    assert load_gate_flow(flow).differential.reset_free_cycles == reset_free_cycles


@pytest.mark.parametrize("deviation", [8191, 60000])
def test_hidden_counter_deviating_long_after_reset_is_caught(tmp_path: Path, deviation: int) -> None:
    """A detector that goes blind `deviation` cycles after reset: the 10,000-cycle opening alone,
    with its mid-run reset, never gets that far from a reset, and a 20-deep proof cannot either."""
    bench = Bench(tmp_path, "seq_detect")
    candidate = bench.mutant("    reg [2:0] state, next;", """    reg [2:0] state, next;
    reg [15:0] since_reset;
    always @(posedge clk or negedge rst_n)
        if (!rst_n) since_reset <= 16'd0;
        else if (since_reset != 16'hffff) since_reset <= since_reset + 16'd1;""")
    candidate = candidate.replace("assign detected = (state == S_1011);",
                                  f"assign detected = (state == S_1011) && (since_reset < 16'd{deviation});")
    assert bench.compare(candidate, replace(GATE, reset_free_cycles=0)).agreed

    result = bench.compare(candidate, GATE)
    assert result.ran and not result.agreed and result.simulator == GATE.simulator
    mismatch = result.first_mismatch
    assert (mismatch.output, mismatch.reference, mismatch.candidate) == ("detected", "1'h1", "1'h0")
    # The counter counts from the last reset (the mid-run one): blind from `deviation` rising edges after it.
    assert mismatch.cycle >= _reset_cycles(bench, GATE)[-1] + deviation >= deviation


def test_unknown_bits_are_dont_care_in_the_reference_only(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    unknown_bit = bench.mutant("OP_NOR: y = ~(a | b);", "OP_NOR: y = {~(a[7:1] | b[7:1]), 1'bx};")
    assert bench.compare(reference_text=unknown_bit).agreed

    result = bench.compare(candidate_text=unknown_bit)
    assert result.ran and not result.agreed
    mismatch = result.first_mismatch
    assert mismatch.output == "y" and mismatch.inputs["op"] == "3'h5"
    assert mismatch.candidate.startswith("8'b") and mismatch.candidate.endswith("x")
    assert int(mismatch.candidate[3:-1], 2) == int(mismatch.reference[3:], 16) >> 1  # only bit 0 is unknown


def test_seed_is_recorded_and_reproduces_the_first_mismatch(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    candidate = bench.mutant("OP_XOR: y = a ^ b;", "OP_XOR: y = a | b;")
    options = replace(ICARUS, seed=7, cycles=2000)
    first, second = bench.compare(candidate, options), bench.compare(candidate, options)
    assert first.seed == second.seed == 7
    assert first.first_mismatch == second.first_mismatch
    assert first.mismatched_cycles == second.mismatched_cycles
    assert first.first_mismatch.cycle == _first_cycle_with_xor_bug(bench, options)[0]
    other_seed = replace(options, seed=8)
    assert generate_stimulus(bench.design, bench.interface, other_seed).rows != \
        generate_stimulus(bench.design, bench.interface, options).rows


def test_icarus_and_verilator_give_the_same_verdict(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "mac8")
    candidate = bench.mutant("acc <= acc + {4'd0, prod};", "acc <= acc + {4'd0, prod[15:1], 1'b0};")
    options = replace(ICARUS, cycles=3000)
    icarus = bench.compare(candidate, options)
    verilator = bench.compare(candidate, replace(options, simulator="verilator"))
    assert (icarus.simulator, verilator.simulator) == ("icarus", "verilator")
    assert icarus.ran and verilator.ran and not icarus.agreed and not verilator.agreed
    assert icarus.first_mismatch == verilator.first_mismatch
    assert icarus.mismatched_cycles == verilator.mismatched_cycles


def test_candidate_that_does_not_compile_is_reported(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    result = bench.compare(bench.mutant("assign zero = (y == 8'h00);", "assign zero = (y == 8'h00"),
                           DiffSimOptions())
    assert not result.ran and not result.agreed
    assert result.simulator == "icarus"  # Verilator failed to build, the fallback was tried
    assert "alu8.v" in result.reason and "\n" not in result.reason


def test_candidate_that_hangs_is_stopped(tmp_path: Path) -> None:
    bench = Bench(tmp_path, "alu8")
    # A zero-delay oscillation started by every change of a: simulated time never advances.
    candidate = bench.mutant("assign zero = (y == 8'h00);", "assign zero = (y == 8'h00);\n"
                             "    reg spin = 1'b0;\n    always @(a or spin) spin <= ~spin;")
    result = bench.compare(candidate, replace(ICARUS, time_s=2))
    assert not result.ran
    assert "exceeded 2 s" in result.reason
