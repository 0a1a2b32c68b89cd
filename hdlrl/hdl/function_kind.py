"""Which standard combinational function a module computes, from its truth table, never from names or text.

A summary that calls a block "a 4-to-1 multiplexer" or "a priority encoder" makes a claim that
a comment or a port name can suggest wrongly. Here the claim is checked against behaviour: the
output's truth table is computed from the gate-level netlist (`hdlrl.hdl.truth_table`) and
each recogniser checks its function on every row.

`recognise` returns a `Function`: `kind` to compare claims against (multiplexer, decoder,
encoder, priority encoder, adder, subtractor, comparator, parity, population count,
binary-to-Gray, Gray-to-binary, majority, reduction, lookup table) and `description` to print
(`str(function)`), e.g. "4-to-1 multiplexer selected by `s`". `recognise_bitwise` does the
same for a bitwise table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

from hdlrl.hdl.truth_table import TruthTable


@dataclass(frozen=True)
class Function:
    """A standard function a truth table computes; `roles` names the inputs, e.g. (("select", "s"),)."""

    kind: str
    description: str
    roles: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return self.description


class _Table:
    """A truth table with its inputs' values per row at hand, for the recognisers."""

    def __init__(self, rows: Sequence[int], widths: Mapping[str, int], output_width: int):
        if len(rows) != 1 << sum(widths.values()):
            raise ValueError(f"{len(rows)} rows for {sum(widths.values())} input bits")
        self.rows, self.widths, self.output_width = rows, dict(widths), output_width
        self.bits = sum(self.widths.values())
        self.offsets, shift = {}, 0
        for name, width in self.widths.items():
            self.offsets[name], shift = shift, shift + width

    def column(self, name: str) -> list[int]:
        mask, offset = (1 << self.widths[name]) - 1, self.offsets[name]
        return [(index >> offset) & mask for index in range(len(self.rows))]

    def matches(self, function: Callable[[int], int | None]) -> bool:
        """True when every row's output is `function(row index)` (None: any output will do)."""
        return all(expected is None or expected == output
                   for expected, output in zip(map(function, range(len(self.rows))), self.rows))


def _multiplexer(table: _Table) -> Function | None:
    """Every value of one input (the select) passes one other input, or one bit of one, to the output."""
    for select, select_width in table.widths.items():
        sources = [(name, None) for name, width in table.widths.items()
                   if name != select and width == table.output_width]
        if table.output_width == 1:
            sources += [(name, bit) for name, width in table.widths.items() if name != select and width > 1
                        for bit in range(width)]
        shifts = [(table.offsets[name] + (bit or 0), (1 << (1 if bit is not None else table.widths[name])) - 1)
                  for name, bit in sources]
        alive = {value: set(range(len(sources))) for value in range(1 << select_width)}
        selects = table.column(select)
        for index, output in enumerate(table.rows):
            candidates = alive[selects[index]]
            candidates -= {k for k in candidates if (index >> shifts[k][0]) & shifts[k][1] != output}
            if not candidates:
                break
        else:
            chosen = [sources[min(alive[value])] for value in range(1 << select_width)]
            names = tuple(dict.fromkeys(name if bit is None else f"{name}[{bit}]" for name, bit in chosen))
            if len(names) >= 2:
                return Function("multiplexer", f"{len(names)}-to-1 multiplexer selected by `{select}`",
                                (("select", select), *(("data", name) for name in names)))
    return None


def _decoder(table: _Table) -> Function | None:
    """One-hot output of an address, optionally gated by a one-bit enable; active-low outputs too."""
    full = (1 << table.output_width) - 1
    for address, width in table.widths.items():
        enables = [name for name in table.widths if name != address]
        if table.output_width != 1 << width or len(enables) > 1 or enables and table.widths[enables[0]] != 1:
            continue
        for inverted, level in ((0, 1), (full, 1), (0, 0), (full, 0)):
            def one_hot(index: int) -> int:
                enabled = not enables or (index >> table.offsets[enables[0]]) & 1 == level
                return inverted ^ (1 << ((index >> table.offsets[address]) & ((1 << width) - 1)) if enabled else 0)
            if table.matches(one_hot):
                enable = f", enabled by `{enables[0]}` (active {'high' if level else 'low'})" if enables else ""
                low = " with active-low outputs" if inverted else ""
                return Function("decoder", f"{width}-to-{table.output_width} decoder (binary to one-hot) of "
                                f"`{address}`{low}{enable}", (("address", address), *(("enable", e) for e in enables)))
    return None


