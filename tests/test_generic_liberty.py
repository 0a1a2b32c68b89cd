"""The generated `hdlrl_generic` library: its model, its bytes, and that real tools accept it.

Why: a library that only looks right is worthless; these tests map real designs with Yosys and
time and power them with OpenSTA, so a broken table, function or flop group fails here first.
The tool tests skip (saying which tool is missing) on machines without Yosys or OpenSTA.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hdlrl.eda.toolchain import find_tool
from hdlrl.pdk import generic_cells
from hdlrl.pdk import generic_liberty as gl

REPO_ROOT = Path(__file__).resolve().parents[1]
TOOL_TIMEOUT_S = 120


def _tool_or_skip(name: str) -> str:
    status = find_tool(name)
    if not status.usable:
        pytest.skip(f"{name} is needed for this test but is unusable here: {status.problem}")
    assert status.path is not None
    return status.path


@pytest.fixture(scope="module")
def liberty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return gl.write_liberty(tmp_path_factory.mktemp("pdk") / "hdlrl_generic.lib")


# --- The model, without tools -----------------------------------------------------------------

EXPECTED_FUNCTIONS = {
    "INV": lambda a: not a,
    "BUF": lambda a: a,
    "NAND2": lambda a, b: not (a and b),
    "NAND3": lambda a, b, c: not (a and b and c),
    "NOR2": lambda a, b: not (a or b),
    "NOR3": lambda a, b, c: not (a or b or c),
    "AND2": lambda a, b: a and b,
    "OR2": lambda a, b: a or b,
    "XOR2": lambda a, b: a != b,
    "XNOR2": lambda a, b: a == b,
    "AOI21": lambda a, b, c: not ((a and b) or c),
    "OAI21": lambda a, b, c: not ((a or b) and c),
    "MUX2": lambda a, b, s: b if s else a,
}


def test_cell_list() -> None:
    names = generic_cells.cell_names()
    assert len(names) == len(set(names))
    for base in EXPECTED_FUNCTIONS:
        assert f"{base}_X1" in names
    for base in ("INV", "BUF", "NAND2"):
        assert f"{base}_X2" in names
    for name in ("TIEHI", "TIELO", "DFF_X1", "DFFR_X1", "DFFS_X1", "DFFRS_X1"):
        assert name in names
    text = gl.liberty_text()
    assert re.findall(r"^  cell \((\w+)\)", text, re.MULTILINE) == names


@pytest.mark.parametrize("cell", generic_cells.COMB_CELLS, ids=lambda cell: cell.base)
def test_functions_match_truth_tables(cell: generic_cells.CombCell) -> None:
    expected = EXPECTED_FUNCTIONS[cell.base]
    for combo in itertools.product((False, True), repeat=len(cell.inputs)):
        got = generic_cells.evaluate_function(cell.function, dict(zip(cell.inputs, combo)))
        assert got == bool(expected(*combo)), (cell.function, combo)


def test_function_parser_accepts_liberty_spellings() -> None:
    values = {"A": True, "B": False}
    assert generic_cells.evaluate_function("A B'", values) is True
    assert generic_cells.evaluate_function("A*B + !B", values) is True
    assert generic_cells.evaluate_function("(A^B)'", values) is False
    with pytest.raises(ValueError):
        generic_cells.evaluate_function("A & C", values)


def test_timing_senses() -> None:
    assert generic_cells.timing_sense("!(A&B)", ("A", "B"), "A") == "negative_unate"
    assert generic_cells.timing_sense("(A|B)", ("A", "B"), "B") == "positive_unate"
    assert generic_cells.timing_sense("(A^B)", ("A", "B"), "A") == "non_unate"
    mux = "((A&!S)|(B&S))"
    assert generic_cells.timing_sense(mux, ("A", "B", "S"), "A") == "positive_unate"
    assert generic_cells.timing_sense(mux, ("A", "B", "S"), "S") == "non_unate"


def test_area_and_leakage_formulas() -> None:
    # area = 0.266 um^2 * (T_eq / 2 + 1); leakage = 7 nW * T_eq.
    text = gl.liberty_text()
    for name, area, leakage in (("INV_X1", 0.532, 14.0), ("INV_X2", 0.798, 28.0),
                                ("NAND2_X1", 0.798, 28.0), ("NAND2_X2", 1.33, 56.0),
                                ("BUF_X1", 0.798, 28.0), ("DFF_X1", 3.458, 168.0)):
        block = text.split(f"cell ({name}) {{", 1)[1]
        assert re.search(r"area : ([\d.]+);", block).group(1) == gl._num(area)
        assert re.search(r"cell_leakage_power : ([\d.]+);", block).group(1) == gl._num(leakage)


def test_delay_grows_with_load_and_shrinks_with_drive() -> None:
    weak = generic_cells.delay_table(0.01, generic_cells.R_UNIT_KOHM * 1.2 / 1)
    strong = generic_cells.delay_table(0.01, generic_cells.R_UNIT_KOHM * 1.2 / 4)
    for row_weak, row_strong in zip(weak, strong):
        assert row_weak == sorted(row_weak) and row_weak[0] > 0
        assert all(s <= w for s, w in zip(row_strong, row_weak))
    assert len(weak) == len(generic_cells.SLEW_INDEX_NS) and len(weak[0]) == len(generic_cells.LOAD_INDEX_PF)


def test_text_is_deterministic_and_well_formed(tmp_path: Path) -> None:
    text = gl.liberty_text()
    assert text == gl.liberty_text()
    assert text.count("{") == text.count("}")
    assert re.search(r"^library \(hdlrl_generic\) \{$", text, re.MULTILINE)
    written = gl.write_liberty(tmp_path / "sub" / "a.lib")
    assert written.read_bytes() == text.encode("ascii")
    # A fresh interpreter with another hash seed must write the same bytes.
    env = {**os.environ, "PYTHONHASHSEED": "12345",
           "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    out = tmp_path / "cli.lib"
    completed = subprocess.run([sys.executable, "-m", "hdlrl.pdk.generic_liberty", str(out)],
                               capture_output=True, text=True, env=env, cwd=tmp_path,
                               timeout=TOOL_TIMEOUT_S)
    assert completed.returncode == 0, completed.stderr
    assert out.read_bytes() == written.read_bytes()


# --- Yosys ------------------------------------------------------------------------------------

DESIGNS = {
    "adder8": """
