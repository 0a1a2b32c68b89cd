"""The embedded policy: a factored softmax over architecture rewrites and synthesis recipes, no weights.

Its concrete actions, grouped in kinds:
- each rule of `hdlrl.hdl.rewrites` (adder and multiplier architectures, shared arithmetic,
  width trimming, mux restructuring, FSM encodings) is a kind; its actions are its options
  (`prefix_adder:kogge_stone`, `state_encoding:one_hot`) at one of their sites in the state's
  RTL or at all of them at once;
- the named synthesis recipes of `hdlrl.eda.synth.recipes` (`synthesis:hierarchical`) are one kind;
- the 27,580 recipe sequences of `hdlrl.optimize.recipe_space` (`synthesis:sequence`) are
  another: Yosys passes, ABC optimisations and a mapper, measured on the state's RTL;
- the sequences one edit away from the state's own recipe (`synthesis:neighbour`) are a third,
  so that the pool climbs in recipe space from a recipe that paid.

Which action pays depends on the design, so `hdlrl.policy.factored_softmax` picks a kind from
the design's features (counts of operators, declarations and decision points, how many sites
each option has, and the state's area, delay and power against the reference's) and an action
of that kind from the action's own features (which option or recipe it is, the recipe's
commands, whether it applies everywhere). At the start a kind's share grows with the logarithm
of its number of actions, so a rule with nine options is hardly likelier than one with one,
and the tens of thousands of recipes do not drown the rules. It learns at test time by the
same objective as an LLM policy: advantage-weighted log-likelihood with a KL penalty to the
initial policy, that prior over the kinds and then uniform within each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import torch

from hdlrl.eda.synth.recipes import RECIPES
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.rewrites import (RULES, RewriteSite, applicable_rewrites, apply_everywhere, apply_rewrite,
                                variant_name)
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from hdlrl.optimize.prompt import DesignState
from hdlrl.optimize.recipe_space import FEATURE_NAMES, neighbours, sequence_features, sequence_recipes
from hdlrl.policy.factored_softmax import ActionTable, Decision, FactoredSoftmax
from hdlrl.ttt.pool import source_hash
from hdlrl.ttt.protocol import Sample, UpdateStats

STATE_FILE = "rewrite_policy.pt"
RECIPE_ACTION = "synthesis:"  # the actions that measure the state's RTL under another synthesis recipe
SEQUENCE_ACTION = RECIPE_ACTION + "sequence"  # the kind of every recipe of `recipe_space`
NEIGHBOUR_ACTION = RECIPE_ACTION + "neighbour"  # the kind of the recipes one edit from the state's
SEQUENCE_KINDS = (NEIGHBOUR_ACTION, SEQUENCE_ACTION)  # the kinds whose `choice` indexes `sequence_recipes()`
EVERYWHERE = -1  # the placement "every site of the action at once"
# Token kinds whose counts describe a design to the policy: arithmetic, selection, state.
_COUNTED = ("+", "-", "*", "<<", ">>", "?", "==", "<", ">", "&", "|", "^", "case", "if", "for", "posedge",
            "always", "assign", "reg", "parameter", "localparam")
_PPA_FIELDS = ("area_um2", "delay_ns", "power_mw")


@dataclass(frozen=True)
class Placement:
    """One concrete action: a rule option at one site or at all of them, a named recipe, or a
    recipe sequence (`choice` is then its index in `recipe_space.sequence_recipes()`), any or
    one edit from the state's."""

    action: str
    choice: int  # the site's index among the action's sites, EVERYWHERE, or the sequence's index
    words: str  # what it does, as a language model is shown it


def _in_words(action: str, site: RewriteSite | None) -> str:
    if site is None:
        recipe = action.removeprefix(RECIPE_ACTION)
        knobs = ", ".join(f"{name}={value!r}" for name, value in RECIPES[recipe].items()) or "the flow's options"
        return f"synthesis recipe {recipe} ({knobs})"
    return f"{action} at line {site.line}: {site.description}"


