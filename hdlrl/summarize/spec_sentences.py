"""The opening of a spec-like summary: what the module is, then its reset, from the netlist's facts.

A datasheet says first what a block is ("a 3-to-8 decoder", "an 8-bit down counter"), then how
it resets and to what, then the interface. These sentences are written from the netlist
(`hdlrl.summarize.behaviour`) and the text's facts, each phrased so that
`hdlrl.summarize.claims` reads back exactly the claims it came from; the checker then tests
the netlist's claims again in simulation. Identifiers appear only in backticks.
"""

from __future__ import annotations

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.register_modes import RegisterModes
from hdlrl.summarize.behaviour import Behaviour, DataPath, ResetValue
from hdlrl.summarize.claim import Claim, reset_claim
from hdlrl.summarize.claims import Scope, check
from hdlrl.summarize.netlist_claims import (data_path_claim, enable_claim, flag_claim, flag_state, flip_flop_claim,
                                            memory_read_claim, memory_write_claim, register_mode_claim,
                                            state_output_claim, transition_when_claim)
from hdlrl.summarize.state_changes import named_changes, named_outputs, state_names
from hdlrl.summarize.counting import stimulus

MAX_LISTED = 12  # names a sentence lists before it says "and N more"


def names(items: list[str] | tuple[str, ...]) -> str:
    """"`a`, `b` and `c`": backticked, in the order given."""
    quoted = [f"`{item}`" for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        quoted.append(f"{len(items) - MAX_LISTED} more")
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _article(text: str) -> str:
    return "an" if text[:1].lower() in "aeiou8" or text.startswith(("11-", "18-")) else "a"


def _edge(name: str, edge: str) -> str:
    return f"{'rising' if edge == 'posedge' else 'falling'} edge of `{name}`"


def _clock_phrase(facts: ModuleFacts) -> str:
    """" clocked on the rising edge of `clk`", every clock named (a dual-clock memory has two)."""
    edges = [_edge(name, edge) for name, edge in facts.clocks]
    return " clocked on the " + " and the ".join(edges) if edges else ""


def function_sentences(behaviour: Behaviour | None) -> list[str]:
    """One sentence per output whose standard function the netlist shows, in port order."""
    if behaviour is None:
        return []
    return [f"`{output}` is {_article(function.description)} {function.description}."
            for output, function in behaviour.stated_functions.items()]


def what_it_is(facts: ModuleFacts, behaviour: Behaviour | None) -> str:
    """The first sentence: the module's kind, the most specific the facts support. A module with no
    clocked block may still hold latches; the netlist tells."""
    netlist = behaviour.netlist if behaviour is not None else None
    latches = list(dict.fromkeys(latch.name for latch in netlist.latches)) if netlist else []
    if not facts.ports:
        return f"`{facts.name}` is a testbench, with no ports."
    if facts.combinational and latches:
        return f"`{facts.name}` is level-sensitive, with no clock: it holds {names(latches)} in a latch."
    if facts.combinational:
        return f"`{facts.name}` is purely combinational, with no clock or reset."
    clocked = _clock_phrase(facts)
    sized = [memory for memory in facts.memories if memory.depth and memory.width]
    if sized:
        memory = sized[0]
        return f"`{facts.name}` is a memory `{memory.name}` of {memory.depth} words of {memory.width} bits{clocked}."
    if facts.state_machines:
        machine = facts.state_machines[0]
        return f"`{facts.name}` is a state machine with {len(machine.states)} states in `{machine.register}`{clocked}."
    outputs = {port.name for port in facts.ports if port.direction == "output"}
    steered = checked_register_modes(facts, behaviour)
    if steered and not facts.counters:  # the noun and the modes that make it true, in one sentence
        kinds = {mode.kind for mode in steered[0].modes}
        noun = f"{steered[0].width}-bit " + ("shift register" if "shift" in kinds else "rotating register"
                                             if "rotate" in kinds else "register")
        verb = "is" if steered[0].register in outputs else "contains"
        sentence = _register_mode_sentence(behaviour, steered[0])
        return f"`{facts.name}` {verb} {_article(noun)} {noun}: {sentence[0].lower()}{sentence[1:]}"
    paths = checked_data_paths(facts, behaviour)
    shifts = [path for path in paths if path.shift]
    if paths and not facts.counters:  # the noun and the path that makes it true, in one sentence
        path = (shifts or paths)[0]
        noun = f"{path.width}-bit shift register" if path.shift else "D flip-flop" if path.width == 1 else (
            f"{path.width}-bit register")
        verb = "is" if path.register in outputs else "contains"  # an edge detector is no flip-flop; it holds one
        return f"`{facts.name}` {verb} {_article(noun)} {noun}: {data_path_sentences(facts, behaviour, [path])[0]}"
    if facts.counters:
        counter = facts.counters[0]
        directions = {each.direction for each in facts.counters if each.signal == counter.signal}
        width = facts.widths.get(counter.signal)
        kind = f"{width}-bit " if width else ""
        kind += "up/down" if len(directions) > 1 else counter.direction
        return f"`{facts.name}` is {_article(kind)} {kind} counter `{counter.signal}`{clocked}."
    return f"`{facts.name}` is a sequential module{clocked}."


def checked_data_paths(facts: ModuleFacts, behaviour: Behaviour | None) -> list[DataPath]:
    """The netlist's data paths whose claim the facts verify (the source an input port of the right width)."""
    return [path for path in (behaviour.data_paths if behaviour is not None else ())
            if check(data_path_claim(path), Scope(facts, behaviour=behaviour))]


def data_path_sentences(facts: ModuleFacts, behaviour: Behaviour | None, paths: list[DataPath] | None = None,
                        ) -> list[str]:
    """What each register (of `paths`, else every checked one) loads on a clock edge: an input whole,
    or one bit shifted in."""
    out = []
    for path in checked_data_paths(facts, behaviour) if paths is None else paths:
        edge = f" {at}" if (at := _at_edge(behaviour, path.register)) else ""
        if path.shift is None:
            out.append(f"`{path.register}` takes the value of `{path.source}`{edge}.")
        else:
            end = 0 if path.shift == "left" else path.width - 1
            out.append(f"`{path.register}` shifts {path.shift} by one bit{edge}, taking `{path.source}` "
                       f"into bit {end}.")
    return out


def checked_register_modes(facts: ModuleFacts, behaviour: Behaviour | None) -> list[RegisterModes]:
    """The netlist's steered registers whose claim the facts verify."""
    return [modes for modes in (behaviour.register_modes if behaviour is not None else ())
            if check(register_mode_claim(modes), Scope(facts, behaviour=behaviour))]


def _at_edge(behaviour: Behaviour | None, register: str) -> str:
    """"at each rising edge of `clk`", the register's own clock; "" where the netlist does not say."""
    netlist = behaviour.netlist if behaviour is not None else None
    found = netlist.register(register) if netlist is not None else None
    return f"at each {_edge(found.clock, found.edge)}" if found is not None and found.clock else ""


def _register_mode_sentence(behaviour: Behaviour | None, modes: RegisterModes) -> str:
    edge = _at_edge(behaviour, modes.register) or "at each clock edge"
    return f"{edge[0].upper()}{edge[1:]}, `{modes.register}` {modes.description()}."


def register_mode_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """What each register steered by inputs does at its clock edge, condition by condition."""
    return [_register_mode_sentence(behaviour, modes) for modes in checked_register_modes(facts, behaviour)]


def flip_flop_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Each one-bit register that is a T, JK or SR flip-flop, with its characteristic table in words."""
    out = []
    for flip_flop in behaviour.flip_flops.values() if behaviour is not None else ():
        if not check(flip_flop_claim(flip_flop), Scope(facts, behaviour=behaviour)):
            continue
        register, inputs = flip_flop.register, flip_flop.inputs
        if flip_flop.kind == "T":
            out.append(f"`{register}` is a T flip-flop on `{inputs[0]}`: it toggles while `{inputs[0]}` is high and "
                       f"holds while `{inputs[0]}` is low.")
        elif flip_flop.kind == "JK":
            out.append(f"`{register}` is a JK flip-flop on `{inputs[0]}` and `{inputs[1]}`: both low hold it, "
                       f"`{inputs[0]}` alone sets it, `{inputs[1]}` alone clears it, and both high toggle it.")
        else:
            winner = inputs[0] if flip_flop.kind == "SR set wins" else inputs[1]
            out.append(f"`{register}` is an SR flip-flop on `{inputs[0]}` and `{inputs[1]}`: `{inputs[0]}` sets it, "
                       f"`{inputs[1]}` clears it, and `{winner}` wins when both are high.")
    return out


def _value_clause(values: list[ResetValue]) -> str:
    registers, value = [each.register for each in values], values[0].value
    return f"clears {names(registers)} to 0" if value == 0 else f"sets {names(registers)} to {value}"


def reset_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Each reset the netlist confirms, with its polarity, timing and the values it sets; "There is
    no reset." where no flip-flop of the netlist has one."""
    if facts.combinational:
        return []
    if check(Claim("no_reset"), Scope(facts, behaviour=behaviour)):
        return ["There is no reset."]
    values = behaviour.reset_values if behaviour is not None else ()
    out = []
    for reset in facts.resets:
        if behaviour is not None and not behaviour.confirms_reset(reset.signal):
            continue
        groups: dict[int, list[ResetValue]] = {}
        for value in values:
            if value.signal == reset.signal and value.active_high != reset.active_low:
                groups.setdefault(value.value, []).append(value)
        clauses = [_value_clause(group) for group in groups.values()]
        kind = reset_claim(reset.signal, reset.active_low, reset.asynchronous).value  # "active-low asynchronous"
        opening = f"It has an {kind} reset `{reset.signal}`"
        out.append(opening + (f", which {clauses[0]}." if clauses else "."))
        out += [f"The reset `{reset.signal}` {clause}." for clause in clauses[1:]]
    return out


def enable_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Registers that load only while a 1-bit input is at its level, grouped by that input."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for enable in behaviour.enables if behaviour is not None else ():
        if check(enable_claim(enable), Scope(facts, behaviour=behaviour)):
            groups.setdefault((enable.signal, enable.active_high), []).append(enable.register)
    out = []
    for (signal, active_high), registers in groups.items():
        level, other = ("high", "low") if active_high else ("low", "high")
        verb, rest = ("changes", "it holds its value") if len(registers) == 1 else ("change", "they hold their values")
        out.append(f"{names(registers)} {verb} only while `{signal}` is {level}; with `{signal}` {other} {rest}.")
    return out


def state_machine_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Each state machine's states, its changes of state with the inputs they wait for, and the
    outputs the state alone sets: the changes written from the netlist, each also shown by the
    text, each condition and output the netlist's."""
    scope, out, every_change = Scope(facts, behaviour=behaviour), [], named_changes(facts, behaviour)
    for register in dict.fromkeys(change.register for change in every_change):
        order = {name: index for index, name in enumerate(state_names(facts, register).values())}
        changes = sorted((change for change in every_change if change.register == register
                          and check(Claim("transition", (change.source, change.target)), scope)),
                         key=lambda change: (order[change.source], order[change.target]))
        states = list(dict.fromkeys(name for change in changes for name in (change.source, change.target)))
        if not changes or not all(check(Claim("state", (name,)), scope) for name in states):
            continue
        out.append(f"Its states: {names(states)}.")
        for source in dict.fromkeys(change.source for change in changes[:MAX_LISTED]):  # a sentence per state left
            clauses = []
            for change in (change for change in changes[:MAX_LISTED] if change.source == source):
                clause = f"from `{change.source}` to `{change.target}`"
                if change.condition and check(transition_when_claim(change), scope):
                    clause += " when " + " and ".join(f"`{name}` is {'high' if high else 'low'}"
                                                      for name, high in change.condition)
                clauses.append(clause)
            out.append(f"`{register}` goes {' or '.join(clauses)}.")
        for output in named_outputs(facts, behaviour):
            if output.register == register and check(state_output_claim(output), scope):
                level, other = ("high", "low") if output.level else ("low", "high")
                out.append(f"`{output.output}` is {level} in {names(output.states)} and {other} in every other state.")
    return out


def memory_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """How each memory is written and read, port by port, as far as the netlist's claims check."""
    out = []
    for memory in behaviour.memories if behaviour is not None else ():
        for port in memory.writes:
            if check(memory_write_claim(memory, port), Scope(facts, behaviour=behaviour)):
                level = f" while `{port.enable}` is {'high' if port.enable_high else 'low'}" if port.enable else ""
                out.append(f"A write stores `{port.data}` in `{memory.name}` at address `{port.address}` on each "
                           f"{_edge(port.clock, port.edge)}{level}.")
        for port in memory.reads:
            claim = memory_read_claim(memory, port)
            if not check(claim, Scope(facts, behaviour=behaviour)):
                continue
            if port.clock is None:
                out.append(f"Reads are asynchronous: `{port.output}` shows the word at address `{port.address}` at once.")
                continue
            collision = {"synchronous old": ", the old word during a write to it",
                         "synchronous new": ", the new word during a write to it"}.get(claim.value, "")
            out.append(f"Reads are synchronous: `{port.output}` shows the word at address `{port.address}` one "
                       f"clock cycle later{collision}.")
    return out


def count_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Each counter's range under the stimulus it was simulated with, that stimulus said in words."""
    if behaviour is None or behaviour.netlist is None or not behaviour.count_ranges:
        return []
    _, held = stimulus(facts, behaviour.netlist)
    low = [name for name, value in held.items() if value == 0]
    condition = f"With {names(low)} low, " if 0 < len(low) <= 3 else "With every other input low, " if low else ""
    return [condition + found.sentence() for found in behaviour.count_ranges.values()]


def flag_sentences(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """Each status flag: "`zero` is high when `count` is 0", a state by its name."""
    out = []
    for flag in behaviour.flags.values() if behaviour is not None else ():
        if not check(flag_claim(flag, facts), Scope(facts, behaviour=behaviour)):
            continue
        name = flag_state(flag, facts)
        value = f"`{name}`" if name else str(flag.value)
        condition = f" and `{flag.input}` is {'high' if flag.level else 'low'}" if flag.input else ""
        out.append(f"`{flag.output}` is high {'when' if flag.equal else 'unless'} `{flag.register}` is {value}"
                   f"{condition}.")
    return out


def spec_opening(facts: ModuleFacts, behaviour: Behaviour | None) -> list[str]:
    """What the module is (a combinational module's functions first), what its registers load and
    the modes inputs steer them between, its state machines' changes of state, how its memories
    are written and read, its resets, enables and counter ranges: the sentences a spec opens with,
    each one checkable."""
    overview, functions = what_it_is(facts, behaviour), function_sentences(behaviour)
    opening = [*functions, overview] if facts.combinational else [overview, *functions]
    opening += [sentence for sentence in data_path_sentences(facts, behaviour) if sentence not in overview]
    opening += [sentence for sentence in register_mode_sentences(facts, behaviour)
                if sentence[1:] not in overview]  # the overview may open with it, its first letter lowered
    opening += flip_flop_sentences(facts, behaviour)
    return [*opening, *(sentence for write in (state_machine_sentences, memory_sentences, reset_sentences,
                                               enable_sentences, count_sentences, flag_sentences)
                        for sentence in write(facts, behaviour))]
