"""The optimiser's reward: the log PPA gain when the gate accepts, a staged penalty when not.

-ln(PPA ratio) makes halving the PPA product worth the same at any starting point, so
successive gains add up. A rejected candidate keeps the gate's staged credit (how far it got)
but sits below every accepted one, so no PPA gain can make a wrong design pay.
"""

from __future__ import annotations

import math

from hdlrl.verify.reward import ACCEPTED_BASE


def accepted_reward(ppa_ratio: float, ratio_floor: float) -> float:
    """R = -ln(ratio), with ratio = PPA_candidate / PPA_reference, floored at -ln(ratio_floor)."""
    return -math.log(min(max(ppa_ratio, 1e-12), ratio_floor))


# The credit of a completion that holds no module at all: below one whose module fails to parse
# (credit 0), so a language model that cannot write Verilog yet still learns to write a module.
NO_MODULE_CREDIT = -1.0


def rejected_reward(gate_credit: float, ratio_floor: float) -> float:
    """R = -ln(ratio_floor) - 1 + credit / 7: below every accepted reward, rising with the gate stage.

    `gate_credit` is the gate's staged dense reward of a rejected candidate, in [0, 7), or
    NO_MODULE_CREDIT.
    """
    credit = min(max(gate_credit, NO_MODULE_CREDIT), ACCEPTED_BASE - 1e-9)
    return -math.log(ratio_floor) - 1.0 + credit / ACCEPTED_BASE