def design_features(sources: dict[str, str], site_counts: list[int], ppa: dict | None,
                    reference_ppa: dict | None) -> list[float]:
    """ln(1 + count) of each counted token and of each option's actions, scaled to sum to 1 (so
    one Adam step moves a kind's logit by about the learning rate, whatever the design's size),
    ln(state / reference) of area, delay and power (0 when not measured), and a constant 1."""
    counts = dict.fromkeys(_COUNTED, 0)
    for text in sources.values():
        for token in tokenize(text):
            if token.text in counts:
                counts[token.text] += 1
    ratios = [math.log(ppa[name] / reference_ppa[name]) if ppa and reference_ppa and ppa.get(name)
              and reference_ppa.get(name) else 0.0 for name in _PPA_FIELDS]
    logarithms = [math.log1p(value) for value in [*counts.values(), *site_counts]]
    total = sum(logarithms) or 1.0
    return [value / total for value in logarithms] + ratios + [1.0]


def _sequence_placement(kind: str, choice: int) -> Placement:
    return Placement(kind, choice, f"synthesis recipe {sequence_recipes()[choice]}")


class Menu(Sequence):
    """A state's concrete actions, in the order of its `ActionTable`: the rewrite placements and
    named recipes, the recipe sequences one edit from the state's, then every recipe sequence
    (made on demand: there are tens of thousands)."""

    def __init__(self, explicit: list[Placement], neighbours: Sequence[int], sequences: Sequence[int]):
        self.explicit, self.neighbours, self.sequences = explicit, neighbours, sequences

    def __len__(self) -> int:
        return len(self.explicit) + len(self.neighbours) + len(self.sequences)

    def __getitem__(self, index: int) -> Placement:
        if index < len(self.explicit):
            return self.explicit[index]
        index -= len(self.explicit)
        if index < len(self.neighbours):
            return _sequence_placement(NEIGHBOUR_ACTION, self.neighbours[index])
        return _sequence_placement(SEQUENCE_ACTION, self.sequences[index - len(self.neighbours)])

    def position_of(self, action: str, choice: int) -> int | None:
        """The position of the recipe sequence `choice` of kind `action`, None when not offered."""
        if action == NEIGHBOUR_ACTION:
            return len(self.explicit) + self.neighbours.index(choice) if choice in self.neighbours else None
        if choice in self.sequences:
            return len(self.explicit) + len(self.neighbours) + self.sequences.index(choice)
        return None


@cache
def _short_sequences() -> tuple[int, ...]:
    """The recipe sequences a language model's menu lists: a mapper alone (it cannot read 27,580 lines)."""
    return tuple(index for index, recipe in enumerate(sequence_recipes())
                 if recipe.startswith("map=") and " " not in recipe)


