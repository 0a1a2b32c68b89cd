"""Truth tables of a gate-level netlist's outputs, every input assignment at once.

`tabulate` evaluates an output's cone with one bit-parallel integer per net, so 2^18 rows cost
a few big-integer operations per gate. `tabulate_bitwise` handles an output too wide for that
whose every bit computes the same function of the same bit of its inputs (a voter over 8-bit
copies): its table has one row per assignment of one bit of each input.
`hdlrl.hdl.function_kind` recognises standard functions in these tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

_GATES: dict[str, Callable[[dict[str, int], int], int]] = {  # one bit-parallel vector per input port, all-ones mask
    "$_BUF_": lambda v, m: v["A"],
    "$_NOT_": lambda v, m: m ^ v["A"],
    "$_AND_": lambda v, m: v["A"] & v["B"],
    "$_NAND_": lambda v, m: m ^ (v["A"] & v["B"]),
    "$_OR_": lambda v, m: v["A"] | v["B"],
    "$_NOR_": lambda v, m: m ^ (v["A"] | v["B"]),
    "$_XOR_": lambda v, m: v["A"] ^ v["B"],
    "$_XNOR_": lambda v, m: m ^ v["A"] ^ v["B"],
    "$_ANDNOT_": lambda v, m: v["A"] & (m ^ v["B"]),
    "$_ORNOT_": lambda v, m: v["A"] | (m ^ v["B"]),
    "$_MUX_": lambda v, m: (v["A"] & (m ^ v["S"])) | (v["B"] & v["S"]),
    "$_NMUX_": lambda v, m: m ^ ((v["A"] & (m ^ v["S"])) | (v["B"] & v["S"])),
    "$_AOI3_": lambda v, m: m ^ ((v["A"] & v["B"]) | v["C"]),
    "$_OAI3_": lambda v, m: m ^ ((v["A"] | v["B"]) & v["C"]),
    "$_AOI4_": lambda v, m: m ^ ((v["A"] & v["B"]) | (v["C"] & v["D"])),
    "$_OAI4_": lambda v, m: m ^ ((v["A"] | v["B"]) & (v["C"] | v["D"])),
}


@dataclass(frozen=True)
class TruthTable:
    """An output as a function of the input ports in its cone. `rows[i]` is the output for the
    assignment packed in `i`, the first input in the least significant bits."""

    output: str
    output_width: int
    inputs: tuple[tuple[str, int], ...]  # (port, width)
    rows: tuple[int, ...]
    bitwise: bool = False  # rows give each output bit from the same bit of every input (`tabulate_bitwise`)

    def value(self, assignment: Mapping[str, int]) -> int:
        """The output for {port: value}, every input of the table given."""
        if self.bitwise:
            return sum(self.rows[sum(((assignment[name] >> bit) & 1) << position
                                     for position, (name, _) in enumerate(self.inputs))] << bit
                       for bit in range(self.output_width))
        index, shift = 0, 0
        for name, width in self.inputs:
            index |= (assignment[name] & ((1 << width) - 1)) << shift
            shift += width
        return self.rows[index]


def cell_drivers(module: dict) -> dict[int, dict]:
    """The cell driving each bit of a `write_json` module."""
    return {bit: cell for cell in module["cells"].values() for port, bits in cell["connections"].items()
            if cell["port_directions"].get(port) == "output" for bit in bits if isinstance(bit, int)}


def operand_bits(cell: dict) -> list[int]:
    """The bits a cell reads (constants left out)."""
    return [bit for port, bits in cell["connections"].items() if cell["port_directions"].get(port) == "input"
            for bit in bits if isinstance(bit, int)]


def _operands(cell: dict) -> dict[str, int | str]:
    return {port: bits[0] for port, bits in cell["connections"].items() if cell["port_directions"][port] == "input"}


def pattern(position: int, size: int) -> int:
    """The vector of input bit `position` over `size` assignments: bit i is bit `position` of i."""
    span = 1 << position
    vector, length = ((1 << span) - 1) << span, 2 * span
    while length < size:
        vector |= vector << length
        length *= 2
    return vector & ((1 << size) - 1)


def evaluate(drivers: dict[int, dict], targets: list[int | str], values: dict[int, int],
              mask: int) -> list[int] | None:
    """The vectors of `targets` from the input vectors in `values`; None on a combinational loop.
    Undriven and x bits count as 0."""
    constant = {"1": mask}
    stack, on_path = list(targets), set()
    while stack:
        bit = stack[-1]
        if isinstance(bit, str) or bit in values:
            stack.pop()
            continue
        operands = _operands(drivers[bit]) if bit in drivers else {}
        pending = [each for each in operands.values() if isinstance(each, int) and each not in values]
        if pending:
            if bit in on_path:
                return None
            on_path.add(bit)
            stack.extend(pending)
            continue
        vectors = {port: values[each] if isinstance(each, int) else constant.get(each, 0)
                   for port, each in operands.items()}
        values[bit] = _GATES[drivers[bit]["type"]](vectors, mask) if bit in drivers else 0
        stack.pop()
    return [values[bit] if isinstance(bit, int) else constant.get(bit, 0) for bit in targets]


def cone(drivers: dict[int, dict], targets: list[int | str], stops: frozenset[int] = frozenset()) -> set[int]:
    """Every bit `targets` depend on through the cells, themselves included; a bit in `stops`
    is reached but what drives it is not followed."""
    reached, stack = set(), [bit for bit in targets if isinstance(bit, int)]
    while stack:
        bit = stack.pop()
        if bit not in reached:
            reached.add(bit)
            stack += operand_bits(drivers[bit]) if bit in drivers and bit not in stops else []
    return reached


def _cone_inputs(module: dict, drivers: dict[int, dict], targets: list[int | str]) -> list[tuple[str, int]]:
    """The input ports (name, width) with a bit in the cone of `targets`, in port order."""
    reached = cone(drivers, targets)
    return [(name, len(port["bits"])) for name, port in module["ports"].items()
            if port["direction"] == "input" and reached & set(port["bits"])]


def tabulate(module: dict, output: str, max_input_bits: int) -> TruthTable | None:
    """The truth table of `output` in a gate-level module (`techmap`, then `write_json`); None when the
    module holds a cell that is no gate (a flip-flop, a latch, a black box), has a loop, or the input
    ports in the output's cone have more than `max_input_bits` bits."""
    if any(cell["type"] not in _GATES for cell in module["cells"].values()):
        return None
    drivers, targets = cell_drivers(module), module["ports"][output]["bits"]
    inputs = _cone_inputs(module, drivers, targets)
    input_bits = [bit for name, _ in inputs for bit in module["ports"][name]["bits"]]
    if len(input_bits) > max_input_bits:
        return None
    size = 1 << len(input_bits)
    values = {bit: pattern(position, size) for position, bit in enumerate(input_bits)}
    vectors = evaluate(drivers, targets, values, (1 << size) - 1)
    if vectors is None:
        return None
    rows = [0] * size
    for weight, vector in enumerate(vectors):
        for index, digit in enumerate(reversed(format(vector, f"0{size}b"))):
            if digit == "1":
                rows[index] |= 1 << weight
    return TruthTable(output, len(targets), tuple(inputs), tuple(rows))