module top(input [7:0] a, input [7:0] b, input ci, output [7:0] s, output co);
  assign {co, s} = a + b + ci;
endmodule
""",
    "adder2": """
module top(input [1:0] a, input [1:0] b, input ci, output [1:0] s, output co);
  assign {co, s} = a + b + ci;
endmodule
""",
    "counter_async_reset": """
module top(input clk, input rst_n, input en, output reg [7:0] q);
  always @(posedge clk or negedge rst_n)
    if (!rst_n) q <= 8'd0; else if (en) q <= q + 8'd1;
endmodule
""",
    "register_async_set": """
module top(input clk, input set_n, input [3:0] d, output reg [3:0] q);
  always @(posedge clk or negedge set_n)
    if (!set_n) q <= 4'hf; else q <= d;
endmodule
""",
    "register_sync_reset": """
module top(input clk, input rst, input [3:0] d, output reg [3:0] q);
  always @(posedge clk) if (rst) q <= 4'd0; else q <= q ^ d;
endmodule
""",
    "register_async_set_reset": """
module top(input clk, input rst_n, input set_n, input d, output reg q);
  always @(posedge clk or negedge rst_n or negedge set_n)
    if (!rst_n) q <= 1'b0; else if (!set_n) q <= 1'b1; else q <= d;
endmodule
""",
    # No negative-edge or active-high-reset flop exists: dfflibmap must add inverters.
    "negedge_and_active_high_reset": """
module top(input clk, input rst, input d, output reg q, output reg r);
  always @(negedge clk) q <= d;
  always @(posedge clk or posedge rst) if (rst) r <= 1'b0; else r <= d;
endmodule
""",
    "constants": """
module top(input a, output y, output one, output zero);
  assign y = ~a;
  assign one = 1'b1;
  assign zero = 1'b0;
