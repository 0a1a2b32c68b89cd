"""The cell model of `hdlrl_generic`, the embedded default PDK: its cells and every constant.

`hdlrl.pdk.generic_liberty` writes this model out as a Liberty (.lib) file; the library is not
shipped as a file but computed from the model, so that it is the same on every machine.
`docs/generic_pdk.md` describes the same model for users.

The process is fictional and only loosely 45 nm-like: nominal corner 1.0 V, 25 C, process 1.0.
Units: time 1 ns, capacitance 1 pF, voltage 1 V, current 1 mA, resistance 1 kohm, leakage 1 nW,
so that 1 kohm * 1 pF = 1 ns and internal energy tables are in pJ (pF * V^2).

Model, for a cell of drive strength X (1, 2 or 4):

* Equivalent transistors: ``T_eq = T + T_out * (X - 1)`` where T is the X1 transistor count and
  T_out the transistors of the output stage, the only ones widened for more drive.
* Area: ``area = 0.266 um^2 * (T_eq / 2 + 1)``: one 0.266 um^2 poly track per transistor pair
  plus one track of cell boundary (INV_X1 = 0.532 um^2, NAND2_X1 = 0.798 um^2).
* Drive resistance: ``R_rise = 2.5 kohm * r_rise / X`` and ``R_fall = 2.5 kohm * r_fall / X``; the
  factors r_rise and r_fall model series stacks and the weaker PMOS.
* Delay (50 % to 50 %): ``d = t0 + 0.002 ns * k + 0.1 * s_in + R * C_load``, with t0 the cell's
  intrinsic delay, k the input's position in the pin list (inputs deeper in a stack are slower)
  and s_in the input transition.
* Output transition (10 % to 90 %): ``s_out = 0.004 ns + 0.05 * s_in + 2.0 * R * C_load``.
* Input capacitance: ``C_in = 1.5 fF * g * (X if the inputs drive the output stage else 1)``
  with g the input's logical effort.
* Internal energy per output transition: ``E = 0.5 fJ * T_eq * (1 + 2/ns * s_in)``, the slew
  term standing for short-circuit current. Flip-flops also take ``0.1 fJ * T_eq`` on each clock
  pin edge, whether Q changes or not.
* Leakage: ``P_leak = 7 nW * T_eq``.
* Flip-flops: clock-to-Q ``t0 = 0.06 ns``; setup ``0.03 ns + 0.5 * s_d - 0.25 * s_ck``; hold
  ``0.005 ns + 0.2 * s_ck - 0.1 * s_d``; recovery ``0.04 ns + 0.3 * s_r``, removal
  ``0.01 ns + 0.1 * s_ck``; asynchronous clear/preset ``t0 = 0.04 ns``.

Delay and transition are tabulated as 5x5 NLDM tables over input transition and output load;
constraints as 5x5 tables over clock and data transition.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

LIBRARY_NAME = "hdlrl_generic"

# Corner.
NOMINAL_VOLTAGE_V = 1.0
NOMINAL_TEMPERATURE_C = 25.0
NOMINAL_PROCESS = 1.0

# Area.
AREA_PER_TRACK_UM2 = 0.266
BOUNDARY_TRACKS = 1

# Delay, transition, capacitance (ns, kohm, pF).
R_UNIT_KOHM = 2.5
DELAY_PER_PIN_INDEX_NS = 0.002
DELAY_SLEW_FACTOR = 0.1
TRANSITION_INTRINSIC_NS = 0.004
TRANSITION_SLEW_FACTOR = 0.05
TRANSITION_PER_RC = 2.0
C_UNIT_PF = 0.0015

# Power (pJ, nW).
ENERGY_PER_TRANSISTOR_PJ = 0.0005
SHORT_CIRCUIT_PER_NS = 2.0
CLOCK_PIN_ENERGY_PER_TRANSISTOR_PJ = 0.0001
LEAKAGE_PER_TRANSISTOR_NW = 7.0

# Flip-flop timing (ns).
CLK_TO_Q_NS = 0.06
ASYNC_TO_Q_NS = 0.04
SETUP_NS, SETUP_DATA_SLEW, SETUP_CLOCK_SLEW = 0.03, 0.5, -0.25
HOLD_NS, HOLD_DATA_SLEW, HOLD_CLOCK_SLEW = 0.005, -0.1, 0.2
RECOVERY_NS, RECOVERY_PIN_SLEW = 0.04, 0.3
REMOVAL_NS, REMOVAL_CLOCK_SLEW = 0.01, 0.1

# Table axes: input transition (ns) and output load (pF), five points each.
SLEW_INDEX_NS: tuple[float, ...] = (0.005, 0.02, 0.05, 0.1, 0.2)
LOAD_INDEX_PF: tuple[float, ...] = (0.001, 0.004, 0.01, 0.025, 0.06)
DEFAULT_MAX_TRANSITION_NS = 0.5
MAX_CAPACITANCE_PER_DRIVE_PF = 0.12

DELAY_TEMPLATE = "delay_5x5"
CONSTRAINT_TEMPLATE = "constraint_5x5"
ENERGY_TEMPLATE = "energy_5x5"
ENERGY_TEMPLATE_1D = "energy_5"


@dataclass(frozen=True)
class CombCell:
    """One combinational cell family; `function` is a Liberty expression of `inputs` for Y."""

    base: str
    inputs: tuple[str, ...]
    function: str
    transistors: int
    out_stage: int  # transistors of the output stage, widened with the drive strength
    single_stage: bool  # inputs drive the output stage directly, so their load grows with X
    r_rise: float
    r_fall: float
    intrinsic_ns: float
    effort: tuple[float, ...]  # logical effort of each input, times C_UNIT_PF
    drives: tuple[int, ...] = (1,)


@dataclass(frozen=True)
class FlopCell:
    """One D flip-flop family (rising edge on CK), optionally with active-low RN and/or SN."""

    base: str
    transistors: int
    reset: bool
    set_: bool
    out_stage: int = 2
    r_rise: float = 1.2
    r_fall: float = 1.0


COMB_CELLS: tuple[CombCell, ...] = (
    CombCell("INV", ("A",), "!A", 2, 2, True, 1.2, 1.0, 0.010, (1.0,), (1, 2, 4)),
    CombCell("BUF", ("A",), "A", 4, 2, False, 1.2, 1.0, 0.025, (1.0,), (1, 2, 4)),
    CombCell("NAND2", ("A", "B"), "!(A&B)", 4, 4, True, 1.2, 1.4, 0.014, (4 / 3,) * 2, (1, 2)),
    CombCell("NAND3", ("A", "B", "C"), "!(A&B&C)", 6, 6, True, 1.2, 1.8, 0.018, (5 / 3,) * 3),
    CombCell("NOR2", ("A", "B"), "!(A|B)", 4, 4, True, 2.0, 1.0, 0.016, (5 / 3,) * 2, (1, 2)),
    CombCell("NOR3", ("A", "B", "C"), "!(A|B|C)", 6, 6, True, 2.8, 1.0, 0.022, (7 / 3,) * 3),
    CombCell("AND2", ("A", "B"), "(A&B)", 6, 2, False, 1.2, 1.0, 0.030, (4 / 3,) * 2, (1, 2)),
    CombCell("OR2", ("A", "B"), "(A|B)", 6, 2, False, 1.2, 1.0, 0.034, (5 / 3,) * 2, (1, 2)),
    CombCell("XOR2", ("A", "B"), "(A^B)", 10, 4, True, 1.6, 1.4, 0.035, (2.0,) * 2),
    CombCell("XNOR2", ("A", "B"), "!(A^B)", 10, 4, True, 1.6, 1.4, 0.035, (2.0,) * 2),
    CombCell("AOI21", ("A", "B", "C"), "!((A&B)|C)", 6, 6, True, 2.0, 1.4, 0.020, (2.0,) * 3),
    CombCell("OAI21", ("A", "B", "C"), "!((A|B)&C)", 6, 6, True, 2.0, 1.4, 0.020, (2.0,) * 3),
    CombCell("MUX2", ("A", "B", "S"), "((A&!S)|(B&S))", 12, 2, False, 1.2, 1.0, 0.040,
             (1.0, 1.0, 1.5)),
)

# Named without a drive suffix: a tie cell drives no edge, and `hdlrl.pdk` looks them up so.
TIE_CELLS: tuple[tuple[str, str], ...] = (("TIEHI", "1"), ("TIELO", "0"))
TIE_TRANSISTORS = 2

FLOP_CELLS: tuple[FlopCell, ...] = (
    FlopCell("DFF", 24, reset=False, set_=False),
    FlopCell("DFFR", 28, reset=True, set_=False),
    FlopCell("DFFS", 28, reset=False, set_=True),
    FlopCell("DFFRS", 32, reset=True, set_=True),
)


# --- Liberty boolean expressions -------------------------------------------------------------


def evaluate_function(expr: str, values: dict[str, bool]) -> bool:
    """Evaluate a Liberty function string (`! ' & * | + ^`, juxtaposition) for pin values.

    Why: timing senses are derived from the functions rather than typed by hand, and the tests
    check every function against a truth table, so a typo cannot go unnoticed.
    """
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\S", expr)
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse_or() -> bool:
        value = parse_xor()
        while peek() in ("|", "+"):
            take()
            value = parse_xor() or value
        return value

    def parse_xor() -> bool:
        value = parse_and()
        while peek() == "^":
            take()
            value = value != parse_and()
        return value

    def parse_and() -> bool:
        value = parse_unary()
        while peek() is not None and peek() not in ("|", "+", "^", ")"):
            if peek() in ("&", "*"):
                take()
            value = parse_unary() and value
        return value

    def parse_unary() -> bool:
        if peek() == "!":
            take()
            return not parse_unary()
        value = parse_atom()
        while peek() == "'":
            take()
            value = not value
        return value

    def parse_atom() -> bool:
        token = take()
        if token == "(":
            value = parse_or()
            if take() != ")":
                raise ValueError(f"unbalanced parentheses in {expr!r}")
            return value
        if token in ("0", "1"):
            return token == "1"
        if token not in values:
            raise ValueError(f"unknown pin {token!r} in {expr!r}")
        return values[token]

    result = parse_or()
    if pos != len(tokens):
        raise ValueError(f"trailing text in {expr!r}")
    return result


def timing_sense(function: str, inputs: Sequence[str], pin: str) -> str:
    """`positive_unate`, `negative_unate` or `non_unate` for `pin`, from the truth table."""
    others = [name for name in inputs if name != pin]
    rises = falls = False
    for combo in itertools.product((False, True), repeat=len(others)):
        values = dict(zip(others, combo))
        low = evaluate_function(function, {**values, pin: False})
        high = evaluate_function(function, {**values, pin: True})
        rises |= high and not low
        falls |= low and not high
    if rises and falls:
        return "non_unate"
    return "negative_unate" if falls else "positive_unate"


# --- Model ------------------------------------------------------------------------------------


def equivalent_transistors(transistors: int, out_stage: int, drive: int) -> int:
    """Transistor count once the output stage is widened `drive` times."""
    return transistors + out_stage * (drive - 1)


def cell_area(t_eq: int) -> float:
    """Area in um^2: a poly track per transistor pair plus the cell boundary."""
    return AREA_PER_TRACK_UM2 * (t_eq / 2 + BOUNDARY_TRACKS)


def leakage_nw(t_eq: int) -> float:
    return LEAKAGE_PER_TRANSISTOR_NW * t_eq


Table = list[list[float]]


def delay_table(intrinsic_ns: float, r_kohm: float) -> Table:
    """Rows: input transition; columns: output load."""
    return [[intrinsic_ns + DELAY_SLEW_FACTOR * s + r_kohm * c for c in LOAD_INDEX_PF]
            for s in SLEW_INDEX_NS]


def transition_table(r_kohm: float) -> Table:
    return [[TRANSITION_INTRINSIC_NS + TRANSITION_SLEW_FACTOR * s + TRANSITION_PER_RC * r_kohm * c
             for c in LOAD_INDEX_PF] for s in SLEW_INDEX_NS]


def energy_table(t_eq: int) -> Table:
    """Internal energy (pJ) per output transition; load does not change it, input slew does."""
    return [[ENERGY_PER_TRANSISTOR_PJ * t_eq * (1 + SHORT_CIRCUIT_PER_NS * s) for _ in LOAD_INDEX_PF]
            for s in SLEW_INDEX_NS]


def constraint_table(base: float, related_factor: float, constrained_factor: float) -> Table:
    """Rows: related (clock) pin transition; columns: constrained pin transition."""
    return [[base + related_factor * r + constrained_factor * c for c in SLEW_INDEX_NS]
            for r in SLEW_INDEX_NS]


def cell_names() -> list[str]:
    """Every cell of the library, in file order."""
    names = [f"{cell.base}_X{drive}" for cell in COMB_CELLS for drive in cell.drives]
    names += [base for base, _ in TIE_CELLS]
    names += [f"{cell.base}_X1" for cell in FLOP_CELLS]
    return names

