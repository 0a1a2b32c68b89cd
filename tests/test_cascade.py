"""The evaluation cascade on real designs: verified PPA, and each failure stage with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR, project_designs
from hdlrl.cli import main
from hdlrl.design import load_design
from hdlrl.evaluate.cascade import evaluate
from hdlrl.evaluate.executors.local import LocalExecutor
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob
from hdlrl.pdk import get_pdk


@pytest.fixture(scope="module")
def generic_results() -> dict:
    pdk, flow = get_pdk("generic"), load_flow()
    executor = LocalExecutor(2)
    try:
        results = list(executor.map(EvalJob(load_design(path), pdk, flow) for path in project_designs()))
    finally:
        executor.close()
    return {result.design: result for result in results}


def test_every_project_design_is_verified_on_the_embedded_pdk(generic_results: dict) -> None:
    assert len(generic_results) >= 12
    for name, result in generic_results.items():
        assert result.verified, f"{name}: {result.stage}: {result.reason}"
        assert result.ppa.area_um2 > 0 and result.ppa.delay_ns > 0 and result.ppa.power_mw > 0
        assert result.sandboxed == (result.tool_versions["bwrap"] != "missing")


def test_ppa_orders_designs_as_their_size_does(generic_results: dict) -> None:
    """Real numbers: a multiplier is larger and slower than a decoder, a 32-bit pipeline than a 16-bit adder."""
    ppa = {name: result.ppa for name, result in generic_results.items()}
    assert ppa["mult8"].area_um2 > 10 * ppa["decoder3to8"].area_um2
    assert ppa["mult8"].delay_ns > 3 * ppa["decoder3to8"].delay_ns
    assert ppa["pipe_add32"].area_um2 > ppa["adder16"].area_um2
    sequential = generic_results["sync_fifo"]
    assert sequential.timing.period_ns == 10.0 and sequential.timing.wns_ns == 0.0
    assert any(cell.startswith("DFF") for cell in sequential.synthesis.cells)


def test_nangate45_gives_different_real_numbers(pdk_dir: Path) -> None:
    design = load_design(DESIGNS_DIR / "mult8")
    flow = load_flow()
    generic = evaluate(design, get_pdk("generic"), flow)
    nangate = evaluate(design, get_pdk("nangate45", pdk_dir), flow)
    assert generic.verified and nangate.verified, (generic.reason, nangate.reason)
    assert generic.ppa != nangate.ppa
    assert all(cell.endswith(("_X1", "_X2", "_X4")) for cell in nangate.synthesis.cells)


def mutate(tmp_path: Path, design: str, old: str, new: str) -> Path:
    source = (DESIGNS_DIR / design / "rtl" / f"{design}.v").read_text()
    assert old in source, f"{old!r} not in {design}"
    candidate = tmp_path / f"{design}.v"
    candidate.write_text(source.replace(old, new, 1))
    return candidate


def test_syntax_error_stops_at_lint_with_file_and_line(tmp_path: Path) -> None:
    candidate = mutate(tmp_path, "adder16", "endmodule", "wire oops = ;\nendmodule")
    result = evaluate(load_design(DESIGNS_DIR / "adder16").with_rtl((candidate,)), get_pdk("generic"), load_flow())
    assert not result.verified and result.stage == "lint"
    line = candidate.read_text().splitlines().index("wire oops = ;") + 1
    assert result.reason.startswith(f"candidate/adder16.v:{line}:"), result.reason
    assert result.synthesis is None  # the cascade stopped


def test_functional_bug_stops_at_simulation_with_the_failing_line(tmp_path: Path) -> None:
    candidate = mutate(tmp_path, "decoder3to8", "8'b0100_0000", "8'b0100_0001")
    result = evaluate(load_design(DESIGNS_DIR / "decoder3to8").with_rtl((candidate,)), get_pdk("generic"), load_flow())
    assert not result.verified and result.stage == "simulate"
    assert result.reason.startswith("testbench failed: TEST FAILED"), result.reason


def test_unsynthesisable_candidate_stops_at_synthesis(tmp_path: Path) -> None:
    candidate = tmp_path / "unsynth.v"
    candidate.write_text("module t(input clk, input rst, output reg [3:0] q);\n"
                         "always @(posedge clk or rst) if (rst) q <= 0; else q <= q + 1;\nendmodule\n")
    testbench = tmp_path / "tb.v"
    testbench.write_text("module tb; reg clk = 0, rst = 1; wire [3:0] q; t dut(clk, rst, q);\n"
                         "initial begin #1 rst = 0; #1 clk = 1; #1 $display(\"TEST PASSED\"); end endmodule\n")
    (tmp_path / "design.yaml").write_text(
        "top: t\nrtl: [unsynth.v]\ntestbench: {sources: [tb.v], top: tb}\n"
        "clocks: [{name: clk, period_ns: 10}]\nreset: {name: rst, polarity: high, kind: async}\n")
    result = evaluate(load_design(tmp_path), get_pdk("generic"), load_flow())
    assert result.stage == "synthesize"
    assert result.reason == "unsynth.v:2: Found non-synthesizable event list!"


def test_eval_json_and_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    metrics_file = tmp_path / "metrics.json"
    assert main(["eval", str(DESIGNS_DIR / "seq_detect"), "--json", "--metrics", str(metrics_file)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verified"] is True and summary["stage"] == "done" and summary["reason"] == ""
    assert set(summary["ppa"]) == {"area_um2", "delay_ns", "power_mw"}
    metrics = json.loads(metrics_file.read_text())
    assert metrics["synth__design__instance__area__stdcell"] == summary["ppa"]["area_um2"]
    assert metrics["sta__timing__critical_path__delay"] == summary["ppa"]["delay_ns"]
    assert metrics["sta__power__total"] == pytest.approx(summary["ppa"]["power_mw"] / 1e3)
    assert metrics["run__flow__platform"] == "generic"


def test_table_output_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(DESIGNS_DIR / "prio_enc8")]) == 0
    output = capsys.readouterr().out
    assert output.splitlines()[0].split()[:4] == ["design", "verified", "stage", "area_um2"]
    assert "1/1 verified on PDK generic" in output


def test_same_result_with_and_without_the_sandbox() -> None:
    design, pdk, flow = load_design(DESIGNS_DIR / "gray_counter4"), get_pdk("generic"), load_flow()
    sandboxed, plain = evaluate(design, pdk, flow), evaluate(design, pdk, flow, sandbox=False)
    assert sandboxed.ppa == plain.ppa


def test_a_registered_tristate_verilator_cannot_model_is_linted_by_icarus_and_synthesised(tmp_path: Path) -> None:
    """Verilator 5.006 stops on `q <= 32'bz` in a clocked block ("Unsupported tristate construct"):
    a gap in the tool, not in the design, so Icarus decides lint, with a warning saying so."""
    folder = tmp_path / "tristate"
    (folder / "rtl").mkdir(parents=True)
    (folder / "rtl" / "bus_reg.v").write_text(
        "module bus_reg(input clk, input en, input [31:0] d, output reg [31:0] q);\n"
        "  always @(posedge clk) if (en) q <= d; else q <= 32'bz;\nendmodule\n")
    (folder / "tb.v").write_text(
        "module tb; reg clk = 0, en = 1; reg [31:0] d = 5; wire [31:0] q;\n"
        "  bus_reg dut(.clk(clk), .en(en), .d(d), .q(q));\n  always #5 clk = ~clk;\n"
        "  initial begin #12 if (q !== 5) $display(\"FAILED\"); else $display(\"TEST PASSED\"); $finish; end\n"
        "endmodule\n")
    (folder / "design.yaml").write_text("name: tristate\ntop: bus_reg\nrtl: [rtl/bus_reg.v]\n"
                                        "testbench: {sources: [tb.v], top: tb}\nclocks: [{name: clk, period_ns: 10}]\n")
    with pytest.warns(UserWarning, match="verilator lint: .*Unsupported tristate construct.*; icarus decides"):
        result = evaluate(load_design(folder), get_pdk("generic"), load_flow())
    assert result.verified, (result.stage, result.reason)
    assert [lint.tool for lint in result.lint] == ["verilator", "icarus"] and result.lint[-1].ok
