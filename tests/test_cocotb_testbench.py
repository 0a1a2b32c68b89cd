"""cocotb testbenches as design input, with the real tools: the example designs verify, the gate judges
candidates by their cocotb tests, a failing or broken test module is a one-line failure, and a cocotb
testbench asked to run on Verilator is refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.eda.sim.cocotb_bench import CocotbSimulator
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import evaluate, run_testbench
from hdlrl.evaluate.eval_flow import EvalFlow, load_flow
from hdlrl.evaluate.staging import stage_scratch
from hdlrl.pdk import Pdk, get_pdk

CRC8 = DESIGNS_DIR / "crc8"

FAILING_TESTS = '''
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles


@cocotb.test()
async def passes(dut):
    Clock(dut.clk, 10, unit="ns").start()
    await ClockCycles(dut.clk, 2)


@cocotb.test()
async def wrong_expectation(dut):
    Clock(dut.clk, 10, unit="ns").start()
    dut.rst_n.value = 0
    await ClockCycles(dut.clk, 1)
    assert int(dut.crc.value) == 0x55, "crc after reset is not 0x55"


@cocotb.test()
async def raises(dut):
    raise RuntimeError("the model is missing\\nsecond line")
'''


@pytest.fixture(scope="module")
def pdk() -> Pdk:
    return get_pdk("generic")


@pytest.fixture(scope="module")
def flow() -> EvalFlow:
    return load_flow()


def crc8_copy(folder: Path, test_module: str | None = None) -> Path:
    """designs/crc8 copied to `folder`, its test module replaced by `test_module` when given."""
    shutil.copytree(CRC8, folder)
    if test_module is not None:
        (folder / "tb" / "test_crc8.py").write_text(test_module)
    return folder


@pytest.mark.parametrize("name", ["crc8", "pwm8"])
def test_reference_passes_hdlrl_eval(name: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["eval", str(DESIGNS_DIR / name), "--json", "--no-cache"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["verified"] and result["stage"] == "done" and result["simulator"] == "cocotb-icarus", result
    assert result["ppa"]["area_um2"] > 0 and result["ppa"]["delay_ns"] > 0


def test_gate_runs_the_cocotb_testbench_and_accepts_an_equivalent_candidate(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture) -> None:
    reference = (CRC8 / "rtl" / "crc8.v").read_text()
    equivalent = tmp_path / "crc8.v"  # not the reference's text, so the gate runs every stage
    equivalent.write_text(reference.replace("next_crc[7] ^ data[bit_index]", "data[bit_index] ^ next_crc[7]"))
    assert equivalent.read_text() != reference
    assert main(["gate", str(CRC8), "--rtl", str(equivalent), "--json", "--no-ppa", "--no-cache"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["accepted"] and verdict["testbench_passed"] and verdict["level"] == "proven", verdict


def test_gate_rejects_a_wrong_candidate_with_the_cocotb_failure(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    reference = (CRC8 / "rtl" / "crc8.v").read_text()
    wrong = tmp_path / "crc8.v"
    wrong.write_text(reference.replace("next_crc[7] ^ data[bit_index]", "next_crc[7] & data[bit_index]"))
    assert wrong.read_text() != reference
    assert main(["gate", str(CRC8), "--rtl", str(wrong), "--json", "--no-ppa", "--no-cache"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert not verdict["accepted"] and verdict["stage"] == "testbench", verdict
    assert verdict["reason"].startswith("cocotb test test_crc8.check_value_of_known_string failed: crc of"), verdict
    assert "\n" not in verdict["reason"]


def test_failing_tests_give_a_failed_result_naming_the_first(tmp_path: Path, pdk: Pdk, flow: EvalFlow) -> None:
    design = load_design(crc8_copy(tmp_path / "crc8", FAILING_TESTS))
    result = evaluate(design, pdk, flow, with_ppa=False)
    simulation = result.simulation
    assert not result.verified and result.stage == "simulate"
    assert simulation.compiled and not simulation.passed and not simulation.stopped
    assert simulation.reason == "cocotb test test_crc8.wrong_expectation failed: crc after reset is not 0x55"
    assert simulation.fail_lines == ["test_crc8.wrong_expectation: crc after reset is not 0x55",
                                     "test_crc8.raises: the model is missing"]


def test_a_module_that_raises_on_import_is_a_one_line_failure(tmp_path: Path, pdk: Pdk, flow: EvalFlow) -> None:
    design = load_design(crc8_copy(tmp_path / "crc8", "raise ValueError('no such register map')\n"))
    result = evaluate(design, pdk, flow, with_ppa=False)
    assert not result.verified and result.stage == "simulate"
    assert result.reason == "cocotb wrote no test results: ValueError: no such register map"


def test_verilator_is_refused_in_one_line(tmp_path: Path, flow: EvalFlow) -> None:
    design = load_design(CRC8)
    runner = ToolRunner(tmp_path / "scratch")
    rtl, testbench, includes = stage_scratch(design, runner.scratch)
    result = run_testbench(design, runner, rtl, testbench, includes, flow, simulator_name="verilator")
    assert not result.compiled and not result.passed and not runner.history
    assert result.reason.startswith("cocotb testbenches run on icarus only: cocotb 2.x needs Verilator >= 5.036")
    assert "\n" not in result.reason
    assert CocotbSimulator("verilator").simulate(runner, testbench + rtl, design.testbench, includes,
                                                 flow.limits).reason == result.reason


@pytest.mark.parametrize("edit, expected", [
    (("kind: cocotb", "kind: cocotb\n  simulator: verilator"), r"design.yaml:\d+: testbench.simulator: cocotb "
                                                              r"testbenches run on icarus only"),
    (("module: test_crc8", "module: test_crc8,os"), r"testbench.module: 'test_crc8,os' is not a Python module"),
    (("module: test_crc8", "module: test_other"), r"testbench.module: 'test_other': list its file \(test_other.py\)"),
    (("module: test_crc8", "module: test_crc8\n  top: crc8"), r"testbench.top: not a field of a cocotb testbench"),
])
def test_bad_cocotb_testbench_sections_are_refused(tmp_path: Path, edit: tuple[str, str], expected: str) -> None:
    folder = crc8_copy(tmp_path / "crc8")
    text = (folder / "design.yaml").read_text()
    (folder / "design.yaml").write_text(text.replace(*edit))
    with pytest.raises(HdlrlError, match=expected):
        load_design(folder)