def _highest_set_bit(value: int) -> int | None:
    return value.bit_length() - 1 if value else None


def _lowest_set_bit(value: int) -> int | None:
    return (value & -value).bit_length() - 1 if value else None


def _encoder(table: _Table) -> Function | None:
    """The index of the highest or the lowest set bit of one input (priority), or of its only set bit."""
    if len(table.widths) != 1 or table.bits < 2 or 1 << table.output_width < table.bits:
        return None
    name = next(iter(table.widths))
    for rule, end in ((_highest_set_bit, table.bits - 1), (_lowest_set_bit, 0)):
        if table.matches(rule):
            return Function("priority encoder", f"{table.bits}-to-{table.output_width} priority encoder of `{name}`, "
                            f"bit {end} highest", (("input", name),))
    if table.matches(lambda index: _highest_set_bit(index) if index and not index & (index - 1) else None):
        return Function("encoder", f"{table.bits}-to-{table.output_width} encoder (one-hot to binary) of `{name}`",
                        (("input", name),))
    return None


def _parity(table: _Table) -> Function | None:
    if table.output_width != 1 or table.bits < 2:
        return None
    for inverted, kind in ((0, "XOR"), (1, "XNOR")):
        if table.matches(lambda index: inverted ^ (bin(index).count("1") & 1)):
            return Function("parity", f"parity ({kind} of all {table.bits} input bits)")
    return None


def _majority(table: _Table) -> Function | None:
    """More than half of the input bits set, or per bit of three equal-width inputs (a 2-of-3 voter)."""
    widths = list(table.widths.values())
    if table.output_width == 1 and table.bits >= 3 and table.bits % 2 and table.matches(
            lambda index: int(2 * bin(index).count("1") > table.bits)):
        return Function("majority", f"majority of {table.bits} input bits")
    if len(widths) == 3 and set(widths) == {table.output_width} and table.output_width > 1:
        a, b, c = (table.column(name) for name in table.widths)
        if all(out == (x & y) | (x & z) | (y & z) for out, x, y, z in zip(table.rows, a, b, c)):
            names = ", ".join(f"`{name}`" for name in table.widths)
            return Function("majority", f"{table.output_width}-bit bitwise majority (2-of-3 vote) of {names}")
    return None


def _reduction(table: _Table) -> Function | None:
    if table.output_width != 1 or table.bits < 2:
        return None
    full = (1 << table.bits) - 1
    for kind, rule in (("OR", lambda i: int(i != 0)), ("AND", lambda i: int(i == full)),
                       ("NOR", lambda i: int(i == 0)), ("NAND", lambda i: int(i != full))):
        if table.matches(rule):
            return Function("reduction", f"{kind} of all {table.bits} input bits")
    return None


def _arithmetic(table: _Table) -> Function | None:
    """a + b (+ carry in) or a - b (- borrow in), modulo the output, with the carry out when it is one bit wider."""
    names = list(table.widths)
    carries = [None] + [name for name in names if table.widths[name] == 1] if len(names) == 3 else [None]
    for carry in carries:
        operands = [name for name in names if name != carry]
        if len(operands) != 2:
            continue
        width = max(table.widths[name] for name in operands)
        if table.output_width not in (width, width + 1) or width == 1 and table.output_width == 1:
            continue
        columns = {name: table.column(name) for name in names}
        carry_column = columns[carry] if carry else [0] * len(table.rows)
        for kind, (a, b) in [("adder", operands), *(("subtractor", pair) for pair in permutations(operands))]:
            sign = 1 if kind == "adder" else -1
            mask = (1 << table.output_width) - 1
            if all(out == (x + sign * (y + c)) & mask for out, x, y, c
                   in zip(table.rows, columns[a], columns[b], carry_column)):
                text = f"`{a}` + `{b}`" if kind == "adder" else f"`{a}` - `{b}`"
                extra = f" with {'carry' if sign > 0 else 'borrow'}-in `{carry}`" if carry else ""
                out = f" and {'carry' if sign > 0 else 'borrow'}-out" if table.output_width > width else ""
                return Function(kind, f"{width}-bit {kind}: {text}{extra}{out}",
                                (("a", a), ("b", b), *((("carry", carry),) if carry else ())))
    return None


