"""What can be checked about a module and each of its blocks, read from the parser-neutral IR.

A summary is judged by these facts (`hdlrl.summarize.claims`): every identifier, width,
direction, clock edge, reset polarity and behaviour it states must be one of them, and a
good summary covers each block's salient ones. Facts are listed in source order and never
sorted by name, so that alpha-renaming the internals of a module renames its facts and
changes nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from hdlrl.hdl.constants import evaluate, literal_value
from hdlrl.hdl.ir import Assignment, Block, Case, CaseItem, Expression, If, Loop, Module, Statement

# Behaviours a summary can name, by the IR operators that show them (in this order in a summary).
BEHAVIOURS: dict[str, tuple[str, ...]] = {
    "addition": ("add",),
    "subtraction": ("subtract", "negate"),
    "multiplication": ("multiply", "power"),
    "division": ("divide", "modulo"),
    "shift": ("shift_left", "shift_right", "arithmetic_shift_left", "arithmetic_shift_right"),
    "comparison": ("equal", "not_equal", "case_equal", "case_not_equal", "less", "less_equal", "greater",
                   "greater_equal"),
    "bitwise logic": ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_xnor", "bitwise_not"),
    "reduction": ("reduce_and", "reduce_or", "reduce_xor", "reduce_nand", "reduce_nor", "reduce_xnor"),
    "boolean logic": ("logical_and", "logical_or", "logical_not"),
    "selection": ("conditional",),
    "concatenation": ("concatenate", "replicate"),
}
_BEHAVIOUR_OF = {operator: behaviour for behaviour, operators in BEHAVIOURS.items() for operator in operators}


@dataclass(frozen=True)
class Reset:
    signal: str
    active_low: bool
    asynchronous: bool


@dataclass(frozen=True)
class Counter:
    signal: str
    direction: str  # up or down


@dataclass(frozen=True)
class StateMachine:
    register: str  # the state register
    next_state: str | None  # the signal the next-state logic computes, when it is not the register itself
    states: tuple[str, ...]  # localparam names, or values where the code uses literals
    transitions: tuple[tuple[str, str], ...]  # (from, to), in source order


@dataclass(frozen=True)
class BlockFacts:
    """The facts of one block; `kind` classifies always blocks (combinational, sequential, fsm_next_state, latch)."""

    index: int  # position in the module, the block's name-free identity
    kind: str  # assign, combinational, sequential, fsm_next_state, latch, initial, instance, generate, function, task
    line: int
    end_line: int
    targets: tuple[str, ...] = ()  # signals the block drives
    reads: tuple[str, ...] = ()  # names it reads
    behaviours: tuple[str, ...] = ()  # keys of BEHAVIOURS, in the order of first use
    clock: tuple[str, str] | None = None  # (signal, posedge or negedge)
    reset: Reset | None = None
    counters: tuple[Counter, ...] = ()
    state_machine: StateMachine | None = None
    child: tuple[str, str] | None = None  # instance: (module, instance name)
    name: str | None = None  # function, task or generate label
    inner: tuple["BlockFacts", ...] = ()  # generate: its blocks


@dataclass(frozen=True)
class PortFacts:
    name: str
    direction: str
    width: int | None
    signed: bool


@dataclass(frozen=True)
class Memory:
    name: str
    width: int | None
    depth: int | None


@dataclass
class ModuleFacts:
    name: str
    ports: tuple[PortFacts, ...]
    parameters: dict[str, int | None]  # name -> default value (None when not an integer)
    local_parameters: frozenset[str]
    widths: dict[str, int | None]  # every port and signal -> bits of one element
    registers: tuple[str, ...]  # signals assigned in sequential blocks, in source order
    memories: tuple[Memory, ...]
    blocks: tuple[BlockFacts, ...]
    children: tuple[tuple[str, str], ...]  # (module, instance name), in source order
    identifiers: frozenset[str]  # every name a summary may mention
    combinational: bool = field(default=False)  # ports, and no sequential block anywhere

    def all_blocks(self) -> Iterator[BlockFacts]:
        """Every block, those inside generate regions included, in source order."""
        yield from _flatten(self.blocks)

    @property
    def clocks(self) -> tuple[tuple[str, str], ...]:
        return _unique(block.clock for block in self.all_blocks() if block.clock)

    @property
    def resets(self) -> tuple[Reset, ...]:
        return _unique(block.reset for block in self.all_blocks() if block.reset)

    @property
    def counters(self) -> tuple[Counter, ...]:
        return _unique(counter for block in self.all_blocks() for counter in block.counters)

    @property
    def state_machines(self) -> tuple[StateMachine, ...]:
        return _unique(block.state_machine for block in self.all_blocks() if block.state_machine)

    @property
    def behaviours(self) -> tuple[str, ...]:
        return _unique(behaviour for block in self.all_blocks() for behaviour in block.behaviours)


def _flatten(blocks: Iterable[BlockFacts]) -> Iterator[BlockFacts]:
    for block in blocks:
        yield block
        yield from _flatten(block.inner)


def _unique(items: Iterable) -> tuple:
    """Items in order of first appearance, each once (dict keys keep insertion order)."""
    return tuple(dict.fromkeys(item for item in items if item is not None))


def _walk_statements(statements: Iterable[Statement]) -> Iterator[Statement | CaseItem]:
    """Every statement under `statements`, each case item before its body, in source order."""
    for statement in statements:
        yield statement
        if isinstance(statement, If):
            yield from _walk_statements((*statement.then, *statement.otherwise))
        elif isinstance(statement, Case):
            for item in statement.items:
                yield item
                yield from _walk_statements(item.body)
        elif isinstance(statement, Loop):
            yield from _walk_statements(statement.body)


def assignments(statements: Iterable[Statement]) -> Iterator[Assignment]:
    """Every assignment under `statements`, in source order."""
    return (statement for statement in _walk_statements(statements) if isinstance(statement, Assignment))


def expressions(statements: Iterable[Statement]) -> Iterator[Expression]:
    """Every expression read under `statements` (values, conditions, case subjects and labels)."""
    for statement in _walk_statements(statements):
        if isinstance(statement, Assignment):
            yield statement.value
        elif isinstance(statement, If):
            yield statement.condition
        elif isinstance(statement, Case):
            yield statement.subject
        elif isinstance(statement, CaseItem):
            yield from statement.labels


def _cases(statements: Iterable[Statement]) -> Iterator[Case]:
    return (statement for statement in _walk_statements(statements) if isinstance(statement, Case))


def _targets(statements: Iterable[Statement]) -> tuple[str, ...]:
    return _unique(target for assignment in assignments(statements) for target in (assignment.targets or (assignment.target,)))


def _behaviours(statements: Iterable[Statement]) -> tuple[str, ...]:
    return _unique(_BEHAVIOUR_OF.get(operator) for expression in expressions(statements)
                   for operator in expression.operators)


def _reset(block: Block, clock_signals: set[str]) -> Reset | None:
    """The reset of a sequential block: its first statement is `if (rst)`, `if (!rst)` or `if (rst == 0)`."""
    if not block.statements or not isinstance(block.statements[0], If):
        return None
    condition = block.statements[0].condition
    if len(condition.identifiers) != 1 or condition.identifiers[0] in clock_signals:
        return None
    signal = condition.identifiers[0]
    edges = {event.edge for event in block.events if event.signal == signal}
    if not condition.operators:
        active_low = False
    elif condition.operators in (("logical_not",), ("bitwise_not",)):
        active_low = True
    elif condition.operators in (("equal",), ("case_equal",)):
        compared = literal_value(condition.text.replace("===", "==").rpartition("==")[2])
        if compared not in (0, 1):
            return None
        active_low = compared == 0
    else:
        return None
    if edges and edges not in ({"negedge" if active_low else "posedge"}, {"level"}):
        return None  # an edge that disagrees with the polarity is not a reset we understand
    return Reset(signal, active_low, asynchronous=bool(edges))


def _counters(statements: Iterable[Statement], parameters: dict[str, int | None]) -> tuple[Counter, ...]:
    """Registers stepped by a constant: `r <= r + 1`, `r <= r - STEP`."""
    found = []
    for assignment in assignments(statements):
        names = set(assignment.value.identifiers) - set(parameters)
        if names == {assignment.target} and assignment.value.operators in (("add",), ("subtract",)):
            found.append(Counter(assignment.target, "up" if assignment.value.operators == ("add",) else "down"))
    return _unique(found)


def _state_name(expression: Expression, parameters: dict[str, int | None]) -> str | None:
    """A state as the code names it: a parameter, or a literal's value."""
    if not expression.operators and len(expression.identifiers) == 1 and expression.identifiers[0] in parameters:
        return expression.identifiers[0]
    return str(expression.constant) if expression.constant is not None and not expression.identifiers else None


