"""Behavioural facts from Yosys's netlist (`hdlrl.hdl.netlist_facts`) and the functions named from
truth tables (`hdlrl.hdl.function_kind`), on real Yosys, small inline modules and project designs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hdlrl.eda.runner import Limits, ToolRunner
from hdlrl.eda.toolchain import has_tool
from hdlrl.errors import HdlrlError
from hdlrl.hdl.function_kind import recognise, recognise_bitwise
from hdlrl.hdl.netlist_facts import Enable, NetlistFacts, Reset, netlist_facts
from hdlrl.hdl.truth_table import TruthTable, output_tables

REPO_ROOT = Path(__file__).resolve().parents[1]
DESIGNS = REPO_ROOT / "designs"
TUNING_RTL = REPO_ROOT / "benchmarks" / "summary_eval" / "rtl"  # only its tuning-split modules are used here

needs_yosys = pytest.mark.skipif(not has_tool("yosys"), reason="needs yosys: the facts are read from its netlist")

CONTROLS = """
module controls (
    input clk, input rst, input rst_n, input load, input en, input [3:0] d,
    output reg [3:0] sync_five, output reg [3:0] loaded, output reg [3:0] cleared_by_load,
    output reg [3:0] async_ten, output reg [3:0] falling, output reg [3:0] gated_reset
);
    always @(posedge clk) if (rst) sync_five <= 4'd5; else sync_five <= d;
    always @(posedge clk) if (load) loaded <= d;
    always @(posedge clk) if (load) cleared_by_load <= 4'd0; else cleared_by_load <= cleared_by_load + 4'd1;
    always @(posedge clk or negedge rst_n) if (!rst_n) async_ten <= 4'hA; else if (en) async_ten <= d;
    always @(negedge clk) if (en) falling <= d;
    always @(posedge clk) if (en) begin if (rst) gated_reset <= 4'd9; else gated_reset <= d; end
endmodule
"""

HIERARCHY = """
module counter_cell (input clk, input rst_n, output reg [2:0] count);
    always @(posedge clk or negedge rst_n) if (!rst_n) count <= 3'd0; else count <= count + 3'd1;
endmodule
module wrapper (input clk, input rst_n, output [2:0] value);
    counter_cell cell (.clk(clk), .rst_n(rst_n), .count(value));
