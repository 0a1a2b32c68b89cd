"""The RTLLM importer and the Nangate45 sweep over every imported reference (acceptance 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hdlrl.design import load_design
from hdlrl.evaluate.executors.local import LocalExecutor
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob
from hdlrl.importers.rtllm import REPORT_FILE, UNUSABLE_FOLDER
from hdlrl.pdk import get_pdk


def test_every_rtllm_folder_is_imported_as_usable_or_not_with_its_reason(imported_rtllm: Path,
                                                                        rtllm_source: Path) -> None:
    sources = sorted(path.name for path in rtllm_source.iterdir() if (path / "design_description.txt").exists())
    usable = sorted(path.parent.name for path in imported_rtllm.glob("*/design.yaml"))
    unusable = sorted(path.parent.name for path in (imported_rtllm / UNUSABLE_FOLDER).glob("*/design.yaml"))
    assert sorted(usable + unusable) == sources and len(sources) == 33
    assert len(usable) >= 28 and {"asyn_fifo", "synchronizer", "float_multi"} <= set(unusable)
    report = {row["design"]: row for row in json.loads((imported_rtllm / REPORT_FILE).read_text())}
    assert sorted(report) == sources
    for name in unusable:
        assert not report[name]["usable"] and report[name]["reason"] and "\n" not in report[name]["reason"]
    assert "Multiple edge sensitive events" in report["synchronizer"]["reason"]
    for name in usable:
        assert report[name]["usable"] and report[name]["reason"] == "" and report[name]["derived_from"] == "RTL"
        if report[name]["reset"]:
            assert "took their reset values" in report[name]["reset_check"]


def test_reference_is_renamed_to_the_name_the_testbench_instantiates(imported_rtllm: Path) -> None:
    design = load_design(imported_rtllm / "adder_pipe_64bit")  # reference is verified_adder_64bit.v
    assert design.top == "adder_pipe_64bit"
    assert "module adder_pipe_64bit" in design.rtl[0].read_text()
    assert "verified_" not in design.rtl[0].read_text().split("(")[0]
    # The description says freq_diveven, the testbench instantiates freq_divbyeven: the testbench wins.
    assert load_design(imported_rtllm / "freq_divbyeven").top == "freq_divbyeven"


def test_data_files_clocks_and_resets_are_detected(imported_rtllm: Path) -> None:
    fifo = load_design(imported_rtllm / UNUSABLE_FOLDER / "asyn_fifo")  # usable or not, its clocks are read
    assert sorted(path.name for path in fifo.data_files) == ["rempty.txt", "tdata.txt", "wfull.txt"]
    assert {clock.name: clock.period_ns for clock in fifo.clocks} == {"wclk": 10.0, "rclk": 20.0}
    assert fifo.reset.name == "wrstn" and fifo.reset.polarity == "low" and fifo.reset.kind == "async"
    adder = load_design(imported_rtllm / "adder_8bit")
    assert adder.is_combinational and adder.reset is None
    counter = load_design(imported_rtllm / "counter_12")
    assert [clock.name for clock in counter.clocks] == ["clk"] and counter.reset.name == "rst_n"
    fsm = load_design(imported_rtllm / "fsm")
    assert [clock.name for clock in fsm.clocks] == ["CLK"] and fsm.reset.polarity == "high"


def test_simulator_is_calibrated_on_the_reference(imported_rtllm: Path) -> None:
    # radix2_div's testbench races on Icarus' event order and passes on Verilator's.
    assert load_design(imported_rtllm / "radix2_div").testbench.simulator == "verilator"
    assert load_design(imported_rtllm / "adder_8bit").testbench.simulator == "icarus"


@pytest.mark.slow
def test_nangate45_sweep_verifies_at_least_28_references(imported_rtllm: Path, pdk_dir: Path) -> None:
    pdk, flow = get_pdk("nangate45", pdk_dir), load_flow()
    designs = [load_design(path.parent) for path in sorted(imported_rtllm.glob("*/design.yaml"))]
    executor = LocalExecutor(2)
    try:
        results = list(executor.map(EvalJob(design, pdk, flow) for design in designs))
    finally:
        executor.close()
    verified = [result for result in results if result.verified]
    assert len(verified) >= 28, [(result.design, result.reason) for result in results if not result.verified]
    for result in verified:
        assert result.ppa.area_um2 > 0 and result.ppa.delay_ns > 0 and result.ppa.power_mw > 0
    for result in results:
        if not result.verified:
            assert result.reason and "\n" not in result.reason