def _assigned_states(value: Expression, parameters: dict[str, int | None]) -> tuple[str, ...]:
    """The states `value` can take: one name or literal, or the parameter arms of a conditional."""
    single = _state_name(value, parameters)
    if single is not None:
        return (single,)
    if set(value.operators) == {"conditional"}:
        return tuple(name for name in value.identifiers if name in parameters)
    return ()


@dataclass
class _ModuleScan:
    """The state machine search needs every block at once: registers, cases and next-state signals."""

    parameters: dict[str, int | None]
    sequential: set[int] = field(default_factory=set)  # ids of blocks that are sequential

    def state_machine(self, blocks: list[Block]) -> StateMachine | None:
        registers = _unique(target for block in blocks if id(block) in self.sequential
                            for target in _targets(block.statements))
        for register in registers:
            machine = self._machine_on(register, blocks)
            if machine is not None:
                return machine
        return None

    def _machine_on(self, register: str, blocks: list[Block]) -> StateMachine | None:
        """A state machine on `register`: some case switches on it, with states as labels."""
        cases = [case for block in blocks for case in _cases(block.statements)
                 if case.subject.identifiers == (register,) and not case.subject.operators]
        if not cases:
            return None
        driven = [assignment for block in blocks if id(block) in self.sequential
                  for assignment in assignments(block.statements) if assignment.target == register]
        sources = {name for assignment in driven for name in assignment.value.identifiers} - set(self.parameters)
        next_state = next(iter(sources)) if len(sources) == 1 else None
        if len(sources) > 1:
            return None
        updated = {register} | ({next_state} if next_state else set())
        states: list[str] = []
        transitions: list[tuple[str, str]] = []
        for case in cases:
            for item in case.items:
                labels = [name for name in (_state_name(label, self.parameters) for label in item.labels) if name]
                states += labels
                for assignment in assignments(item.body):
                    if assignment.target in updated:
                        targets = _assigned_states(assignment.value, self.parameters)
                        states += targets
                        transitions += [(source, target) for source in labels for target in targets]
        for assignment in driven:
            states += _assigned_states(assignment.value, self.parameters)
        states = list(_unique(states))
        if len(states) < 2:
            return None
        return StateMachine(register, next_state, tuple(states), _unique(transitions))


