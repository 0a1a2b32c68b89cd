"""The hierarchical dense reward: how far a candidate got through the gate, then its PPA.

Sparse pass/fail rewards give a policy nothing to climb on while most of its samples fail;
crediting each stage passed (after DHRCL, ChipSeek and RLPF) does. The ladder is written out
in flows/gate.yaml. It is monotone: every rejected score is below the next stage's, and below
every accepted score, so no PPA gain can make a wrong design pay.
"""

from __future__ import annotations

# Credit for passing each stage of the gate, in order (a rejection at a stage earns the
# credit of the stage before it).
STAGE_CREDIT = {
    "screen": 0.0,       # refused or unreadable: nothing earned
    "parse": 0.0,
    "elaborate": 1.0,    # it parsed
    "interface": 2.0,    # it elaborated
    "structure": 3.0,    # it kept the interface
    "testbench": 4.0,    # lint and structure passed (the design's testbench then failed)
    "differential": 5.0,  # the testbench passed; + the differential agreement
    "equivalence": 6.0,  # the simulations agreed; the proof found a counterexample
    "ppa": 6.5,          # equivalent, but synthesis or timing failed (no PPA to score)
}
ACCEPTED_BASE = 7.0
ACCEPTED_CAP = 9.0  # no accepted candidate earns more, however small its PPA
# The one stage with a measured pass ratio: the share of compared cycles on which every output
# agreed. A design's testbench reports pass or fail, not a count of checks, so it earns no
# partial credit.
PARTIAL_STAGES = ("differential",)


def rejected_reward(stage: str, progress: float = 0.0) -> float:
    """R = credit(stage) + progress, progress in [0, 1) the partial pass ratio at that stage.

    progress counts only at the stages with a ratio, and is clamped below 1 so a rejection
    never ties with the next stage's credit.
    """
    if stage not in PARTIAL_STAGES:
        return STAGE_CREDIT[stage]
    return STAGE_CREDIT[stage] + min(max(progress, 0.0), 0.999)


def accepted_reward(ppa_ratio: float) -> float:
    """R = 7 + 2 / (1 + ppa_ratio), where ppa_ratio = PPA_candidate / PPA_reference.

    8 at the reference's PPA product, 8.33 at half of it, above 7 however bad the PPA and
    below the cap of 9 however good: a bounded reward leaves a policy nothing to gain from a
    wildly small (and so suspicious) PPA that it could not also get from a real one.
    """
    return ACCEPTED_BASE + (ACCEPTED_CAP - ACCEPTED_BASE) / (1.0 + max(ppa_ratio, 0.0))
