"""Named synthesis recipes: the Yosys/ABC knobs an optimisation policy may turn besides the RTL.

A design state of the optimiser is its RTL plus one of these recipes; the reference is
always measured under the flow's own recipe (`flow`), so a recipe that pays shows up in the
PPA ratio like any RTL rewrite. Knobs rarely pay (with Nangate45, `abc -D` targets gave
the plain `abc` result on RTLLM's adders and multipliers and `abc -fast` was 1.6-3.8 x
worse), which is exactly what a learning policy should find out and stop spending samples on.
"""

from __future__ import annotations

from dataclasses import replace

from hdlrl.eda.synth.yosys import SynthOptions

DEFAULT_RECIPE = "flow"
# name -> the SynthOptions fields it sets on top of the flow's synthesis options
RECIPES: dict[str, dict] = {
    DEFAULT_RECIPE: {},
    "abc_fast": {"abc_script": "-fast"},  # ABC's quick mapping script: less effort
    "abc_delay_target": {"abc_script": "-D 100"},  # map for a 100 ps delay target (area recovery after)
    "hierarchical": {"flatten": False},  # keep the module hierarchy: no cross-boundary optimisation
}


def recipe_options(base: SynthOptions, recipe: str) -> SynthOptions:
    """The flow's synthesis options with `recipe`'s knobs set."""
    if recipe not in RECIPES:
        raise ValueError(f"unknown synthesis recipe {recipe!r} (known: {', '.join(RECIPES)})")
    return replace(base, **RECIPES[recipe])