endmodule
""",
}

# Constant outputs become tie cells only on request, after abc.
TIE_MAP = "hilomap -hicell TIEHI Y -locell TIELO Y"

# The flop each sequential design must land on: proof that dfflibmap read the ff groups.
EXPECTED_FLOP = {
    "counter_async_reset": "DFFR_X1",
    "register_async_set": "DFFS_X1",
    "register_sync_reset": "DFF_X1",
    "register_async_set_reset": "DFFRS_X1",
}

# Yosys's own remark on a reset-then-set priority in the source, not about the library.
DESIGN_WARNINGS = ("Complex async reset for dff",)


def synthesize(liberty: Path, workdir: Path, design: str,
               extra: str = "") -> tuple[dict[str, int], float, Path]:
    """Map `design` onto the library; return its cell counts, its area and the netlist path."""
    yosys = _tool_or_skip("yosys")
    source = workdir / f"{design}.v"
    source.write_text(DESIGNS[design])
    netlist = workdir / f"{design}_mapped.v"
    script = (f"read_verilog {source}; synth -top top; dfflibmap -liberty {liberty}; "
              f"abc -liberty {liberty}; {extra + '; ' if extra else ''}opt_clean; stat -liberty {liberty}; "
              f"write_verilog -noattr -noexpr {netlist}")
    completed = subprocess.run([yosys, "-p", script], capture_output=True, text=True,
                               timeout=TOOL_TIMEOUT_S)
    log = completed.stdout + completed.stderr
    assert completed.returncode == 0, log[-3000:]
    warnings = [line for line in log.splitlines() if line.startswith("Warning:")
                and not any(known in line for known in DESIGN_WARNINGS)]
    assert not warnings, warnings
    stat = log.rsplit("Printing statistics.", 1)[1]
    cells_block = stat.split("Number of cells:", 1)[1].split("Chip area", 1)[0]
    cells = {name: int(count) for name, count in re.findall(r"^\s+(\S+)\s+(\d+)$", cells_block,
                                                             re.MULTILINE)}
    area = float(re.search(r"Chip area for module '\\top': ([\d.]+)", stat).group(1))
    return cells, area, netlist


@pytest.mark.parametrize("design", list(DESIGNS))
def test_yosys_maps_every_cell(liberty: Path, tmp_path: Path, design: str) -> None:
    cells, area, netlist = synthesize(liberty, tmp_path, design,
                                      TIE_MAP if design == "constants" else "")
    library_cells = set(generic_cells.cell_names())
    assert cells, "no cells mapped"
    assert not [name for name in cells if name.startswith("$")], cells
    assert set(cells) <= library_cells, cells
    assert area > 0
    assert "$_" not in netlist.read_text()
    if design in EXPECTED_FLOP:
        assert cells.get(EXPECTED_FLOP[design], 0) > 0, cells
    if design == "negedge_and_active_high_reset":
        assert cells.get("DFF_X1") == 1 and cells.get("DFFR_X1") == 1 and "INV_X1" in cells
    if design == "constants":
        assert cells == {"INV_X1": 1, "TIEHI": 1, "TIELO": 1}


def test_yosys_reads_liberty_cleanly(liberty: Path) -> None:
    yosys = _tool_or_skip("yosys")
    completed = subprocess.run([yosys, "-p", f"read_liberty -lib {liberty}"], capture_output=True,
                               text=True, timeout=TOOL_TIMEOUT_S)
    assert completed.returncode == 0, completed.stderr
    assert "Warning" not in completed.stdout + completed.stderr


# --- OpenSTA ----------------------------------------------------------------------------------


def run_sta(liberty: Path, netlist: Path, workdir: Path, constraints: str) -> str:
    """Run an OpenSTA script on a mapped netlist; OpenSTA keeps going after a Tcl error, so any
    `Error`/`Warning` in its output fails the test instead."""
    sta = _tool_or_skip("sta")
    script = workdir / "sta.tcl"
    script.write_text(f"read_liberty {liberty}\nread_verilog {netlist}\nlink_design top\n"
                      f"{constraints}\nexit\n")
    completed = subprocess.run([sta, "-no_init", "-no_splash", "-exit", str(script)],
                               capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-3000:]
    assert "Error" not in output and "Warning" not in output, output[-3000:]
    return output


VIRTUAL_CLOCK = """create_clock -name vclk -period 10
set_input_delay 0 -clock vclk [all_inputs]
set_output_delay 0 -clock vclk [all_outputs]
set_load 0.005 [all_outputs]"""

REAL_CLOCK = """create_clock -name clk -period 10 [get_ports clk]
set_input_delay 0 -clock clk [delete_from_list [all_inputs] [get_ports clk]]
set_output_delay 0 -clock clk [all_outputs]
set_load 0.005 [all_outputs]"""

REPORTS = """report_checks -path_delay max -digits 4
puts "HDLRL worst_slack=[worst_slack -max] tns=[total_negative_slack -max]"
set_power_activity -global -activity 0.1
set_power_activity -input -activity 0.1
report_power -digits 6"""


def arrival_ns(output: str) -> float:
    """The first (worst) path's `data arrival time` from `report_checks`."""
    return float(re.search(r"^\s+(-?[\d.]+)\s+data arrival time", output, re.MULTILINE).group(1))