class RewritePolicy:
    name = "rewrite"
    trainable = True

    def __init__(self, learning_rate: float = 0.2, action_features: bool = True, state_features: bool = True):
        """`action_features=False` (an ablation) keeps every action of a kind equally likely for
        good; `state_features=False` picks kinds by a learned bias alone, blind to the design."""
        self.action_features, self.state_features = action_features, state_features
        # an action: a rule's option, a named recipe, or the recipe sequences (what `Placement.action` holds)
        self.actions = [variant_name(name, option) for name, rule in RULES.items() for option in rule.options]
        self.actions += [RECIPE_ACTION + recipe for recipe in RECIPES] + list(SEQUENCE_KINDS)
        # a kind, what pi(k | x) picks: a rule (its options are parameters), the named recipes, the sequences
        self.kinds = [*RULES, RECIPE_ACTION.rstrip(":"), *SEQUENCE_KINDS]
        self.softmax = FactoredSoftmax(self.kinds, len(_COUNTED) + len(self.actions) + len(_PPA_FIELDS) + 1,
                                       1 + len(self.actions) + len(FEATURE_NAMES), learning_rate)
        self._analysed: dict[str, tuple[list[float], dict[str, list[RewriteSite | None]]]] = {}
        self._sequence_block: torch.Tensor | None = None

    def kind_of(self, action: str) -> str:
        """`prefix_adder:kogge_stone` -> `prefix_adder`; `synthesis:abc_fast` -> `synthesis`."""
        return action if action in SEQUENCE_KINDS else action.split(":")[0]

    def _parameters(self, action: str, everywhere: bool) -> list[float]:
        """psi of an explicit action: whether it applies everywhere, and which option it is."""
        row = [0.0] * (1 + len(self.actions) + len(FEATURE_NAMES))
        row[0], row[1 + self.actions.index(action)] = float(everywhere), 1.0
        return row

    def _sequence_parameters(self, kind: str, choices: Sequence[int]) -> torch.Tensor:
        """psi of the recipe sequences `choices` of `kind`: the kind's indicator, then the recipe's
        features (the block of every sequence is built once)."""
        if self._sequence_block is None:
            features = sequence_features()
            indicator = torch.zeros(len(features), 1 + len(self.actions))
            indicator[:, 1 + self.actions.index(SEQUENCE_ACTION)] = 1.0
            self._sequence_block = torch.cat([indicator, features], dim=1).double()
        if kind == SEQUENCE_ACTION:
            return self._sequence_block if choices == range(len(self._sequence_block)) else \
                self._sequence_block[list(choices)]
        block = self._sequence_block[list(choices)]  # a copy, its indicator moved to `kind`
        block[:, 1 + self.actions.index(SEQUENCE_ACTION)] = 0.0
        block[:, 1 + self.actions.index(kind)] = 1.0
        return block

    def _sites(self, state: DesignState) -> dict[str, list[RewriteSite | None]]:
        """Each rule option's sites in the state's RTL; a named recipe other than the state's has one (None)."""
        parsed = {file: parse_verilog(text, Path(file)) for file, text in state.sources.items()}
        by_action: dict[str, list[RewriteSite | None]] = {action: [] for action in self.actions}
        for site in applicable_rewrites(parsed):
            by_action[variant_name(site.rule, site.option)].append(site)
        for recipe in RECIPES:
            if recipe != state.recipe:
                by_action[RECIPE_ACTION + recipe].append(None)
        return by_action

    def _state(self, state: DesignState) -> tuple[list[float], dict[str, list[RewriteSite | None]]]:
        """Features and sites of a state, computed once per distinct state (parsing costs milliseconds)."""
        key = source_hash(state.sources, state.recipe)
        if key not in self._analysed:
            sites = self._sites(state)
            sequences = {SEQUENCE_ACTION: len(sequence_recipes()), NEIGHBOUR_ACTION: len(neighbours(state.recipe))}
            counts = [sequences.get(action, len(sites[action])) for action in self.actions]
            self._analysed[key] = design_features(state.sources, counts, state.ppa, state.reference_ppa), sites
        return self._analysed[key]

    def menu(self, state: DesignState, every_sequence: bool = True) -> Menu:
        """The state's concrete actions with what each does in words; `every_sequence=False` keeps
        only the short recipe sequences (a language model's menu)."""
        _, sites = self._state(state)
        explicit = []
        for action in self.actions:
            for choice, site in enumerate(sites.get(action, [])):
                explicit.append(Placement(action, choice, _in_words(action, site)))
            if len(sites.get(action, [])) > 1:
                explicit.append(Placement(action, EVERYWHERE, f"{action} at all {len(sites[action])} sites at once"))
        return Menu(explicit, neighbours(state.recipe),
                    range(len(sequence_recipes())) if every_sequence else _short_sequences())

    def table(self, state: DesignState, menu: Menu) -> ActionTable:
        """The softmax's view of the menu: the state's features, each action's kind and parameters."""
        features, _ = self._state(state)
        position = {kind: index for index, kind in enumerate(self.kinds)}
        explicit = torch.tensor([self._parameters(entry.action, entry.choice == EVERYWHERE) for entry in menu.explicit],
                                dtype=torch.float64).reshape(len(menu.explicit), -1)
        kinds = [position[self.kind_of(entry.action)] for entry in menu.explicit]
        kinds += [position[NEIGHBOUR_ACTION]] * len(menu.neighbours) + [position[SEQUENCE_ACTION]] * len(menu.sequences)
        parameters = torch.cat([explicit, self._sequence_parameters(NEIGHBOUR_ACTION, menu.neighbours),
                                self._sequence_parameters(SEQUENCE_ACTION, menu.sequences)])
        if not self.state_features:
            features = [0.0] * (len(features) - 1) + [1.0]
        return ActionTable(torch.tensor(features, dtype=torch.float64), torch.tensor(kinds),
                           parameters if self.action_features else torch.zeros_like(parameters))

    def sample(self, state: DesignState, k: int, rng_seed: int) -> list[Sample]:
        """Up to `k` new candidates drawn without replacement from pi (fewer: the state is exhausted)."""
        menu = self.menu(state)
        with torch.no_grad():
            log_probabilities = self.softmax.log_policy(self.table(state, menu))
        return self.draw(state, menu, log_probabilities, k, rng_seed)

    def draw(self, state: DesignState, menu: Sequence[Placement], log_probabilities: torch.Tensor, k: int,
             rng_seed: int) -> list[Sample]:
        """Up to `k` candidates drawn without replacement in proportion to exp(log_probabilities)
        (Gumbel top-k). A draw whose result the run has judged already (`state.known`), that is the
        state itself or that repeats an earlier draw is skipped, so the budget goes to new designs;
        fewer than `k` means the state is exhausted."""
        _, sites = self._state(state)
        uniform = torch.rand(len(menu), generator=torch.Generator().manual_seed(rng_seed), dtype=torch.float64)
        keys = log_probabilities.double() - torch.log(-torch.log(uniform.clamp_min(1e-300)))
        samples, seen = [], set(state.known) | {source_hash(state.sources, state.recipe)}
        for index in torch.argsort(keys, descending=True, stable=True).tolist():
            if len(samples) == k or keys[index] == -math.inf:
                break
            entry = menu[index]
            sources, recipe, description = self._candidate(state, entry, sites.get(entry.action, []))
            key = source_hash(sources, recipe)
            if key not in seen:
                seen.add(key)
                samples.append(Sample(sources, description, float(log_probabilities[index]), entry.action,
                                      {"site": entry.choice}, recipe))
        return samples

    @staticmethod
    def _candidate(state: DesignState, entry: Placement, sites: list[RewriteSite | None]) -> tuple[dict[str, str], str, str]:
        """The state's sources and recipe after the action, and what was done."""
        if entry.action in SEQUENCE_KINDS:
            return state.sources, sequence_recipes()[entry.choice], entry.words
        if entry.action.startswith(RECIPE_ACTION):
            return state.sources, entry.action.removeprefix(RECIPE_ACTION), entry.words
        if entry.choice != EVERYWHERE:
            rewrite = apply_rewrite(sites[entry.choice])
            return {**state.sources, rewrite.file: rewrite.text}, state.recipe, sites[entry.choice].description
        sources, done = dict(state.sources), []
        for site in {site.file: site for site in sites}.values():
            source, descriptions = apply_everywhere(site.file, site.source, site.rule, site.option)
            sources[site.file] = unparse(source)
            done += descriptions
        return sources, state.recipe, f"everywhere ({len(done)}): " + "; ".join(done)

    def position(self, menu: Menu, sample: Sample) -> int | None:
        """The index in `menu` of the action a sample took, None when the menu does not hold it."""
        choice = sample.metadata.get("site")
        if sample.action in SEQUENCE_KINDS:
            return menu.position_of(sample.action, choice)
        return next((index for index, entry in enumerate(menu.explicit)
                     if (entry.action, entry.choice) == (sample.action, choice)), None)

    def update(self, state_samples: list[tuple[DesignState, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One step of `FactoredSoftmax.update`."""
        decisions = []
        for (state, samples), group_advantages in zip(state_samples, advantages, strict=True):
            menu = self.menu(state)
            choices = [(index, advantage) for sample, advantage in zip(samples, group_advantages, strict=True)
                       if (index := self.position(menu, sample)) is not None]
            decisions.append(Decision(self.table(state, menu), choices))
        return self.softmax.update(decisions, kl_coef)

    def save(self, folder: Path) -> None:
        self.softmax.save(folder / STATE_FILE)

    def load(self, folder: Path) -> None:
        self.softmax.load(folder / STATE_FILE)


class RandomActionPolicy(RewritePolicy):
    """Random-action search, the baseline a learning policy must beat: every concrete action of the
    state equally likely (a recipe sequence as likely as a rewrite), never updated."""

    name = "random"
    trainable = False

    def sample(self, state: DesignState, k: int, rng_seed: int) -> list[Sample]:
        menu = self.menu(state)
        return self.draw(state, menu, torch.full((len(menu),), -math.log(len(menu))), k, rng_seed)

    def update(self, state_samples, advantages, kl_coef: float) -> UpdateStats:
        return UpdateStats()


EMBEDDED_POLICIES = {"rewrite": RewritePolicy, "random": RandomActionPolicy}  # `hdlrl optimize --policy` besides LMs