endmodule
"""


def _runner(folder: Path) -> ToolRunner:
    return ToolRunner(folder, Limits(time_s=60))


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def _design_rtl(name: str) -> list[Path]:
    return sorted((DESIGNS / name / "rtl").glob("*.v"))


@pytest.fixture(scope="module")
def controls(tmp_path_factory: pytest.TempPathFactory) -> NetlistFacts:
    folder = tmp_path_factory.mktemp("controls")
    return netlist_facts([_write(folder, "controls.v", CONTROLS)], "controls", _runner(folder / "scratch"))


@pytest.fixture(scope="module")
def traffic_light(tmp_path_factory: pytest.TempPathFactory) -> NetlistFacts:
    return netlist_facts(_design_rtl("traffic_light"), "traffic_light", _runner(tmp_path_factory.mktemp("traffic")))


def _tables(tmp_path: Path, sources: list[Path], top: str, max_input_bits: int = 10) -> dict[str, TruthTable | None]:
    gate_level = netlist_facts(sources, top, _runner(tmp_path / "scratch"), gate_mapping="techmap").gate_level
    return output_tables(gate_level, max_input_bits)


def _table(tmp_path: Path, sources: list[Path], top: str, output: str, max_input_bits: int = 10) -> TruthTable | None:
    return _tables(tmp_path, sources, top, max_input_bits)[output]


@needs_yosys
def test_async_active_low_reset_with_its_value_and_load_is_data(tmp_path: Path) -> None:
    facts = netlist_facts(_design_rtl("updown_counter8"), "updown_counter8", _runner(tmp_path))
    (register,) = facts.registers
    assert (register.name, register.width, register.clock, register.edge) == ("q", 8, "clk", "posedge")
    assert register.resets == (Reset("rst_n", active_high=False, asynchronous=True, value=0),)
    # `load` (q <= d) and `en` (count) are the conditions under which q changes, never a reset
    assert register.enables == (Enable("load", True), Enable("en", True))
    assert [(reset.signal, reset.active_high, reset.asynchronous, reset.registers) for reset in facts.resets] == [
        ("rst_n", False, True, ("q",))]


@needs_yosys
def test_async_reset_to_a_nonzero_value(tmp_path: Path) -> None:
    facts = netlist_facts([TUNING_RTL / "down_counter8.v"], "down_counter8", _runner(tmp_path))
    assert facts.register("count").reset == Reset("rst_n", active_high=False, asynchronous=True, value=255)
    assert facts.register("count").enable == Enable("en", True)


@needs_yosys
def test_sync_active_high_reset_and_its_value(controls: NetlistFacts) -> None:
    register = controls.register("sync_five")
    assert register.reset == Reset("rst", active_high=True, asynchronous=False, value=5)
    assert register.enables == ()


@needs_yosys
def test_an_input_named_load_is_an_enable_when_it_loads_data(controls: NetlistFacts) -> None:
    assert controls.register("loaded").resets == ()
    assert controls.register("loaded").enable == Enable("load", True)
    assert not any(reset.signal == "load" and "loaded" in reset.registers for reset in controls.resets)


@needs_yosys
def test_an_input_that_clears_to_a_constant_is_a_sync_reset_whatever_its_name(controls: NetlistFacts) -> None:
    register = controls.register("cleared_by_load")
    assert register.reset == Reset("load", active_high=True, asynchronous=False, value=0)
    assert register.enables == ()


@needs_yosys
def test_enable_with_async_reset_and_negative_edge(controls: NetlistFacts) -> None:
    register = controls.register("async_ten")
    assert (register.reset, register.enable) == (Reset("rst_n", False, True, 10), Enable("en", True))
    falling = controls.register("falling")
    assert (falling.edge, falling.resets, falling.enable) == ("negedge", (), Enable("en", True))


@needs_yosys
def test_a_sync_reset_inside_the_enable_does_not_override_it(controls: NetlistFacts) -> None:
    register = controls.register("gated_reset")
    assert register.reset == Reset("rst", True, False, 9, overrides_enable=False)
    assert register.enable == Enable("en", True)


@needs_yosys
def test_reset_signals_list_what_they_clear(controls: NetlistFacts) -> None:
    found = {(reset.signal, reset.active_high, reset.asynchronous): reset.registers for reset in controls.resets}
    assert found == {("rst", True, False): ("sync_five", "gated_reset"), ("load", True, False): ("cleared_by_load",),
                     ("rst_n", False, True): ("async_ten",)}
    assert all(reset.module_input for reset in controls.resets)


@needs_yosys
def test_a_register_without_reset_or_enable(tmp_path: Path) -> None:
    facts = netlist_facts([TUNING_RTL / "siso8.v"], "siso8", _runner(tmp_path))
    (register,) = facts.registers
    assert (register.name, register.width, register.resets, register.enables) == ("stages", 8, (), ())
    assert facts.resets == () and facts.state_machines == () and facts.latches == ()


@needs_yosys
def test_a_cleared_state_split_into_its_conditions(traffic_light: NetlistFacts) -> None:
    timer = traffic_light.register("timer")
    assert timer.resets == (Reset("rst", True, False, 0), Reset("leave", True, False, 0))
    assert timer.enable.signal is None and timer.enable.reads == ("timer",)  # counts while it is not 15
    assert [(reset.signal, reset.module_input) for reset in traffic_light.resets] == [("rst", True), ("leave", False)]


@needs_yosys
def test_traffic_light_state_machine(traffic_light: NetlistFacts) -> None:
    (machine,) = traffic_light.state_machines
    assert (machine.register, machine.width, machine.reset_state) == ("state", 3, 0)
    assert sorted(machine.states) == [0, 1, 2, 3, 4, 5]
    # NS_G -> NS_Y -> RED1 -> EW_G -> EW_Y -> RED2 -> NS_G; the reset's own transitions are left out
    assert sorted(machine.transitions) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]


@needs_yosys
def test_state_machines_driving_ports(tmp_path: Path) -> None:
    debounce = netlist_facts([TUNING_RTL / "debounce_fsm.v"], "debounce_fsm", _runner(tmp_path / "debounce"))
    (machine,) = debounce.state_machines  # state[1] drives `pressed`: Yosys's own fsm_detect declines it
    assert (machine.register, sorted(machine.states), machine.reset_state) == ("state", [0, 1, 2, 3], 0)
    assert sorted(machine.transitions) == [(0, 1), (1, 0), (1, 3), (2, 0), (2, 3), (3, 2)]
    arbiter = netlist_facts([TUNING_RTL / "rr_arbiter2.v"], "rr_arbiter2", _runner(tmp_path / "arbiter"))
    (machine,) = arbiter.state_machines  # the register is the output port itself
    assert (machine.register, sorted(machine.states)) == ("gnt", [0, 1, 2])
    assert (0, 1) in machine.transitions and (0, 2) in machine.transitions


@needs_yosys
def test_a_latch_is_not_a_register(tmp_path: Path) -> None:
    facts = netlist_facts([TUNING_RTL / "latch_rst_n.v"], "latch_rst_n", _runner(tmp_path))
    (latch,) = facts.latches
    assert facts.registers == ()
    assert (latch.name, latch.width, latch.enables) == ("q", 4, (Enable("rst_n", False), Enable("gate", True)))


@needs_yosys
def test_registers_of_a_flattened_instance(tmp_path: Path) -> None:
    facts = netlist_facts([_write(tmp_path, "wrapper.v", HIERARCHY)], "wrapper", _runner(tmp_path / "scratch"))
    (register,) = facts.registers
    assert (register.name, register.reset) == ("cell.count", Reset("rst_n", False, True, 0))
    assert facts.resets[0].module_input


@needs_yosys
def test_a_bus_that_concatenates_registers_names_none_of_them(tmp_path: Path) -> None:
    source = _write(tmp_path, "bus.v", "module bus(input clk, input [3:0] x, input [3:0] y, output [7:0] both);\n"
                    "  reg [3:0] a, b;\n  always @(posedge clk) begin a <= x; b <= y; end\n"
                    "  assign both = {a, b};\nendmodule\n")
    facts = netlist_facts([source], "bus", _runner(tmp_path / "scratch"))
    assert [(register.name, register.width, register.bits) for register in facts.registers] == [
        ("a", 4, (0, 1, 2, 3)), ("b", 4, (0, 1, 2, 3))]


@needs_yosys
def test_a_yosys_error_names_the_original_file_and_line(tmp_path: Path) -> None:
    source = _write(tmp_path, "broken.v", "module broken(input a, output b);\n  assign b = a +;\nendmodule\n")
    with pytest.raises(HdlrlError) as raised:
        netlist_facts([source], "broken", _runner(tmp_path / "scratch"))
    assert (raised.value.path, raised.value.line) == (source, 2)


@needs_yosys
def test_multiplexer_truth_table(tmp_path: Path) -> None:
    table = _table(tmp_path, [TUNING_RTL / "mux4to1.v"], "mux4to1", "out", max_input_bits=18)
    assert table.inputs == (("d0", 4), ("d1", 4), ("d2", 4), ("d3", 4), ("s", 2))
    assert table.value({"d0": 1, "d1": 2, "d2": 3, "d3": 4, "s": 2}) == 3
    function = recognise(table.rows, dict(table.inputs), table.output_width)
    assert str(function) == "4-to-1 multiplexer selected by `s`"
    assert function.roles == (("select", "s"), ("data", "d0"), ("data", "d1"), ("data", "d2"), ("data", "d3"))


@needs_yosys
def test_decoder_truth_table(tmp_path: Path) -> None:
    table = _table(tmp_path, _design_rtl("decoder3to8"), "decoder3to8", "y")
    assert (table.value({"a": 5, "en": 1}), table.value({"a": 5, "en": 0})) == (0b0010_0000, 0)
    function = recognise(table.rows, dict(table.inputs), table.output_width)
    assert function.kind == "decoder"
    assert str(function) == "3-to-8 decoder (binary to one-hot) of `a`, enabled by `en` (active high)"


@needs_yosys
def test_priority_encoder_truth_table(tmp_path: Path) -> None:
    sources = _design_rtl("prio_enc8")
    table = _table(tmp_path, sources, "prio_enc8", "idx")
    assert (table.inputs, table.value({"d": 0b0101_0000}), table.value({"d": 0})) == ((("d", 8),), 6, 0)
    function = recognise(table.rows, dict(table.inputs), table.output_width)
    assert (function.kind, str(function)) == ("priority encoder", "8-to-3 priority encoder of `d`, bit 7 highest")
    valid = _table(tmp_path, sources, "prio_enc8", "valid")
    assert str(recognise(valid.rows, dict(valid.inputs), valid.output_width)) == "OR of all 8 input bits"


@needs_yosys
def test_comparator_and_a_table_of_constants(tmp_path: Path) -> None:
    table = _table(tmp_path / "comparator", [TUNING_RTL / "mag_comp8.v"], "mag_comp8", "a_gt_b", max_input_bits=16)
    assert str(recognise(table.rows, dict(table.inputs), 1)) == "8-bit comparator: `a` > `b` (unsigned)"
    squares = _table(tmp_path / "rom", [TUNING_RTL / "squares_rom.v"], "squares_rom", "sq")
    assert squares.value({"n": 13}) == 169
    assert recognise(squares.rows, dict(squares.inputs), squares.output_width).kind == "lookup table"  # no formula


@needs_yosys
def test_no_truth_table_when_too_wide_or_sequential(tmp_path: Path) -> None:
    assert _table(tmp_path / "wide", [TUNING_RTL / "mux4to1.v"], "mux4to1", "out") is None  # 18 input bits
    assert _table(tmp_path / "sequential", [TUNING_RTL / "siso8.v"], "siso8", "so") is None
    assert _table(tmp_path / "decoder", _design_rtl("decoder3to8"), "decoder3to8", "y", max_input_bits=3) is None
    tables = _tables(tmp_path, _design_rtl("decoder3to8"), "decoder3to8")
    assert set(tables) == {"y"}  # outputs only, each from the same netlist


VOTERS = """
module voters(input [7:0] a, input [7:0] b, input [7:0] c, output [7:0] vote, output [7:0] odd_bit,
              output [7:0] parity, output [7:0] crossed);
  assign vote = (a & b) | (a & c) | (b & c);
  assign odd_bit = {vote[7:4], a[3] & b[3], vote[2:0]};  // bit 3 is no vote
  assign parity = a ^ b ^ c;                                // bitwise, but no majority
  assign crossed = (a & b) | (a & {c[6:0], c[7]}) | (b & c); // bit i reads c[i-1]: not bitwise
