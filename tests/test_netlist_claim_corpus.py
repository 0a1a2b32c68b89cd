"""The seeded corpus of netlist claims (issue 22): on every project module, each behaviour claim a
summary should state (a function, a data path, a reset value, an enable, a counter range, a
memory's write and read ports, the inputs a change of state waits for, an output of the state
alone, a status flag) is
verified by the facts and by simulation, and each seeded false variant of it is flagged."""

from __future__ import annotations

from pathlib import Path

from conftest import DESIGNS_DIR
from hdlrl.hdl.facts import module_facts
from hdlrl.hdl.sources import read_source
from hdlrl.summarize.behaviour import module_behaviour
from hdlrl.summarize.claim import Claim
from hdlrl.summarize.claims import Scope, check
from hdlrl.summarize.count_evidence import CountEvidence
from hdlrl.summarize.data_evidence import DataPathEvidence
from hdlrl.summarize.enable_evidence import EnableEvidence
from hdlrl.summarize.fsm_evidence import StateChangeEvidence
from hdlrl.summarize.flag_evidence import FlagEvidence
from hdlrl.summarize.flip_flop_evidence import FlipFlopEvidence
from hdlrl.summarize.function_evidence import FunctionEvidence
from hdlrl.summarize.memory_evidence import MemoryEvidence
from hdlrl.summarize.reset_evidence import ResetEvidence
from hdlrl.summarize.rewards import salient_behaviour_facts

_OTHER_FUNCTION = {"`{}` > `{}`": "`{}` < `{}`", "`{}` < `{}`": "`{}` > `{}`", "multiplexer": "decoder",
                   "decoder": "multiplexer", "adder": "subtractor", "subtractor": "adder", "encoder": "decoder"}


def _seeded(claim: Claim, widths: dict[str, int | None]) -> list[Claim]:
    """False variants of a true claim: another value, level, direction or function."""
    if claim.kind == "function":
        text = next((claim.value.replace(old, new) for old, new in _OTHER_FUNCTION.items() if old in claim.value), None)
        return [Claim("function", claim.names, text)] if text else []
    if claim.kind == "reset_value":
        width = widths.get(claim.names[1]) or 1
        return [Claim("reset_value", claim.names, str((int(claim.value) + 1) % (1 << width)))]
    if claim.kind == "enable":
        return [Claim("enable", claim.names, "low" if claim.value == "high" else "high")]
    if claim.kind == "count_range" and claim.value.startswith("cycle "):  # a cycle one state shorter or longer
        length = int(claim.value.split()[1])
        return [Claim("count_range", claim.names, f"cycle {length + step}") for step in (-1, 1)]
    if claim.kind == "flip_flop":  # its inputs the other way round, and another kind
        other = {"T": "JK", "JK": "SR set wins", "SR set wins": "SR reset wins", "SR reset wins": "JK"}[claim.value]
        register, *inputs = claim.names
        swapped = [Claim("flip_flop", (register, *inputs[::-1]), claim.value)] if len(inputs) > 1 else []
        return [*swapped, Claim("flip_flop", claim.names, other)]
    if claim.kind == "flag":  # another value; the other level; the input at the other level
        when, value, *level = claim.value.split()
        variants = [f"{when} {int(value) + 1}"] if value.isdigit() else []
        variants.append(f"{'unless' if when == 'when' else 'when'} {value} {' '.join(level)}".strip())
        if level:
            variants.append(f"{when} {value} {'low' if level == ['high'] else 'high'}")
        return [Claim("flag", claim.names, variant) for variant in variants]
    if claim.kind == "count_range":
        direction, start, end, after = claim.value.split()
        return [Claim("count_range", claim.names, f"{direction} {start} {int(end) - 1} {after}"),
                Claim("count_range", claim.names,
                      f"{direction} {start} {end} {start if after == 'stays' else 'stays'}")]
    if claim.kind == "data_path":
        return [Claim("data_path", claim.names, other) for other in ("load", "left", "right") if other != claim.value]
    if claim.kind == "memory_write":  # the other enable level; address and data swapped
        memory, address, data, *rest = claim.names
        edge, level = claim.value.split()
        other = [Claim(claim.kind, claim.names, f"{edge} {'low' if level == 'high' else 'high'}")] if rest[1:] else []
        return [*other, Claim(claim.kind, (memory, data, address, *rest), claim.value)]
    if claim.kind == "transition_when":  # each input at the other level
        levels = claim.value.split()
        return [Claim(claim.kind, claim.names, " ".join(("low" if level == "high" else "high") if index == flipped
                                                         else level for index, level in enumerate(levels)))
                for flipped in range(len(levels))]
    if claim.kind == "state_output":  # the other level in the same states
        return [Claim(claim.kind, claim.names, "low" if claim.value == "high" else "high")]
    if claim.kind == "memory_read":  # another timing
        timings = ("asynchronous", "synchronous old", "synchronous new") if claim.value != "synchronous" else (
            "asynchronous",)
        return [Claim(claim.kind, claim.names, timing) for timing in timings if timing != claim.value]
    return []


def test_every_netlist_claim_is_verified_twice_and_every_seeded_variant_flagged() -> None:
    true_claims, unverified, seeded, missed = 0, [], 0, []
    for path in sorted([*DESIGNS_DIR.glob("*/rtl/*.v"), *DESIGNS_DIR.glob("hard_coverage/*/rtl/*.v")]):
        for module in read_source(Path(path))[0]:
            facts = module_facts(module)
            if not facts.ports:
                continue
            behaviour = module_behaviour(module, facts)
            if behaviour.netlist is None:
                continue
            resets = ResetEvidence(module, facts)
            values = {(value.signal, value.register): value for value in behaviour.reset_values}
            judges = {"function": FunctionEvidence(module, facts, behaviour),
                      "enable": EnableEvidence(module, facts, behaviour),
                      "count_range": CountEvidence(module, facts, behaviour.netlist),
                      "data_path": DataPathEvidence(module, facts, behaviour),
                      "flip_flop": FlipFlopEvidence(module, facts, behaviour),
                      "flag": FlagEvidence(module, facts, behaviour),
                      "memory_write": (memories := MemoryEvidence(module, facts, behaviour)), "memory_read": memories,
                      "transition_when": (changes := StateChangeEvidence(module, facts, behaviour)),
                      "state_output": changes,
                      "reset_value": lambda claim: resets.value_evidence(values[claim.names])}

            def verified(claim: Claim) -> bool:
                judge = judges.get(claim.kind)
                try:
                    simulated = judge(claim).status == "verified" if judge else True
                except KeyError:  # a seeded reset value of a register the netlist does not reset
                    simulated = False
                return check(claim, Scope(facts, behaviour=behaviour)) and simulated

            for claim in salient_behaviour_facts(facts, behaviour):
                true_claims += 1
                if not verified(claim):
                    unverified.append(f"{module.name}: {claim}")
                for variant in _seeded(claim, facts.widths):
                    seeded += 1
                    if verified(variant):
                        missed.append(f"{module.name}: {variant}")
    assert true_claims >= 40 and seeded >= 30, (true_claims, seeded)
    assert missed == [], missed
    assert len(unverified) <= 0.1 * true_claims, unverified
