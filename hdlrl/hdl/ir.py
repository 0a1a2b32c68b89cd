"""A parser-neutral description of Verilog modules: what `hdlrl summarize` reads its facts from.

Two parsers serve the summariser (pyverilog for Verilog-2001, pyslang for SystemVerilog it
rejects), and each turns its own tree into these dataclasses, so that the facts, the claims
checked against them and the summaries never depend on which parser served a module. Only
what a summary can state and a checker can verify is kept: declarations with widths
evaluated under the parameters' defaults, blocks with their sensitivity, and statements as
assignments under if/case structure. Delays, system tasks and attributes are dropped.

Operators are named by `OPERATORS`; an expression lists the operators and the identifiers it
uses in the order they appear in the source (each identifier once), so that two parsers
reading the same text give equal `Expression`s except for `text`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Operator names, by Verilog token. Unary forms are distinct names: `-a` negate, `&a` reduce_and.
OPERATORS = {
    "+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "modulo", "**": "power",
    "<<": "shift_left", ">>": "shift_right", "<<<": "arithmetic_shift_left", ">>>": "arithmetic_shift_right",
    "==": "equal", "!=": "not_equal", "===": "case_equal", "!==": "case_not_equal",
    "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal",
    "&&": "logical_and", "||": "logical_or", "!": "logical_not",
    "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "~^": "bitwise_xnor", "^~": "bitwise_xnor",
    "~": "bitwise_not",
    "unary -": "negate", "unary +": "plus",
    "unary &": "reduce_and", "unary |": "reduce_or", "unary ^": "reduce_xor",
    "unary ~&": "reduce_nand", "unary ~|": "reduce_nor", "unary ~^": "reduce_xnor",
    "?:": "conditional", "{}": "concatenate", "{{}}": "replicate",
}


@dataclass(frozen=True)
class Expression:
    text: str  # the expression as written, whitespace collapsed (informative only: parsers print it differently)
    operators: tuple[str, ...] = ()  # names from OPERATORS, in source order, repeats kept
    identifiers: tuple[str, ...] = ()  # names read (signals, parameters, functions called), source order, each once
    constant: int | None = None  # the value when the whole expression is a number literal without x/z digits


@dataclass(frozen=True)
class Assignment:
    target: str  # the assigned signal's name, without selects (`q` for `q[3:0] <= ...`)
    target_text: str  # the left-hand side as written
    value: Expression
    blocking: bool  # `=` (and continuous assigns) rather than `<=`
    line: int
    targets: tuple[str, ...] = ()  # every signal a concatenation target assigns (`{c, s} = ...`); else (target,)


@dataclass(frozen=True)
class If:
    condition: Expression
    then: tuple["Statement", ...]
    otherwise: tuple["Statement", ...]  # empty without an else
    line: int


@dataclass(frozen=True)
class CaseItem:
    labels: tuple[Expression, ...]  # empty for `default`
    body: tuple["Statement", ...]
    line: int


@dataclass(frozen=True)
class Case:
    kind: str  # case, casez, casex (unique/priority prefixes dropped)
    subject: Expression
    items: tuple[CaseItem, ...]
    line: int


@dataclass(frozen=True)
class Loop:
    """A for, while or repeat loop: only its body matters to the facts."""

    body: tuple["Statement", ...]
    line: int


Statement = Assignment | If | Case | Loop


@dataclass(frozen=True)
class Event:
    """One entry of a sensitivity list."""

    edge: str  # posedge, negedge, level (a plain signal), star (`@*`, `@(*)`, always_comb)
    signal: str | None = None  # None for star


@dataclass(frozen=True)
class Connection:
    """One port or parameter binding of an instance."""

    name: str | None  # the child's port or parameter name; None when bound by position
    value: Expression | None  # None for an explicitly unconnected `.p()`


@dataclass(frozen=True)
class Block:
    """One unit a summary can describe on its own.

    kind is one of: assign (one continuous assignment, in `statements`), always (with
    `process` the keyword as written: always, always_comb, always_ff, always_latch), initial,
    instance (`module` instantiated as `name`), generate (a generate region, loop or
    conditional; its contents in `blocks`), function, task (body in `statements`).
    """

    kind: str
    line: int
    end_line: int
    statements: tuple[Statement, ...] = ()
    events: tuple[Event, ...] = ()  # always: the sensitivity list; always_comb gives (Event("star"),)
    process: str | None = None  # always: the keyword as written
    name: str | None = None  # instance name, function or task name, generate block label
    module: str | None = None  # instance: the module instantiated
    connections: tuple[Connection, ...] = ()  # instance: port bindings, in source order
    parameters: tuple[Connection, ...] = ()  # instance: parameter overrides, in source order
    blocks: tuple["Block", ...] = ()  # generate: the blocks inside, in source order


@dataclass(frozen=True)
class Port:
    name: str
    direction: str  # input, output, inout
    width: int | None  # bits, under the parameters' defaults; None when it cannot be evaluated
    signed: bool
    is_register: bool  # declared `reg` / `logic` driven procedurally (output reg q), as written
    line: int


@dataclass(frozen=True)
class Parameter:
    name: str
    value: Expression  # the default
    local: bool  # localparam
    line: int


@dataclass(frozen=True)
class Signal:
    """A declaration inside the module that is not a port: a net, variable, integer or genvar."""

    name: str
    kind: str  # wire, reg, logic, integer, genvar, (other net and variable types as written)
    width: int | None  # bits of one element, under the parameters' defaults
    depth: int | None  # words of a memory (`reg [7:0] mem [0:15]` has depth 16); None when not an array
    signed: bool
    line: int


@dataclass(frozen=True)
class Module:
    name: str
    path: str  # the file, as given to the parser
    line: int
    end_line: int
    parser: str  # pyverilog or pyslang: which parser served this module
    source: str  # the module's text, `module` to `endmodule`, as in the file
    ports: tuple[Port, ...] = ()  # in declaration order
    parameters: tuple[Parameter, ...] = ()  # parameters and localparams, in declaration order
    signals: tuple[Signal, ...] = ()  # internal declarations, in declaration order
    blocks: tuple[Block, ...] = ()  # in source order
    notes: tuple[str, ...] = field(default=())  # what the parser left out, one line each (for the row's record)
