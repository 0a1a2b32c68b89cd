"""The pyslang reader: SystemVerilog read into the parser-neutral IR, and agreement with the pyverilog reader."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.errors import HdlrlError
from hdlrl.hdl.ir import Assignment, Case, Connection, Event, Expression, If, Loop, Module
from hdlrl.hdl.readers import pyslang_reader, pyverilog_reader

DESIGN_FILES = sorted(DESIGNS_DIR.glob("*/rtl/*.v"))

CONTROLLER = """\
`timescale 1ns/1ps
module controller #(parameter WIDTH = 8, parameter DEPTH = WIDTH * 2) (
    input  logic             clk, rst_n,
    input  logic [WIDTH-1:0] data,
    input  wire              start,
    output logic [WIDTH-1:0] parity_out,
    output logic signed [DEPTH-1:0] total
);
    localparam IDLE = 2'd0, RUN = 2'd1, DONE = 2'd2;
    logic [1:0] state, next_state;
    logic [WIDTH-1:0] parity;
    logic [7:0] table_a [0:15], table_b [16];

    always_comb begin
        parity = '0;
        for (int i = 0; i < WIDTH; i++) parity[i] = ^data[i:0];
        case (state)
            IDLE: if (start) next_state = RUN; else next_state = IDLE;
            RUN: next_state = DONE;
            default: next_state = IDLE;
        endcase
    end

    always_ff @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            state <= IDLE;
            total <= '0;
        end else begin
            state <= next_state;
            total <= total + {{(DEPTH - WIDTH){1'b0}}, data};
        end

    register #(.W(WIDTH)) u_out (.clk(clk), .d(parity), .q(parity_out), .valid());

    genvar lane;
    generate
        for (lane = 0; lane < 4; lane = lane + 1) begin : g_lane
            assign table_b[lane] = data ^ lane;
        end
    endgenerate
endmodule
"""


def read_one(text: str, path: str = "inline.sv", **options) -> Module:
    (module,) = pyslang_reader.read_modules(text, path, **options)
    return module


def test_systemverilog_ports_parameters_and_signals() -> None:
    module = read_one(CONTROLLER)
    assert (module.name, module.parser, module.line, module.end_line) == ("controller", "pyslang", 2, 41)
    assert module.source.startswith("module controller") and module.source.endswith("endmodule")
    assert [(port.name, port.direction, port.width, port.signed, port.is_register) for port in module.ports] == [
        ("clk", "input", 1, False, True), ("rst_n", "input", 1, False, True), ("data", "input", 8, False, True),
        ("start", "input", 1, False, False), ("parity_out", "output", 8, False, True),
        ("total", "output", 16, True, True)]
    assert [(parameter.name, parameter.value.text, parameter.local, parameter.line)
            for parameter in module.parameters] == [
        ("WIDTH", "8", False, 2), ("DEPTH", "WIDTH * 2", False, 2), ("IDLE", "2'd0", True, 9),
        ("RUN", "2'd1", True, 9), ("DONE", "2'd2", True, 9)]
    assert module.parameters[1].value == Expression("WIDTH * 2", ("multiply",), ("WIDTH",))
    assert [(signal.name, signal.kind, signal.width, signal.depth) for signal in module.signals] == [
        ("state", "logic", 2, None), ("next_state", "logic", 2, None), ("parity", "logic", 8, None),
        ("table_a", "logic", 8, 16), ("table_b", "logic", 8, 16), ("lane", "genvar", 32, None)]


def test_systemverilog_processes_and_statements() -> None:
    combinational, sequential = read_one(CONTROLLER).blocks[:2]
    assert (combinational.kind, combinational.process, combinational.events) == ("always", "always_comb", (Event("star"),))
    assert (combinational.line, combinational.end_line) == (14, 22)
    clear, loop, case = combinational.statements
    assert (clear.target, clear.value.constant, clear.blocking) == ("parity", 0, True)
    assert isinstance(loop, Loop) and loop.body == (
        Assignment("parity", "parity[i]", Expression("^data[i:0]", ("reduce_xor",), ("data", "i")), True, 16,
                   ("parity",)),)
    assert isinstance(case, Case) and (case.kind, case.subject.identifiers) == ("case", ("state",))
    assert [[label.identifiers for label in item.labels] for item in case.items] == [[("IDLE",)], [("RUN",)], []]
    idle = case.items[0].body[0]
    assert isinstance(idle, If) and idle.condition.identifiers == ("start",)
    assert [(branch[0].target, branch[0].value.identifiers) for branch in (idle.then, idle.otherwise)] == [
        ("next_state", ("RUN",)), ("next_state", ("IDLE",))]

    assert (sequential.process, sequential.events) == ("always_ff", (Event("posedge", "clk"), Event("negedge", "rst_n")))
    (reset,) = sequential.statements
    assert isinstance(reset, If) and reset.condition.operators == ("logical_not",) and reset.line == 25
    assert [(statement.target, statement.blocking) for statement in reset.then] == [("state", False), ("total", False)]
    total = reset.otherwise[1].value
    assert total.operators == ("add", "concatenate", "replicate", "subtract")
    assert total.identifiers == ("total", "DEPTH", "WIDTH", "data")
    assert reset.then[1].value == Expression("'0", constant=0)


def test_systemverilog_instance_and_generate() -> None:
    instance, generate = read_one(CONTROLLER).blocks[2:]
    assert (instance.kind, instance.module, instance.name, instance.line) == ("instance", "register", "u_out", 33)
    assert instance.parameters == (Connection("W", Expression("WIDTH", identifiers=("WIDTH",))),)
    assert [(connection.name, connection.value and connection.value.identifiers)
            for connection in instance.connections] == [
        ("clk", ("clk",)), ("d", ("parity",)), ("q", ("parity_out",)), ("valid", None)]
    assert (generate.kind, generate.name, generate.line, generate.end_line) == ("generate", None, 36, 40)
    (loop,) = generate.blocks
    assert (loop.kind, loop.name) == ("generate", "g_lane")
    (assign,) = loop.blocks
    assert assign.statements[0].target_text == "table_b[lane]"
    assert assign.statements[0].value.operators == ("bitwise_xor",)


def test_verilog_forms_pyverilog_rejects_or_splits() -> None:
    module = read_one("""\
module legacy(clk, rst, a, q, y);
  input clk, rst;
  input [3:0] a;
  output q;
  output [1:0] y;
  reg q;
  wire carry = a[0] & a[1];
  assign y[0] = a[2], y[1] = a[3];
  always @(posedge clk or rst) if (rst) q <= 0; else q <= ~q;
  always @* begin count += a; {q, carry} = 2'b10; end
endmodule
""", "legacy.v")
    assert [(port.name, port.width, port.is_register) for port in module.ports] == [
        ("clk", 1, False), ("rst", 1, False), ("a", 4, False), ("q", 1, True), ("y", 2, False)]
    assert [(signal.name, signal.kind) for signal in module.signals] == [("carry", "wire")]
    assert [(block.kind, block.line) for block in module.blocks] == [
        ("assign", 7), ("assign", 8), ("assign", 8), ("always", 9), ("always", 10)]
    assert [block.statements[0].target_text for block in module.blocks[:3]] == ["carry", "y[0]", "y[1]"]
    assert module.blocks[3].events == (Event("posedge", "clk"), Event("level", "rst"))
    add, pair = module.blocks[4].statements
    assert (add.target, add.value.operators, add.value.identifiers) == ("count", ("add",), ("count", "a"))
    assert (pair.target, pair.targets) == ("q", ("q", "carry"))


def test_defines_syntax_errors_and_includes(tmp_path: Path) -> None:
    widened = read_one("module m(input [`W-1:0] a, output y);\n  assign y = &a;\nendmodule\n", defines={"W": "6"})
    assert widened.ports[0].width == 6
    with pytest.raises(HdlrlError) as error:
        read_one("module m(input a, output y);\n  assign y = a +;\nendmodule\n", "broken.sv")
    assert (error.value.line, str(error.value.path)) == (2, "broken.sv") and "expected expression" in error.value.message

    (tmp_path / "rtl").mkdir()
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "widths.vh").write_text("localparam W = 3;\n")
    (tmp_path / "secret.vh").write_text("localparam S = 1;\n")
    source = str(tmp_path / "rtl" / "m.sv")
    included = read_one('module m(output [W-1:0] y);\n  `include "widths.vh"\n  assign y = 0;\nendmodule\n', source,
                        include_dirs=[tmp_path / "include"])
    assert included.ports[0].width == 3 and included.blocks[0].line == 3
    for name in ("../secret.vh", str(tmp_path / "secret.vh")):
        with pytest.raises(HdlrlError, match="lies outside"):
            read_one(f'`include "{name}"\nmodule m; endmodule\n', source, include_dirs=[tmp_path / "include"])