def tabulate_bitwise(module: dict, output: str, max_inputs: int = 4) -> TruthTable | None:
    """The table of a bitwise `output`: bit i of it reads bit i of each of at most `max_inputs`
    input ports as wide as it, and every bit computes the same function of them (a 2-of-3 voter
    over 8-bit copies reads 24 bits, too many for `tabulate`, but 3 a bit). None otherwise."""
    if any(cell["type"] not in _GATES for cell in module["cells"].values()):
        return None
    drivers, targets = cell_drivers(module), module["ports"][output]["bits"]
    inputs = _cone_inputs(module, drivers, targets)
    if len(targets) < 2 or not 2 <= len(inputs) <= max_inputs or any(width != len(targets) for _, width in inputs):
        return None
    columns = [module["ports"][name]["bits"] for name, _ in inputs]
    input_bits = {bit for column in columns for bit in column}
    if any(cone(drivers, [target]) & input_bits != {column[index] for column in columns}
           for index, target in enumerate(targets)):
        return None
    size = 1 << len(inputs)
    values = {bit: pattern(position, size) for position, column in enumerate(columns) for bit in column}
    vectors = evaluate(drivers, targets, values, (1 << size) - 1)
    if vectors is None or len(set(vectors)) != 1:
        return None
    rows = tuple((vectors[0] >> index) & 1 for index in range(size))
    return TruthTable(output, len(targets), tuple(inputs), rows, bitwise=True)


def output_tables(module: dict, max_input_bits: int) -> dict[str, TruthTable | None]:
    """Each output's truth table (`tabulate`, or `tabulate_bitwise` where the cone is too wide for it)."""
    return {name: tabulate(module, name, max_input_bits) or tabulate_bitwise(module, name)
            for name, port in module["ports"].items() if port["direction"] == "output"}


