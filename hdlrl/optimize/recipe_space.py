"""The synthesis recipe sequences the embedded policy may propose, and the features it sees of each.

Every recipe with at most one word-level Yosys pass, a sequence of up to `SEQUENCE_LENGTH` of
ABC's optimisations that ABC can run (no rewriting on `dch`'s choice nodes: 985 of the 1,111)
and one of its mappers (`hdlrl.eda.synth.yosys`): 7 x 985 x 4 = 27,580 recipes, as DRiLLS and
ABC-RL search over. `neighbours` are the recipes one edit away from a state's own, so a search can
climb in recipe space as it climbs in RTL. A recipe's features are what it is made of (how
often each command occurs, which mapper and pass it uses, how long it is), so what a run learns
about one recipe carries to every recipe that shares its parts.
"""

from __future__ import annotations

import itertools
from functools import cache

import torch

from hdlrl.eda.synth.recipes import sequence_recipe
from hdlrl.eda.synth.yosys import ABC_COMMANDS, ABC_MAPPERS, COARSE_PASSES, choices_conflict

SEQUENCE_LENGTH = 3
FEATURE_NAMES = (*(f"abc:{name}" for name in ABC_COMMANDS), *(f"map:{name}" for name in ABC_MAPPERS),
                 *(f"coarse:{name}" for name in COARSE_PASSES), "length")


@cache
def _sequences() -> tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...]:
    """(coarse passes, ABC commands, mapper) of every recipe, in a fixed order."""
    return tuple((coarse, commands, mapper)
                 for coarse in [(), *((name,) for name in COARSE_PASSES)]
                 for length in range(SEQUENCE_LENGTH + 1)
                 for commands in itertools.product(ABC_COMMANDS, repeat=length)
                 if not choices_conflict(commands)
                 for mapper in ABC_MAPPERS)


@cache
def sequence_recipes() -> tuple[str, ...]:
    """The text of every recipe (`hdlrl.eda.synth.recipes`), indexed as `sequence_features`' rows."""
    return tuple(sequence_recipe(coarse, commands, mapper) for coarse, commands, mapper in _sequences())


@cache
def sequence_features() -> torch.Tensor:
    """One row per recipe: command counts, one-hot mapper and pass, length / SEQUENCE_LENGTH."""
    column = {name: index for index, name in enumerate(FEATURE_NAMES)}
    rows = torch.zeros(len(_sequences()), len(FEATURE_NAMES))
    for row, (coarse, commands, mapper) in enumerate(_sequences()):
        for command in commands:
            rows[row, column[f"abc:{command}"]] += 1
        rows[row, column[f"map:{mapper}"]] = 1
        for name in coarse:
            rows[row, column[f"coarse:{name}"]] = 1
        rows[row, column["length"]] = len(commands) / SEQUENCE_LENGTH
    return rows


@cache
def _index() -> dict[str, int]:
    """Each recipe's position in `sequence_recipes()`, by its text."""
    return {recipe: index for index, recipe in enumerate(sequence_recipes())}


@cache
def neighbours(recipe: str) -> tuple[int, ...]:
    """The recipes one edit away from `recipe` (another pass or none, another mapper, one ABC
    command removed, replaced or inserted), as indices of `sequence_recipes()`; none when
    `recipe` is not one of them (the flow's default, a named recipe)."""
    if recipe not in _index():
        return ()
    coarse, commands, mapper = _sequences()[_index()[recipe]]
    edits = [(other, commands, mapper) for other in [(), *((name,) for name in COARSE_PASSES)] if other != coarse]
    edits += [(coarse, commands, other) for other in ABC_MAPPERS if other != mapper]
    for position in range(len(commands)):
        edits.append((coarse, commands[:position] + commands[position + 1:], mapper))
        edits += [(coarse, commands[:position] + (other,) + commands[position + 1:], mapper)
                  for other in ABC_COMMANDS if other != commands[position]]
    if len(commands) < SEQUENCE_LENGTH:
        edits += [(coarse, commands[:position] + (other,) + commands[position:], mapper)
                  for position in range(len(commands) + 1) for other in ABC_COMMANDS]
    found = (_index().get(sequence_recipe(*edit)) for edit in edits)
    return tuple(sorted({index for index in found if index is not None}))