def comparable(value: object) -> object:
    """`value` without what the two parsers legitimately print differently: expression text, target text, parser."""
    if isinstance(value, Expression):
        return dataclasses.replace(value, text="")
    if isinstance(value, Assignment):
        return dataclasses.replace(value, target_text="", value=comparable(value.value))
    if isinstance(value, Module):
        value = dataclasses.replace(value, parser="")
    if dataclasses.is_dataclass(value):
        return dataclasses.replace(value, **{field.name: comparable(getattr(value, field.name))
                                             for field in dataclasses.fields(value)})
    if isinstance(value, tuple):
        return tuple(comparable(item) for item in value)
    return value


@pytest.mark.parametrize("path", DESIGN_FILES, ids=lambda path: path.parent.parent.name)
def test_both_readers_agree_on_every_design(path: Path) -> None:
    text = path.read_text()
    slang = [comparable(module) for module in pyslang_reader.read_modules(text, str(path))]
    verilog = [comparable(module) for module in pyverilog_reader.read_modules(text, str(path))]
    assert [module.name for module in slang] == [module.name for module in verilog]
    for ours, theirs in zip(slang, verilog):
        for field in dataclasses.fields(Module):
            assert getattr(ours, field.name) == getattr(theirs, field.name), f"{ours.name}.{field.name}"
