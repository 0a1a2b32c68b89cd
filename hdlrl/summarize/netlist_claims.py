"""The claims written from Yosys's netlist (`hdlrl.summarize.behaviour`), and whether each holds.

Each kind has one constructor, which the writer (`hdlrl.summarize.spec_sentences`), the rewards
and the checker share, so that a sentence, the fact it states and its check cannot drift apart.
A netlist claim holds only where the netlist was read and lists it; the simulations
(`*_evidence.py`) then check it again from another source.
"""

from __future__ import annotations

import re

from hdlrl.hdl.facts import ModuleFacts
from hdlrl.hdl.flip_flop_kind import FlipFlop
from hdlrl.hdl.memory_ports import MemoryPorts, ReadPort, WritePort
from hdlrl.hdl.status_flag import StatusFlag
from hdlrl.hdl.register_modes import RegisterModes
from hdlrl.summarize.behaviour import Behaviour, DataPath, RegisterEnable, function_claim, templated
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.counting import claim_value
from hdlrl.summarize.state_changes import NamedChange, StateOutput, named_changes, named_outputs, state_names

NETLIST_KINDS = ("function", "reset_value", "no_reset", "latch", "enable", "count_range", "data_path", "flip_flop",
                 "flag", "memory_write", "memory_read", "transition_when", "state_output", "register_mode")
LISTED_KINDS = ("memory_write", "memory_read", "transition_when", "state_output")  # see `listed_claims`
_SIMPLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def enable_claim(enable: RegisterEnable) -> Claim:
    return Claim("enable", (enable.register, enable.signal), "high" if enable.active_high else "low")


def transition_when_claim(change: NamedChange) -> Claim:
    """"from `A` to `B` when `x` is high and `y` is low": the states, then the inputs; their levels in the value."""
    return Claim("transition_when", (change.source, change.target, *(name for name, _ in change.condition)),
                 " ".join("high" if high else "low" for _, high in change.condition))


def state_output_claim(output: StateOutput) -> Claim:
    return Claim("state_output", (output.output, *output.states), "high" if output.level else "low")


def memory_write_claim(memory: MemoryPorts, port: WritePort) -> Claim:
    """The claim of one write port: "`wdata` in `mem` at `addr` on each rising edge of `clk` while `we` is high"."""
    level = ("high" if port.enable_high else "low") if port.enable else "always"
    return Claim("memory_write", (memory.name, port.address, port.data, port.clock,
                                  *([port.enable] if port.enable else [])), f"{port.edge} {level}")


def memory_read_claim(memory: MemoryPorts, port: ReadPort) -> Claim:
    """The claim of one read port: asynchronous, or synchronous with the old or new word on a
    write to it (said only where the memory has writes)."""
    timing = "asynchronous" if port.clock is None else "synchronous"
    if port.clock is not None and memory.writes:
        timing += " new" if port.new_on_write else " old"
    return Claim("memory_read", (port.output, port.address), timing)


def register_mode_claim(modes: RegisterModes) -> Claim:
    """"`q` takes `data` when `load` is high, else ...": the register, then the names its description
    gives in order; the description with each name as "`{}`" (`templated`)."""
    text, names = templated(modes.description())
    return Claim("register_mode", (modes.register, *names), text)


def data_path_claim(path: DataPath) -> Claim:
    return Claim("data_path", (path.register, path.source), path.shift or "load")


def flip_flop_claim(flip_flop: FlipFlop) -> Claim:
    return Claim("flip_flop", (flip_flop.register, *flip_flop.inputs), flip_flop.kind)


def flag_state(flag: StatusFlag, facts: ModuleFacts) -> str | None:
    """The name of the state whose encoding the flag's register value is, where it has one."""
    return state_names(facts, flag.register).get(flag.value)


def flag_claim(flag: StatusFlag, facts: ModuleFacts) -> Claim:
    """"`tc` is high when `count` is 9 and `en` is high": a state register's value by its state's name."""
    value = flag_state(flag, facts) or str(flag.value)
    level = (" high" if flag.level else " low") if flag.input else ""
    return Claim("flag", (flag.output, flag.register, *filter(None, [flag.input])),
                 f"{'when' if flag.equal else 'unless'} {value}{level}")


def listed_claims(kind: str, facts: ModuleFacts, behaviour: Behaviour) -> list[Claim]:
    """Every true claim of one of `LISTED_KINDS`: the netlist lists them one by one (each memory
    port, each change of state with a condition, each output of the state alone)."""
    if kind == "memory_write":
        return [memory_write_claim(memory, port) for memory in behaviour.memories for port in memory.writes]
    if kind == "memory_read":
        return [memory_read_claim(memory, port) for memory in behaviour.memories for port in memory.reads]
    if kind == "transition_when":
        return [transition_when_claim(change) for change in named_changes(facts, behaviour) if change.condition]
    return [state_output_claim(output) for output in named_outputs(facts, behaviour)]


def check_netlist_claim(claim: Claim, facts: ModuleFacts, behaviour: Behaviour | None) -> bool:
    """A claim about behaviour holds only where the netlist was read and says so ("no reset": no
    flip-flop has one, whatever the text reads as a reset)."""
    if behaviour is None or behaviour.netlist is None or not all(map(_SIMPLE_NAME.fullmatch, claim.names)):
        return False  # a name like `taps[0]` is no identifier the summary's claims can carry
    if claim.kind == "function":
        function = behaviour.functions.get(claim.names[0])
        return function is not None and function_claim(function) == (claim.value, claim.names[1:])
    if claim.kind == "enable":  # on a 1-bit input that resets nothing
        signal = claim.names[1]
        return any(port.name == signal and port.direction == "input" and port.width == 1 for port in facts.ports) \
            and all(reset.signal != signal for reset in behaviour.netlist.resets) \
            and claim in map(enable_claim, behaviour.enables)
    if claim.kind == "data_path":  # from an input port: all of it loaded, or one bit shifted in, enabled by inputs
        register, source = claim.names
        bits = {port.name for port in facts.ports if port.direction == "input" and port.width == 1}
        if any(enable.signal not in bits for each in behaviour.netlist.registers if each.name == register
               for enable in each.enables):
            return False
        width = 1 if claim.value != "load" else next((path.width for path in behaviour.data_paths
                                                      if path.register == register), None)
        return any(port.name == source and port.direction == "input" and port.width == width for port in facts.ports) \
            and claim in map(data_path_claim, behaviour.data_paths)
    if claim.kind == "flip_flop":  # its inputs one-bit input ports
        return all(any(port.name == name and port.direction == "input" and port.width == 1 for port in facts.ports)
                   for name in claim.names[1:]) and claim in map(flip_flop_claim, behaviour.flip_flops.values())
    if claim.kind == "flag":
        return claim in (flag_claim(flag, facts) for flag in behaviour.flags.values())
    if claim.kind == "register_mode":
        return claim in map(register_mode_claim, behaviour.register_modes)
    if claim.kind in LISTED_KINDS:
        return claim in listed_claims(claim.kind, facts, behaviour)
    if claim.kind == "count_range":
        found = behaviour.count_ranges.get(claim.names[0])
        return found is not None and claim_value(found) == claim.value
    if claim.kind == "latch":
        return any(latch.name == claim.names[0] for latch in behaviour.netlist.latches)
    if claim.kind == "reset_value":  # by a reset the text shows too
        return any(reset.signal == claim.names[0] for reset in facts.resets) and any(
            (value.signal, value.register, str(value.value)) == (*claim.names, claim.value)
            for value in behaviour.reset_values)
    return behaviour.stores and not any(register.resets for register in behaviour.netlist.registers)