def power_totals_w(output: str) -> dict[str, float]:
    """The `Total` row of `report_power`: internal, switching, leakage and total power in W."""
    row = re.search(r"^Total\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", output, re.MULTILINE)
    return dict(zip(("internal", "switching", "leakage", "total"), map(float, row.groups())))


def power_row_w(output: str, group: str) -> float:
    return float(re.search(rf"^{group}\s+\S+\s+\S+\s+\S+\s+(\S+)", output, re.MULTILINE).group(1))


def test_sta_adder_timing_and_power(liberty: Path, tmp_path: Path) -> None:
    results = {}
    for design in ("adder2", "adder8"):
        workdir = tmp_path / design
        workdir.mkdir()
        _, _, netlist = synthesize(liberty, workdir, design)
        output = run_sta(liberty, netlist, workdir, VIRTUAL_CLOCK + "\n" + REPORTS)
        slack = float(re.search(r"HDLRL worst_slack=(\S+)", output).group(1))
        arrival = arrival_ns(output)
        assert arrival == pytest.approx(10.0 - slack, abs=1e-3)
        power = power_totals_w(output)
        assert power["total"] > 0 and power["leakage"] > 0 and power["internal"] > 0
        results[design] = arrival, power["total"]
    assert 0 < results["adder2"][0] < results["adder8"][0]
    assert results["adder2"][1] < results["adder8"][1]


@pytest.mark.parametrize("design", list(EXPECTED_FLOP))
def test_sta_sequential_timing_and_power(liberty: Path, tmp_path: Path, design: str) -> None:
    _, _, netlist = synthesize(liberty, tmp_path, design)
    from_flops = "report_checks -path_delay max -from [all_registers -clock_pins] -digits 4"
    to_flops = "report_checks -path_delay max -path_group clk -to [all_registers -data_pins]"
    output = run_sta(liberty, netlist, tmp_path,
                     "\n".join((REAL_CLOCK, from_flops, to_flops, REPORTS)))
    assert arrival_ns(output) > generic_cells.CLK_TO_Q_NS  # the first report starts with a clock-to-Q arc
    assert "library setup time" in output
    assert power_totals_w(output)["total"] > 0
    assert power_row_w(output, "Sequential") > 0


def test_sta_checks_async_pins(liberty: Path, tmp_path: Path) -> None:
    _, _, netlist = synthesize(liberty, tmp_path, "counter_async_reset")
    output = run_sta(liberty, netlist, tmp_path,
                     REAL_CLOCK + "\nreport_check_types -recovery -removal -verbose")
    assert "library recovery time" in output and "library removal time" in output


def test_sta_reads_tie_cells(liberty: Path, tmp_path: Path) -> None:
    _, _, netlist = synthesize(liberty, tmp_path, "constants", TIE_MAP)
    output = run_sta(liberty, netlist, tmp_path, VIRTUAL_CLOCK + "\n" + REPORTS)
    assert power_totals_w(output)["leakage"] > 0