def _input_port_bits(module: dict) -> dict[int, tuple[str, int]]:
    """Each input port's bits -> (the port, its width)."""
    return {bit: (name, len(port["bits"])) for name, port in module["ports"].items() if port["direction"] == "input"
            for bit in port["bits"]}


def gate_cone(drivers: dict[int, dict], targets: list[int | str], stops: frozenset[int]) -> set[int] | None:
    """The cone of `targets` down to `stops` (register outputs) and the input ports; None when it passes
    through a cell that is no gate (another register, a black box, an arithmetic cell left whole)."""
    reached = cone(drivers, targets, stops)
    return None if any(drivers[bit]["type"] not in _GATES for bit in reached - stops if bit in drivers) else reached


def _one_bit_table(drivers: dict[int, dict], name: str, target: int, inputs: list[tuple[str, int]],
                   bits: list[int]) -> TruthTable | None:
    """The table of the one-bit `target` over `bits` (those of `inputs`, in order), named `name`; None on a loop."""
    size = 1 << len(bits)
    values = {bit: pattern(position, size) for position, bit in enumerate(bits)}
    (vector,) = evaluate(drivers, [target], values, (1 << size) - 1) or (None,)
    return None if vector is None else TruthTable(name, 1, tuple(inputs),
                                                  tuple((vector >> index) & 1 for index in range(size)))


def next_state_tables(module: dict, max_input_bits: int = 6) -> dict[str, TruthTable]:
    """Each one-bit register's next value as a truth table of itself and the input ports it reads,
    from a netlist whose flip-flops hold their resets and enables in their D logic (`proc` and
    `simplemap` without `opt_dff`, `netlist_facts.GATE_MAPPINGS`): the table a flip-flop's kind
    (D, T, JK, SR) is read from. A register whose D logic reads another register, or more than
    `max_input_bits` bits, has none."""
    drivers, port_bits, tables = cell_drivers(module), _input_port_bits(module), {}
    for cell in module["cells"].values():
        if not cell["type"].startswith("$_DFF_"):
            continue
        (state,), (data,) = cell["connections"]["Q"], cell["connections"]["D"]
        name = next((net for net, entry in module["netnames"].items()
                     if entry["bits"] == [state] and not entry.get("hide_name")), None)
        if name is None or not isinstance(data, int):
            continue
        if (reached := gate_cone(drivers, [data], frozenset({state}))) is None:
            continue
        ports = list(dict.fromkeys(port_bits[bit] for bit in sorted(reached) if bit in port_bits))
        bits = [state, *(bit for port, _ in ports for bit in module["ports"][port]["bits"])]
        if len(bits) <= max_input_bits and (table := _one_bit_table(drivers, name, data, [(name, 1), *ports], bits)):
            tables[name] = table
    return tables


def register_output_tables(module: dict, max_register_bits: int = 8) -> dict[str, TruthTable]:
    """Each one-bit output that is combinational logic of one register and at most one one-bit
    input port (a counter's `zero`, a FIFO's `full`), as a truth table of the register's value
    (first) and that input, from a gate-level netlist with flip-flops (`simplemap`). An output whose
    cone reads two registers, a wider input, a cell that is no gate (a `$lt` `simplemap` leaves
    whole), or a register over `max_register_bits` has none."""
    drivers, port_bits = cell_drivers(module), _input_port_bits(module)
    state_bits = frozenset(bit for cell in module["cells"].values() if cell["type"].startswith("$_DFF_")
                           for bit in cell["connections"]["Q"] if isinstance(bit, int))
    registers = sorted((bool(entry.get("hide_name")), len(entry["bits"]), name, entry["bits"])
                       for name, entry in module["netnames"].items()
                       if entry["bits"] and set(entry["bits"]) <= state_bits)  # named ones first, the narrowest first
    tables = {}
    for output, port in module["ports"].items():
        if port["direction"] != "output" or len(port["bits"]) != 1:
            continue
        (target,) = port["bits"]
        if not isinstance(target, int) or (reached := gate_cone(drivers, [target], state_bits)) is None:
            continue
        read = reached & state_bits
        hidden, width, name, bits = next((entry for entry in registers if read and read <= set(entry[3])),
                                         (True, 0, "", []))
        inputs = list(dict.fromkeys(port_bits[bit] for bit in sorted(reached) if bit in port_bits))
        if hidden or width > max_register_bits or len(inputs) > 1 or any(each != 1 for _, each in inputs):
            continue
        leaves = [*bits, *(module["ports"][each]["bits"][0] for each, _ in inputs)]
        if table := _one_bit_table(drivers, output, target, [(name, width), *inputs], leaves):
            tables[output] = table
    return tables
