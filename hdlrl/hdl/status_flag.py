"""Status flags: a one-bit output that says a register holds one value ("`zero` is high when
`count` is 0", "`tc` is high when `count` is 9 and `en` is high").

A spec states its flags this way; the table is the output as a function of the register and at
most one one-bit input (`hdlrl.hdl.truth_table.register_output_tables`), and the flag must be
high for exactly one register value (with the input at one level and low at the other), or
for every value but one. The register has two bits or more: a one-bit register's copy or
complement is no flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdlrl.hdl.truth_table import TruthTable


@dataclass(frozen=True)
class StatusFlag:
    """`output` is high when `register` is `value` (`equal`) or unless it is (not `equal`), and, with
    an `input`, only while that input is at `level`."""

    output: str
    register: str
    value: int
    equal: bool = True
    input: str | None = None
    level: bool = True

    def holds(self, register_value: int, input_value: int | None = None) -> bool:
        """The flag's level for one register value (and the input's value, where it has one)."""
        matches = (register_value == self.value) == self.equal
        return matches and (self.input is None or input_value == int(self.level))


def recognise_flag(table: TruthTable) -> StatusFlag | None:
    """The flag `table` (first input: the register) is, or None; a one-bit register's copy or
    complement is no flag."""
    (register, width), *inputs = table.inputs
    if width < 2:
        return None
    values = range(1 << width)
    if not inputs:
        high = [value for value in values if table.rows[value]]
        if len(high) == 1:
            return StatusFlag(table.output, register, high[0])
        low = [value for value in values if not table.rows[value]]
        return StatusFlag(table.output, register, low[0], equal=False) if len(low) == 1 else None
    (name, _), = inputs
    for level in (True, False):
        offset = int(level) << width  # the input is the bit above the register's
        high = [value for value in values if table.rows[offset + value]]
        other = [value for value in values if table.rows[(1 << width) - offset + value]]
        if len(high) == 1 and not other:
            return StatusFlag(table.output, register, high[0], input=name, level=level)
    return None