endmodule
"""


@needs_yosys
def test_a_bitwise_vote_too_wide_to_tabulate_whole_is_recognised_bit_by_bit(tmp_path: Path) -> None:
    tables = _tables(tmp_path, [_write(tmp_path, "voters.v", VOTERS)], "voters")
    vote = tables["vote"]
    assert vote is not None and vote.bitwise and vote.inputs == (("a", 8), ("b", 8), ("c", 8))
    assert vote.value({"a": 0b1100_1010, "b": 0b1010_0110, "c": 0b0110_0011}) == 0b1110_0010
    assert str(recognise_bitwise(vote)) == "8-bit bitwise majority (2-of-3 vote) of `a`, `b`, `c`"
    assert tables["odd_bit"] is None and tables["crossed"] is None  # bit 3 differs; bits read other bits
    assert tables["parity"] is not None and recognise_bitwise(tables["parity"]) is None


def _rows(widths: dict[str, int], function) -> list[int]:
    """A truth table from a Python function of the inputs' values, packed as `recognise` reads it."""
    rows = []
    for index in range(1 << sum(widths.values())):
        values, shift = {}, 0
        for name, width in widths.items():
            values[name], shift = (index >> shift) & ((1 << width) - 1), shift + width
        rows.append(function(**values))
    return rows


