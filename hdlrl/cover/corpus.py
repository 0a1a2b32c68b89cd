"""The corpus (the programs that added coverage or kills) and the final stimulus set drawn from
it: the corpus less its redundant programs, with all of its coverage.

Programs are first clustered by behaviour: two with the same coverage and kill vectors do
the same for the testbench, so only the shortest of each cluster stays. Greedy set cover
then picks, until everything the corpus reached is reached, the program that adds the most
items (coverage points, functional bins and killed mutants; ties to the shorter program),
the classic ln(n)-approximation of the smallest cover.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Entry:
    """A program of the corpus and what it reached."""

    program: str  # JSON
    seed: int
    origin: str  # the policy's action
    items: list[str]  # code point ids and functional bin ids it hit
    killed: list[int]  # mutant indices it killed


def behaviour(entry: Entry) -> frozenset[str]:
    """What a program reached, as one set: its coverage items and `mutant|N` per kill."""
    return frozenset(entry.items) | {f"mutant|{index}" for index in entry.killed}


def cluster_representatives(corpus: list[Entry], cycles: dict[str, int]) -> list[Entry]:
    """The shortest program (`cycles[program]`) of each behaviour cluster, in corpus order."""
    best: dict[frozenset[str], Entry] = {}
    for entry in corpus:
        key = behaviour(entry)
        if key not in best or cycles[entry.program] < cycles[best[key].program]:
            best[key] = entry
    kept = set(map(id, best.values()))
    return [entry for entry in corpus if id(entry) in kept]


def greedy_cover(corpus: list[Entry], cycles: dict[str, int]) -> list[Entry]:
    """A small subset of `corpus` that reaches every item the whole corpus reaches."""
    candidates = cluster_representatives(corpus, cycles)
    remaining = set().union(*(behaviour(entry) for entry in candidates)) if candidates else set()
    chosen = []
    while remaining:
        entry = max(candidates, key=lambda entry: (len(behaviour(entry) & remaining), -cycles[entry.program]))
        chosen.append(entry)
        remaining -= behaviour(entry)
        candidates.remove(entry)
    return chosen