def _block_facts(block: Block, index: int, scan: _ModuleScan, machine: StateMachine | None) -> BlockFacts:
    common = {"index": index, "line": block.line, "end_line": block.end_line}
    if block.kind == "instance":
        reads = _unique(name for connection in block.connections if connection.value
                        for name in connection.value.identifiers)
        return BlockFacts(kind="instance", child=(block.module or "", block.name or ""), reads=reads, **common)
    if block.kind == "generate":
        inner = tuple(_block_facts(inner, index, scan, machine) for inner in block.blocks)
        return BlockFacts(kind="generate", name=block.name, inner=inner,
                          targets=_unique(t for facts in inner for t in facts.targets),
                          behaviours=_unique(b for facts in inner for b in facts.behaviours), **common)
    targets = _targets(block.statements)
    reads = _unique(name for expression in expressions(block.statements) for name in expression.identifiers)
    behaviours = _behaviours(block.statements)
    kind = block.kind
    clock = reset = None
    counters: tuple[Counter, ...] = ()
    on_machine = None
    if block.kind == "always":
        edge_events = [event for event in block.events if event.edge in ("posedge", "negedge")]
        if id(block) in scan.sequential:
            kind = "sequential"
            reset = _reset(block, set())
            clocks = [event for event in edge_events if reset is None or event.signal != reset.signal]
            clock = (clocks[0].signal, clocks[0].edge) if clocks and clocks[0].signal else None
            if reset is not None and clock is not None and reset.signal == clock[0]:
                reset = None
            counters = _counters(block.statements, scan.parameters)
        else:
            kind = "latch" if block.process == "always_latch" else "combinational"
        if machine and any(case.subject.identifiers == (machine.register,) for case in _cases(block.statements)) \
                and set(targets) & {machine.register, machine.next_state}:
            kind, on_machine = "fsm_next_state", machine
    return BlockFacts(kind=kind, targets=targets, reads=reads, behaviours=behaviours, clock=clock, reset=reset,
                      counters=counters, state_machine=on_machine, name=block.name, **common)