_RELATIONS = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
              "<=": lambda x, y: x <= y, ">": lambda x, y: x > y, ">=": lambda x, y: x >= y}


def _as_signed(value: int, width: int) -> int:
    """Two's complement: the top bit counts -2^(width-1)."""
    return value - (value >> (width - 1) << width)


def _comparator(table: _Table) -> Function | None:
    if len(table.widths) != 2 or table.output_width != 1:
        return None
    (a, width_a), (b, width_b) = table.widths.items()
    for signed in (False, True):
        pairs = [(_as_signed(x, width_a) if signed else x, _as_signed(y, width_b) if signed else y)
                 for x, y in zip(table.column(a), table.column(b))]
        for symbol, relation in _RELATIONS.items():
            if all(out == relation(x, y) for out, (x, y) in zip(table.rows, pairs)):
                kind = "signed" if signed else "unsigned"
                return Function("comparator", f"{max(width_a, width_b)}-bit comparator: `{a}` {symbol} `{b}` ({kind})",
                                (("a", a), ("b", b)))
    return None


def _gray(table: _Table) -> Function | None:
    if len(table.widths) != 1 or table.bits != table.output_width or table.bits < 2:
        return None
    name = next(iter(table.widths))
    if table.matches(lambda value: value ^ (value >> 1)):
        return Function("binary-to-Gray", f"{table.bits}-bit binary-to-Gray conversion of `{name}`", (("input", name),))

    def binary(gray: int) -> int:
        value = 0
        while gray:
            value, gray = value ^ gray, gray >> 1
        return value
    if table.matches(binary):
        return Function("Gray-to-binary", f"{table.bits}-bit Gray-to-binary conversion of `{name}`", (("input", name),))
    return None


def _population_count(table: _Table) -> Function | None:
    if table.output_width < 2 or table.bits < 2 or not table.matches(lambda index: bin(index).count("1")):
        return None
    return Function("population count", f"population count of {table.bits} input bits")


def _lookup_table(table: _Table) -> Function | None:
    """Any other function of one small input: a table of constants it addresses (a ROM), told by
    its size and the range of its entries; the last recogniser, as every function of one input is one.
    Up to 64 entries: a wider input (an instruction) is decoded, not looked up, in a spec's words."""
    if len(table.widths) != 1 or not 2 <= table.bits <= 6 or table.output_width < 2 or len(set(table.rows)) < 3:
        return None
    name = next(iter(table.widths))
    return Function("lookup table", f"{len(table.rows)}-entry lookup table (ROM) addressed by `{name}`, its "
                    f"{table.output_width}-bit entries from {min(table.rows)} to {max(table.rows)}",
                    (("address", name),))


_RECOGNISERS = (_multiplexer, _decoder, _encoder, _parity, _majority, _reduction, _arithmetic, _comparator, _gray,
                _population_count, _lookup_table)


def recognise_bitwise(table: TruthTable) -> Function | None:
    """The function a `tabulate_bitwise` table applies to every bit: a 2-of-3 majority vote."""
    names = ", ".join(f"`{name}`" for name, _ in table.inputs)
    if len(table.inputs) == 3 and all(row == int(bin(index).count("1") >= 2) for index, row in enumerate(table.rows)):
        return Function("majority", f"{table.output_width}-bit bitwise majority (2-of-3 vote) of {names}")
    return None


def recognise(table: Sequence[int], input_widths: Mapping[str, int], output_width: int) -> Function | None:
    """The standard function `table` computes, or None. `table[i]` is the output for the assignment
    packed in `i`, the first of `input_widths` (port -> width, in order) in the least significant bits;
    `TruthTable.rows` and `dict(TruthTable.inputs)` are in this form."""
    if not input_widths:
        return None
    prepared = _Table(table, input_widths, output_width)
    return next((found for found in map(lambda recogniser: recogniser(prepared), _RECOGNISERS) if found), None)
