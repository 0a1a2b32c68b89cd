"""The embedded policy: a small torch softmax over architecture rewrites, needing no weights.

Its actions are the rules of `hdlrl.hdl.rewrites` (adder and multiplier architectures,
shared arithmetic, width trimming, mux restructuring, FSM encodings), one per option of a
rule (`state_encoding:one_hot`, `prefix_adder:kogge_stone`), each applied at one of its
sites in the state's RTL, and the synthesis recipes of `hdlrl.eda.synth.recipes`
(`synthesis:abc_fast`: the same RTL under other Yosys/ABC options). Which action pays
depends on the design, so the logits are linear in a few features of the RTL (counts of
operators, declarations and decision points, and how many sites each action has), and the
weights learn at test time by the same objective as an LLM policy: advantage-weighted
log-likelihood with a KL penalty to the initial (uniform) policy.

    pi(action | x) = softmax_action(W x + b) over the actions with a site in x
    pi(action, site | x) = pi(action | x) / sites(action, x)
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import torch

from hdlrl.eda.synth.recipes import RECIPES
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.rewrites import (RULES, RewriteSite, applicable_rewrites, apply_everywhere, apply_rewrite,
                                variant_name)
from hdlrl.hdl.verilog_ast import parse_verilog, unparse
from hdlrl.ttt.pool import source_hash
from hdlrl.optimize.prompt import DesignState
from hdlrl.ttt.protocol import Sample, UpdateStats
from hdlrl.policy.linear_softmax import Decision, LinearSoftmax

STATE_FILE = "rewrite_policy.pt"
RECIPE_ACTION = "synthesis:"  # the action that measures the state's RTL under another synthesis recipe
EVERYWHERE = -1  # the placement "every site of the action at once"
# Token kinds whose counts describe a design to the policy: arithmetic, selection, state.
_COUNTED = ("+", "-", "*", "<<", ">>", "?", "==", "<", ">", "&", "|", "^", "case", "if", "for", "posedge",
            "always", "assign", "reg", "parameter", "localparam")


@dataclass(frozen=True)
class Placement:
    """One concrete action of the menu: a rule option (or recipe) at one site, or at all of its sites."""

    action: str
    choice: int  # the site's index among the action's sites, or EVERYWHERE
    words: str  # what it does, as a language model is shown it


def _in_words(action: str, site: RewriteSite | None) -> str:
    if site is None:
        recipe = action.removeprefix(RECIPE_ACTION)
        knobs = ", ".join(f"{name}={value!r}" for name, value in RECIPES[recipe].items()) or "the flow's options"
        return f"synthesis recipe {recipe} ({knobs})"
    return f"{action} at line {site.line}: {site.description}"


def design_features(sources: dict[str, str], site_counts: list[int]) -> list[float]:
    """ln(1 + count) of each counted token, of each action's sites, plus a constant 1."""
    counts = dict.fromkeys(_COUNTED, 0)
    for text in sources.values():
        for token in tokenize(text):
            if token.text in counts:
                counts[token.text] += 1
    return [math.log1p(value) for value in [*counts.values(), *site_counts]] + [1.0]


