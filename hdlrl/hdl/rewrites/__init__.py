"""The architecture rewrites an optimisation policy chooses from.

Each rule (see `base.RewriteRule`) changes the hardware a design describes: its adder or
multiplier architecture, what is shared between branches, how wide registers are, how muxes
and state are encoded, where registers sit. Rules may be unsafe (a width trim relies on a
range argument, a re-encoding on reachable states); the verification gate decides. A site is
applied to the parsed file it was found in, and the result is an `equivalent.Rewrite`: the
complete new text of one RTL file, written with `mutate.write_sources`.
"""

from __future__ import annotations

import dataclasses

from hdlrl.design import Design
from hdlrl.hdl.equivalent_rewrites import Rewrite
from hdlrl.hdl.lexer import normalise
from hdlrl.hdl.design_files import parse_rtl
from hdlrl.hdl.rewrites.arithmetic import AdderToOperator, BorrowToComparison, PrefixAdder
from hdlrl.hdl.rewrites.base import RewriteRule, RewriteSite
from hdlrl.hdl.rewrites.comparators import ComparatorArchitecture
from hdlrl.hdl.rewrites.fsm import StateEncoding
from hdlrl.hdl.rewrites.multipliers import MultiplierArchitecture
from hdlrl.hdl.rewrites.muxes import HoistedAssignment, PriorityChainToCase, RedundantWrap
from hdlrl.hdl.rewrites.retiming import RegisterSum
from hdlrl.hdl.rewrites.sharing import CompareOffset, GatedAccumulate, SharedOperator
from hdlrl.hdl.rewrites.shifters import ShifterArchitecture
from hdlrl.hdl.rewrites.widths import CounterWidth, GuardedIndexWidth
from hdlrl.hdl.verilog_ast import ParsedSource, unparse

RULES: dict[str, RewriteRule] = {rule.name: rule for rule in (
    AdderToOperator(), PrefixAdder(), BorrowToComparison(), MultiplierArchitecture(),
    ShifterArchitecture(), ComparatorArchitecture(),
    GatedAccumulate(), SharedOperator(), CompareOffset(),
    CounterWidth(), GuardedIndexWidth(),
    RedundantWrap(), PriorityChainToCase(), HoistedAssignment(),
    StateEncoding(),
    RegisterSum(),
)}
# Each application of a rule everywhere stops here: rules that create new sites of their own
# kind (sharing nested muxes) converge long before.
MAX_APPLICATIONS = 64


def applicable_rewrites(target: Design | dict[str, ParsedSource], rules: list[str] | None = None) -> list[RewriteSite]:
    """Every site of every rule (or of the named `rules`) in a design's RTL or in parsed files."""
    parsed = parse_rtl(target) if isinstance(target, Design) else target
    sites = []
    for file, source in parsed.items():
        for name in rules or RULES:
            sites += [dataclasses.replace(site, source=source) for site in RULES[name].sites(file, source.tree)]
    return sites


def variant_name(rule: str, option: str = "") -> str:
    """`rule`, or `rule:option` for a rule with variants (`state_encoding:one_hot`)."""
    return f"{rule}:{option}" if option else rule


def apply_rewrite(site: RewriteSite) -> Rewrite:
    """The complete new text of the site's file with the site rewritten."""
    if site.source is None:
        raise ValueError("a site from a rule directly has no source: take it from `applicable_rewrites`")
    source = ParsedSource(RULES[site.rule].apply(site.source.tree, site), site.source.header)
    return Rewrite(variant_name(site.rule, site.option), site.file, site.description, unparse(source))


def apply_everywhere(file: str, source: ParsedSource, rule: str, option: str = "") -> tuple[ParsedSource, list[str]]:
    """`source` with every site of `rule` (of one option) rewritten, one at a time, and what was done.

    Sites are found again after each application, since an edit moves the nodes after it.
    """
    done: list[str] = []
    seen = {normalise(unparse(source))}
    for _ in range(MAX_APPLICATIONS):
        for site in (site for site in RULES[rule].sites(file, source.tree) if site.option == option):
            rewritten = ParsedSource(RULES[rule].apply(source.tree, site), source.header)
            text = normalise(unparse(rewritten))
            if text not in seen:
                seen.add(text)
                source = rewritten
                done.append(site.description)
                break
        else:
            break
    return source, done


def rule_options(rule: str, parsed: dict[str, ParsedSource]) -> list[str]:
    """The options a rule offers anywhere in `parsed`, in first-seen order."""
    options: dict[str, None] = {}
    for file, source in parsed.items():
        for site in RULES[rule].sites(file, source.tree):
            options.setdefault(site.option)
    return list(options)
