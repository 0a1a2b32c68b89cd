"""Synthesis recipes: the Yosys/ABC knobs an optimisation policy may turn besides the RTL.

A design state of the optimiser is its RTL plus a recipe; the reference is always measured
under the flow's own recipe (`flow`), so a recipe that pays shows up in the PPA ratio like any
RTL rewrite. A recipe is written as text, so it can be named in a run's summary and given back
to `hdlrl eval --recipe`:

- a name from `RECIPES`: `flow`, `abc_fast`, `abc_delay_target`, `hierarchical`;
- a sequence: space-separated fields `coarse=PASS,...`, `abc=COMMAND,...`, `map=MAPPER` and
  `flatten=no`, from the vocabularies of `hdlrl.eda.synth.yosys`, for example
  `coarse=share_aggressive abc=balance,rewrite_z,choices map=amap`. `abc=` needs `map=`, and
  rewrite, refactor and resub may not follow `choices` unless balance, dc2 or ifraig comes between.

Knobs rarely pay alone (with Nangate45, `abc -D` targets gave the plain `abc` result on
RTLLM's adders and multipliers and `abc -fast` was 1.6-3.8 x worse), which is what a learning
policy should find out and stop spending samples on.
"""

from __future__ import annotations

from dataclasses import replace

from hdlrl.eda.synth.yosys import ABC_COMMANDS, ABC_MAPPERS, COARSE_PASSES, SynthOptions, choices_conflict

DEFAULT_RECIPE = "flow"
# name -> the SynthOptions fields it sets on top of the flow's synthesis options
RECIPES: dict[str, dict] = {
    DEFAULT_RECIPE: {},
    "abc_fast": {"abc_script": "-fast"},  # ABC's quick mapping script: less effort
    "abc_delay_target": {"abc_script": "-D 100"},  # map for a 100 ps delay target (area recovery after)
    "hierarchical": {"flatten": False},  # keep the module hierarchy: no cross-boundary optimisation
}
# a sequence recipe's field -> (the SynthOptions field it sets, its vocabulary, whether it takes a list)
_FIELDS = {"coarse": ("coarse_passes", COARSE_PASSES, True), "abc": ("abc_commands", ABC_COMMANDS, True),
           "map": ("abc_mapper", ABC_MAPPERS, False), "flatten": ("flatten", {"no": False}, False)}


def sequence_recipe(coarse_passes: tuple[str, ...] = (), abc_commands: tuple[str, ...] = (),
                    abc_mapper: str | None = None, flatten: bool = True) -> str:
    """The text of a sequence recipe, fields in one order, so one recipe has one name."""
    fields = [f"coarse={','.join(coarse_passes)}" if coarse_passes else "",
              f"abc={','.join(abc_commands)}" if abc_commands else "",
              f"map={abc_mapper}" if abc_mapper else "", "" if flatten else "flatten=no"]
    return " ".join(filter(None, fields)) or DEFAULT_RECIPE


def recipe_fields(recipe: str) -> dict:
    """The SynthOptions fields `recipe` sets; ValueError naming the part that is not a recipe."""
    if recipe in RECIPES:
        return RECIPES[recipe]
    fields = {}
    for part in recipe.split():
        key, _, value = part.partition("=")
        if key not in _FIELDS or _FIELDS[key][0] in fields:
            raise ValueError(f"{part!r} in synthesis recipe {recipe!r}: expected a name ({', '.join(RECIPES)}) "
                             f"or the fields {', '.join(f'{name}=' for name in _FIELDS)}, each once")
        attribute, vocabulary, is_list = _FIELDS[key]
        values = value.split(",")
        if not all(item in vocabulary for item in values) or (len(values) > 1 and not is_list):
            raise ValueError(f"{part!r} in synthesis recipe {recipe!r}: {key}= takes "
                             f"{'a list of' if is_list else 'one of'} {', '.join(vocabulary)}")
        fields[attribute] = tuple(values) if is_list else vocabulary[value] if key == "flatten" else value
    if not fields:
        raise ValueError(f"empty synthesis recipe {recipe!r}")
    if "abc_commands" in fields and "abc_mapper" not in fields:
        raise ValueError(f"synthesis recipe {recipe!r}: abc= needs map= to end the sequence")
    misplaced = choices_conflict(fields.get("abc_commands", ()))
    if misplaced:
        raise ValueError(f"synthesis recipe {recipe!r}: {misplaced} cannot follow choices "
                         "without balance, dc2 or ifraig between (ABC writes no network)")
    return fields


def recipe_options(base: SynthOptions, recipe: str) -> SynthOptions:
    """The flow's synthesis options with `recipe`'s knobs set."""
    return replace(base, **recipe_fields(recipe))