class RewritePolicy:
    name = "rewrite"
    trainable = True

    def __init__(self, learning_rate: float = 0.05):
        self.actions = [variant_name(name, option) for name, rule in RULES.items() for option in rule.options]
        self.actions += [RECIPE_ACTION + recipe for recipe in RECIPES]
        self.softmax = LinearSoftmax(self.actions, len(_COUNTED) + len(self.actions) + 1, learning_rate)
        self._analysed: dict[str, tuple[list[float], dict[str, list[RewriteSite | None]]]] = {}

    def _sites(self, state: DesignState) -> dict[str, list[RewriteSite | None]]:
        """Each action's sites in the state's RTL; a recipe other than the state's has one (None)."""
        parsed = {file: parse_verilog(text, Path(file)) for file, text in state.sources.items()}
        by_action: dict[str, list[RewriteSite | None]] = {action: [] for action in self.actions}
        for site in applicable_rewrites(parsed):
            by_action[variant_name(site.rule, site.option)].append(site)
        for recipe in RECIPES:
            if recipe != state.recipe:
                by_action[RECIPE_ACTION + recipe].append(None)
        return by_action

    def _available(self, sites: dict[str, list[RewriteSite | None]]) -> list[bool]:
        return [bool(sites[action]) for action in self.actions]

    def _state(self, state: DesignState) -> tuple[list[float], dict[str, list[RewriteSite | None]]]:
        """Features and sites of a state, computed once per distinct state (parsing costs milliseconds)."""
        key = source_hash(state.sources, state.recipe)
        if key not in self._analysed:
            sites = self._sites(state)
            self._analysed[key] = design_features(state.sources, [len(sites[action]) for action in self.actions]), sites
        return self._analysed[key]

    def placements(self, state: DesignState) -> list[Placement]:
        """Every (action, placement) of the state, with what it does in words."""
        _, sites = self._state(state)
        entries = []
        for action in self.actions:
            for choice, site in enumerate(sites[action]):
                entries.append(Placement(action, choice, _in_words(action, site)))
            if len(sites[action]) > 1:
                entries.append(Placement(action, EVERYWHERE, f"{action} at all {len(sites[action])} sites at once"))
        return entries

    def sample(self, state: DesignState, k: int, rng_seed: int) -> list[Sample]:
        """Up to `k` new candidates: (action, placement) pairs drawn without replacement from pi.

        A placement is one site, or, for an action with several sites, all of them at once
        (`EVERYWHERE`): a trimmed counter or a re-encoded FSM often pays only when every
        occurrence changes. pi(action) is shared evenly among its placements.
        """
        features, sites = self._state(state)
        with torch.no_grad():
            log_policy = self.softmax.log_policy(features, self._available(sites))
        entries = self.placements(state)
        placements_per_action = Counter(entry.action for entry in entries)
        position = {action: index for index, action in enumerate(self.actions)}
        log_probabilities = [log_policy[position[entry.action]].item() - math.log(placements_per_action[entry.action])
                             for entry in entries]
        return self.draw(state, entries, log_probabilities, k, rng_seed)

    def draw(self, state: DesignState, entries: list[Placement], log_probabilities: list[float], k: int,
             rng_seed: int) -> list[Sample]:
        """Up to `k` candidates drawn without replacement in proportion to exp(log_probabilities)
        (Gumbel top-k). A draw whose result the run has judged already (`state.known`) or that
        repeats an earlier draw is skipped, so the budget goes to new designs; fewer than `k`
        means the state is exhausted."""
        _, sites = self._state(state)
        generator = random.Random(rng_seed)
        keyed = sorted(zip(entries, log_probabilities),
                       key=lambda pair: pair[1] - math.log(-math.log(generator.random() or 1e-300)), reverse=True)
        samples, seen = [], set(state.known)
        for entry, log_probability in keyed:
            if len(samples) == k:
                break
            sources, recipe, description = self._candidate(state, entry.action, sites[entry.action], entry.choice)
            key = source_hash(sources, recipe)
            if key not in seen:
                seen.add(key)
                samples.append(Sample(sources, description, log_probability, entry.action,
                                      {"site": entry.choice}, recipe))
        return samples

    @staticmethod
    def _candidate(state: DesignState, action: str, sites: list[RewriteSite | None],
                   choice: int) -> tuple[dict[str, str], str, str]:
        """The state's sources and recipe after `action` at `choice`, and what was done."""
        if action.startswith(RECIPE_ACTION):
            return state.sources, action.removeprefix(RECIPE_ACTION), _in_words(action, None)
        if choice != EVERYWHERE:
            rewrite = apply_rewrite(sites[choice])
            return {**state.sources, rewrite.file: rewrite.text}, state.recipe, sites[choice].description
        sources, done = dict(state.sources), []
        for site in {site.file: site for site in sites}.values():
            source, descriptions = apply_everywhere(site.file, site.source, site.rule, site.option)
            sources[site.file] = unparse(source)
            done += descriptions
        return sources, state.recipe, f"everywhere ({len(done)}): " + "; ".join(done)

    def update(self, state_samples: list[tuple[DesignState, list[Sample]]], advantages: list[list[float]],
               kl_coef: float) -> UpdateStats:
        """One step of `LinearSoftmax.update`; pi_0 is uniform over the actions with a site."""
        decisions = []
        for (state, samples), group_advantages in zip(state_samples, advantages):
            features, sites = self._state(state)
            choices = [([self.actions.index(sample.action)], advantage)
                       for sample, advantage in zip(samples, group_advantages)
                       if sample.action in self.actions and sites[sample.action]]
            decisions.append(Decision(features, self._available(sites), choices))
        return self.softmax.update(decisions, kl_coef)

    def save(self, folder: Path) -> None:
        self.softmax.save(folder / STATE_FILE)

    def load(self, folder: Path) -> None:
        self.softmax.load(folder / STATE_FILE)


EMBEDDED_POLICIES = {"rewrite": RewritePolicy}  # what `hdlrl optimize --policy` offers besides language models
