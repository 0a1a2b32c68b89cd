"""The pyverilog reader: real designs and small Verilog texts read into the parser-neutral IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.errors import HdlrlError
from hdlrl.hdl.ir import Assignment, Case, Event, If, Loop, Module, Statement
from hdlrl.hdl.readers.pyverilog_reader import read_modules

DESIGN_FILES = sorted(DESIGNS_DIR.glob("*/rtl/*.v"))


def read_design(name: str) -> Module:
    path = DESIGNS_DIR / name / "rtl" / f"{name}.v"
    (module,) = read_modules(path.read_text(), str(path))
    return module


def read_one(text: str) -> Module:
    (module,) = read_modules(text, "inline.v")
    return module


def assignments(statements: tuple[Statement, ...]) -> list[Assignment]:
    """Every assignment under if/case/loop structure, in source order."""
    found: list[Assignment] = []
    for statement in statements:
        if isinstance(statement, Assignment):
            found.append(statement)
        elif isinstance(statement, If):
            found += assignments(statement.then) + assignments(statement.otherwise)
        elif isinstance(statement, Case):
            found += [assignment for item in statement.items for assignment in assignments(item.body)]
        elif isinstance(statement, Loop):
            found += assignments(statement.body)
    return found


@pytest.mark.parametrize("path", DESIGN_FILES, ids=lambda path: path.parent.parent.name)
def test_every_design_reads_with_its_module_text(path: Path) -> None:
    text = path.read_text()
    modules = read_modules(text, str(path))
    assert modules
    lines = text.split("\n")
    for module in modules:
        assert module.parser == "pyverilog" and module.path == str(path)
        assert module.source.startswith("module") and module.source.endswith("endmodule")
        assert module.source in text
        assert lines[module.line - 1].lstrip().startswith("module") and "endmodule" in lines[module.end_line - 1]
        for block in module.blocks:
            assert module.line <= block.line <= block.end_line <= module.end_line


def test_alu8_ports_parameters_and_blocks() -> None:
    alu = read_design("alu8")
    assert [(port.name, port.direction, port.width, port.is_register) for port in alu.ports] == [
        ("a", "input", 8, False), ("b", "input", 8, False), ("op", "input", 3, False),
        ("y", "output", 8, True), ("carry", "output", 1, True), ("zero", "output", 1, False)]
    assert [(parameter.name, parameter.value.constant, parameter.local) for parameter in alu.parameters][:3] == [
        ("OP_ADD", 0, True), ("OP_SUB", 1, True), ("OP_AND", 2, True)]
    assert [(signal.name, signal.kind, signal.width) for signal in alu.signals] == [
        ("sum", "wire", 9), ("diff", "wire", 9)]
    assert [block.kind for block in alu.blocks] == ["assign", "assign", "always", "assign"]
    sum_assign = alu.blocks[0].statements[0]
    assert (sum_assign.target, sum_assign.blocking) == ("sum", True)
    assert sum_assign.value.operators == ("add", "concatenate", "concatenate")
    assert sum_assign.value.identifiers == ("a", "b")
    always = alu.blocks[2]
    assert always.events == (Event("star"),)
    assert (always.line, always.end_line) == (31, 45)
    case = always.statements[2]
    assert isinstance(case, Case) and case.kind == "case" and case.subject.identifiers == ("op",)
    assert [item.labels[0].text for item in case.items[:-1]] == [
        "OP_ADD", "OP_SUB", "OP_AND", "OP_OR", "OP_XOR", "OP_NOR", "OP_SHL", "OP_SHR"]
    assert case.items[-1].labels == ()
    assert [assignment.target_text for assignment in case.items[0].body] == ["y", "carry"]


def test_sync_fifo_memory_and_asynchronous_reset() -> None:
    fifo = read_design("sync_fifo")
    memory = next(signal for signal in fifo.signals if signal.name == "mem")
    assert (memory.kind, memory.width, memory.depth, memory.line) == ("reg", 8, 8, 19)
    assert [signal.name for signal in fifo.signals] == ["mem", "wr_ptr", "rd_ptr", "do_wr", "do_rd"]
    clocked = fifo.blocks[2]
    assert [(event.edge, event.signal) for event in clocked.events] == [("posedge", "clk"), ("negedge", "rst_n")]
    (reset,) = clocked.statements
    assert isinstance(reset, If) and reset.condition.operators == ("logical_not",)
    assert reset.condition.identifiers == ("rst_n",)
    assert [(assignment.target, assignment.blocking) for assignment in reset.then] == [
        ("wr_ptr", False), ("rd_ptr", False), ("count", False), ("dout", False)]
    case = reset.otherwise[-1]
    assert isinstance(case, Case) and case.subject.operators == ("concatenate",)
    assert [item.labels[0].constant if item.labels else None for item in case.items] == [2, 1, None]
    storage = fifo.blocks[3]
    assert [assignment.target_text for assignment in assignments(storage.statements)] == ["mem[wr_ptr]"]


def test_seq_detect_state_register_case() -> None:
    detector = read_design("seq_detect")
    next_state, register = (block for block in detector.blocks if block.kind == "always")
    (case,) = next_state.statements
    assert isinstance(case, Case) and case.subject.text == "state"
    assert [item.labels[0].text for item in case.items if item.labels] == ["S_IDLE", "S_1", "S_10", "S_101", "S_1011"]
    first = case.items[0].body[0]
    assert (first.target, first.value.operators, first.value.identifiers) == ("next", ("conditional",),
                                                                               ("din", "S_1", "S_IDLE"))
    assert [(event.edge, event.signal) for event in register.events] == [("posedge", "clk"), ("negedge", "rst_n")]
    assert [assignment.target for assignment in assignments(register.statements)] == ["state", "state"]


def test_traffic_light_else_if_chain_nests() -> None:
    light = read_design("traffic_light")
    sequential = light.blocks[1]
    assert [(event.edge, event.signal) for event in sequential.events] == [("posedge", "clk")]
    (chain,) = sequential.statements
    assert chain.condition.text == "rst"
    (middle,) = chain.otherwise
    assert isinstance(middle, If) and middle.condition.text == "leave"
    (last,) = middle.otherwise
    assert last.condition.operators == ("not_equal",) and last.otherwise == ()


def test_mult8_generate_loop_and_memory() -> None:
    multiplier = read_design("mult8")
    assert next(signal for signal in multiplier.signals if signal.name == "pp").depth == 8
    assert ("row", "wire", 16) in [(signal.name, signal.kind, signal.width) for signal in multiplier.signals]
    region = multiplier.blocks[0]
    assert (region.kind, region.name, region.line, region.end_line) == ("generate", None, 10, 15)
    (loop,) = region.blocks
    assert (loop.kind, loop.name, loop.line, loop.end_line) == ("generate", "g_pp", 11, 14)
    assert [block.statements[0].target for block in loop.blocks] == ["row", "pp"]
    assert loop.blocks[0].statements[0].value.operators == ("concatenate", "bitwise_and", "replicate")


def test_barrel_shift8_function_and_calls() -> None:
    shifter = read_design("barrel_shift8")
    function = next(block for block in shifter.blocks if block.kind == "function")
    assert (function.name, function.line, function.end_line) == ("rev8", 17, 24)
    (loop,) = function.statements
    assert isinstance(loop, Loop) and loop.body[0].target_text == "rev8[k]"
    assert "k" not in [signal.name for signal in shifter.signals]  # the function's own variable
    output = shifter.blocks[-1].statements[0]
    assert output.value.identifiers == ("is_left", "rev8", "s3")
    stage = next(block for block in shifter.blocks if block.kind == "assign" and block.statements[0].target == "f2")
    assert stage.statements[0].value.operators == ("conditional", "replicate", "bitwise_and")


def test_hierarchy_instances_and_connections() -> None:
    top = read_one(
        "module top(input [3:0] a, output [3:0] y, output z);\n"
        "  sub #(.W(4), .D(2)) u0 (.a(a), .y(y[1 +: 2]), .unused()), u1 (a, z);\n"
        "  half half (\n"
        "    .a(a[0])\n"
        "  );\n"
        "endmodule\n")
    first, second, third = top.blocks
    assert (first.kind, first.module, first.name, first.line) == ("instance", "sub", "u0", 2)
    bindings = [(binding.name, binding.value.text if binding.value else None) for binding in first.connections]
    assert bindings == [("a", "a"), ("y", "y[1 +: 2]"), ("unused", None)]
    assert [(parameter.name, parameter.value.constant) for parameter in first.parameters] == [("W", 4), ("D", 2)]
    assert [connection.name for connection in second.connections] == [None, None] and second.name == "u1"
    assert (third.module, third.name, third.line, third.end_line) == ("half", "half", 3, 5)


def test_generate_conditional_and_labelled_branches() -> None:
    module = read_one(
        "module g #(parameter N = 4) (input [N-1:0] a, output [N-1:0] y);\n"
        "  generate\n"
        "    if (N > 2) begin : wide\n"
        "      assign y = ~a;\n"
        "    end else begin\n"
        "      assign y = a;\n"
        "    end\n"
        "  endgenerate\n"
        "endmodule\n")
    (region,) = module.blocks
    (conditional,) = region.blocks
    assert (conditional.kind, conditional.line, conditional.end_line) == ("generate", 3, 7)
    labelled, plain = conditional.blocks
    assert (labelled.kind, labelled.name, labelled.end_line) == ("generate", "wide", 5)
    assert labelled.blocks[0].statements[0].value.operators == ("bitwise_not",)
    assert plain.kind == "assign" and plain.line == 6


def test_non_ansi_ports_parameters_and_signed() -> None:
    module = read_one(
        "module m(clk, d, q, s);\n"
        "  parameter W = 4;\n"
        "  localparam D = W * 2;\n"
        "  input clk;\n"
        "  input signed [D-1:0] d;\n"
        "  output q;\n"
        "  output [W:0] s;\n"
        "  reg [D-1:0] q;\n"
        "  reg [W-1:0] table_ [0:D-1];\n"
        "  always @(posedge clk) q <= d;\n"
        "  assign s = 0;\n"
        "endmodule\n")
    facts = [(port.name, port.direction, port.width, port.signed, port.is_register, port.line) for port in module.ports]
    assert facts == [
        ("clk", "input", 1, False, False, 4), ("d", "input", 8, True, False, 5), ("q", "output", 8, False, True, 6),
        ("s", "output", 5, False, False, 7)]
    assert [(parameter.name, parameter.local, parameter.value.text) for parameter in module.parameters] == [
        ("W", False, "4"), ("D", True, "W * 2")]
    assert [(signal.name, signal.width, signal.depth) for signal in module.signals] == [("table_", 4, 8)]


def test_header_parameters_size_ports() -> None:
    module = read_one("module m #(parameter W = 8, parameter N = W / 2) (input [W-1:0] a, output reg [N-1:0] q);\n"
                      "  always @* q = a[N-1:0];\n"
                      "endmodule\n")
    assert [(port.name, port.width, port.is_register) for port in module.ports] == [("a", 8, False), ("q", 4, True)]
    assert [parameter.value.identifiers for parameter in module.parameters] == [(), ("W",)]


def test_statements_indexed_selects_and_concatenation_targets() -> None:
    module = read_one(
        "module m(input clk, input [7:0] a, b, input [1:0] i,\n"
        "         output reg [3:0] sum, output reg cout, output reg [7:0] q);\n"
        "  always @(posedge clk) begin\n"
        "    {cout, sum} = a + b * 2;\n"
        "    q[i*4 +: 4] <= a[7 -: 4];\n"
        "    $display(\"q=%d\", q);\n"
        "    #1 q <= ~q;\n"
        "    casez (a)\n"
        "      8'b1???????: q <= 1;\n"
        "      default: q <= 0;\n"
        "    endcase\n"
        "  end\n"
        "endmodule\n")
    (always,) = module.blocks
    concatenation, indexed, delayed, case = always.statements
    assert (concatenation.target, concatenation.targets, concatenation.blocking) == ("cout", ("cout", "sum"), True)
    assert concatenation.value.operators == ("add", "multiply") and concatenation.value.identifiers == ("a", "b")
    assert (indexed.target, indexed.target_text, indexed.line) == ("q", "q[(i * 4) +: 4]", 5)
    assert indexed.value.identifiers == ("a",)
    assert (delayed.line, delayed.value.operators) == (7, ("bitwise_not",))
    assert isinstance(case, Case) and case.kind == "casez" and case.items[0].labels[0].constant is None


def test_tasks_initial_and_loops() -> None:
    module = read_one(
        "module m(output reg q);\n"
        "  integer k;\n"
        "  task pulse; input v; begin #2 q = v; end endtask\n"
        "  initial begin\n"
        "    q = 0;\n"
        "    for (k = 0; k < 4; k = k + 1) q = ~q;\n"
        "    forever #5 q = ~q;\n"
        "  end\n"
        "endmodule\n")
    task, initial = module.blocks
    assert (task.kind, task.name, [assignment.target for assignment in task.statements]) == ("task", "pulse", ["q"])
    assert (initial.kind, initial.line, initial.end_line) == ("initial", 4, 8)
    assert [type(statement).__name__ for statement in initial.statements] == ["Assignment", "Loop", "Loop"]
    assert initial.statements[1].body[0].value.text == "~q"  # the for's own init and step are not included
    assert [(signal.name, signal.kind, signal.width) for signal in module.signals] == [("k", "integer", 32)]


def test_several_modules_and_their_text() -> None:
    text = ("// two modules\nmodule a(output y); assign y = 1; endmodule module b(output y);\n"
            "  assign y = 0; // comment kept\nendmodule\n")
    first, second = read_modules(text, "two.v")
    assert first.source == "module a(output y); assign y = 1; endmodule"
    assert second.source == "module b(output y);\n  assign y = 0; // comment kept\nendmodule"
    assert (first.line, first.end_line, second.line, second.end_line) == (2, 2, 2, 4)


def test_defines_and_includes(tmp_path: Path) -> None:
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "widths.vh").write_text("// widths\n`define WIDTH 6\nlocalparam HALF = `WIDTH / 2;\n")
    (tmp_path / "rtl").mkdir()
    design = tmp_path / "rtl" / "m.v"
    text = ("module m(input [`WIDTH-1:0] a, output [HALF-1:0] y);\n"
            "`include \"widths.vh\"\n"
            "`ifdef FAST\n  assign y = a[HALF-1:0];\n`else\n  assign y = 0;\n`endif\n"
            "endmodule\n")
    design.write_text(text)
    with pytest.raises(HdlrlError, match="not found") as error:
        read_modules(text, str(design), defines={"WIDTH": "4"})
    assert error.value.line == 2
    module = read_modules(text, str(design), defines={"WIDTH": "4", "FAST": ""},
                          include_dirs=[tmp_path / "include"])[0]
    assert [port.width for port in module.ports] == [4, 3]  # WIDTH was 4 at the header; the include redefines it
    assert module.parameters[0].name == "HALF" and module.parameters[0].line == 2
    assert module.blocks[0].line == 4 and module.blocks[0].statements[0].value.text == "a[HALF-1:0]"
    assert module.source == text[:-1]


def test_includes_never_leave_their_folders(tmp_path: Path) -> None:
    (tmp_path / "secret.vh").write_text("`define X 1\n")
    (tmp_path / "rtl").mkdir()
    for name in ("../secret.vh", str(tmp_path / "secret.vh")):
        text = f"module m;\n`include \"{name}\"\nendmodule\n"
        with pytest.raises(HdlrlError, match="include") as error:
            read_modules(text, str(tmp_path / "rtl" / "m.v"))
        assert error.value.line == 2


def test_rejected_text_is_an_error_with_path_and_line() -> None:
    with pytest.raises(HdlrlError) as error:
        read_modules("module m(input a);\n  assign = a;\nendmodule\n", "bad.v")
    assert error.value.path == Path("bad.v") and error.value.line == 2


def test_blocks_are_in_source_order() -> None:
    module = read_one("module m(input a, output y, output z);\n  wire w = a;\n  assign y = w;\n"
                      "  always @(a) begin end\n  assign z = a;\nendmodule\n")
    assert [(block.kind, block.line) for block in module.blocks] == [
        ("assign", 2), ("assign", 3), ("always", 4), ("assign", 5)]
    assert module.blocks[2].events[0].edge == "level"