def _walk(blocks: Iterable[Block]) -> Iterator[Block]:
    for block in blocks:
        yield block
        yield from _walk(block.blocks)


def parameter_values(module: Module) -> dict[str, int | None]:
    """Each parameter's default, evaluated in declaration order (later ones may use earlier ones)."""
    values: dict[str, int | None] = {}
    for parameter in module.parameters:
        known = {name: value for name, value in values.items() if value is not None}
        values[parameter.name] = (parameter.value.constant if parameter.value.constant is not None
                                  else evaluate(parameter.value.text, known))
    return values


def module_facts(module: Module) -> ModuleFacts:
    parameters = parameter_values(module)
    scan = _ModuleScan(parameters)
    every_block = list(_walk(module.blocks))
    for block in every_block:
        if block.kind == "always" and (block.process == "always_ff"
                                       or any(event.edge in ("posedge", "negedge") for event in block.events)):
            scan.sequential.add(id(block))
    machine = scan.state_machine(every_block)
    blocks = tuple(_block_facts(block, index, scan, machine) for index, block in enumerate(module.blocks))
    flat = list(_flatten(blocks))
    registers = _unique(target for block in flat if block.kind in ("sequential", "fsm_next_state")
                        and (block.clock is not None) for target in block.targets)
    children = _unique(block.child for block in flat if block.child)
    widths = {port.name: port.width for port in module.ports} | {signal.name: signal.width for signal in module.signals}
    memories = tuple(Memory(signal.name, signal.width, signal.depth) for signal in module.signals if signal.depth)
    identifiers = {module.name, *widths, *parameters, *(name for child in children for name in child)}
    identifiers |= {block.name for block in every_block if block.name}
    identifiers |= {connection.name for block in every_block for connection in block.connections if connection.name}
    identifiers |= {name for block in flat for name in (*block.reads, *block.targets)}  # a task's locals too
    return ModuleFacts(
        name=module.name,
        ports=tuple(PortFacts(port.name, port.direction, port.width, port.signed) for port in module.ports),
        parameters=parameters,
        local_parameters=frozenset(parameter.name for parameter in module.parameters if parameter.local),
        widths=widths, registers=registers, memories=memories, blocks=blocks, children=children,
        identifiers=frozenset(identifiers),
        combinational=bool(module.ports)  # a module with no ports is a testbench, not logic
        and not any(block.kind in ("sequential", "fsm_next_state") and block.clock for block in flat))