@pytest.mark.parametrize(("widths", "output_width", "function", "expected"), [
    ({"a": 4, "b": 4, "cin": 1}, 5, lambda a, b, cin: a + b + cin,
     "4-bit adder: `a` + `b` with carry-in `cin` and carry-out"),
    ({"x": 4, "y": 4}, 4, lambda x, y: (y - x) & 15, "4-bit subtractor: `y` - `x`"),
    ({"a": 3, "b": 3}, 1, lambda a, b: int(a >= b), "3-bit comparator: `a` >= `b` (unsigned)"),
    ({"b": 4}, 4, lambda b: b ^ (b >> 1), "4-bit binary-to-Gray conversion of `b`"),
    ({"d": 6}, 1, lambda d: bin(d).count("1") & 1, "parity (XOR of all 6 input bits)"),
    ({"d": 6}, 3, lambda d: bin(d).count("1"), "population count of 6 input bits"),
    ({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1}, 1, lambda a, b, c, d, e: int(a + b + c + d + e >= 3),
     "majority of 5 input bits"),
    ({"d": 4}, 2, lambda d: {1: 0, 2: 1, 4: 2, 8: 3}.get(d, 0), "4-to-2 encoder (one-hot to binary) of `d`"),
    ({"s": 1, "a": 2, "b": 2}, 2, lambda s, a, b: a & b if s else a | b, None),
    ({"n": 4}, 8, lambda n: n * n, "16-entry lookup table (ROM) addressed by `n`, its 8-bit entries from 0 to 225"),
    ({"n": 3}, 2, lambda n: n % 2, None),  # two values only: no table worth naming
    ({"a": 2, "b": 2}, 3, lambda a, b: (3 * a + b) % 7, None),  # two inputs: no ROM
])
def test_recognise_from_tables(widths: dict[str, int], output_width: int, function, expected: str | None) -> None:
    found = recognise(_rows(widths, function), widths, output_width)
    assert (str(found) if found else None) == expected
