"""Points left out of the coverage figures: proven unreachable, or waived by the user.

A run keeps one map, point id -> text (`CoverRunState.unreachable`, checkpointed as JSON), and
the text carries how the point was shown: `"<reason> (method: <method>)"`, with the method

- `case-complete`: the tool's structural argument (a case's items name every selector value);
- `sat-tempinduct`: Yosys proves the point's condition never holds from reset
  (`hdlrl.cover.unreachable.prove`);
- `waiver`: the user says so in coverage.yaml's `waivers:`, with a reason; no proof.

A proof is a claim about every input sequence, so a simulation that hits a proven point shows
a bug in the proof: `refuse_hits` raises then, naming the point and its reason. A waived
point may still be hit (a waiver is a judgement, not a proof); it only leaves the reachable figure.
"""

from __future__ import annotations

import re
from pathlib import Path

from hdlrl.cover.coverage import merge_counts
from hdlrl.cover.coverage_yaml import Waiver, load_waivers
from hdlrl.errors import HdlrlError

CASE_COMPLETE = "case-complete"
SAT_TEMPINDUCT = "sat-tempinduct"
WAIVER = "waiver"
UNRECORDED = "unrecorded"  # a checkpoint written before methods were recorded
_TAG = re.compile(r" \(method: (?P<method>[a-z-]+)\)$")


def tagged(reason: str, method: str) -> str:
    """`reason` with its method, as the run's map of exclusions stores it."""
    return f"{reason} (method: {method})"


def split(text: str) -> tuple[str, str]:
    """(reason, method) of a stored exclusion."""
    match = _TAG.search(text)
    return (text[:match.start()], match["method"]) if match else (text, UNRECORDED)


def proven(exclusions: dict[str, str]) -> dict[str, str]:
    """The exclusions shown by the tool or a proof (not waived)."""
    return {point_id: text for point_id, text in exclusions.items() if split(text)[1] != WAIVER}


def waived_points(root: Path, uncovered: list[str]) -> dict[str, str]:
    """Point id -> stored text, for the `uncovered` points a waiver of `root/coverage.yaml` names."""
    waivers: list[Waiver] = load_waivers(root)
    result = {}
    for point_id in uncovered:
        waiver = next((waiver for waiver in waivers if waiver.matches(point_id)), None)
        if waiver is not None:
            result[point_id] = tagged(f"waived ({waiver.point}): {waiver.reason}", WAIVER)
    return result


def refuse_hits(counts: dict[str, int], exclusions: dict[str, str]) -> None:
    """Raise when `counts` hit a point proven unreachable: the proof is wrong, and every figure
    of the run with it (a waived point may be hit)."""
    for point_id, count in counts.items():
        text = exclusions.get(point_id)
        if count and text is not None and split(text)[1] != WAIVER:
            reason, method = split(text)
            raise HdlrlError(f"simulation hit {point_id} ({count} times), which was excluded as unreachable "
                             f"({method}): {reason}; the exclusion is wrong, so the coverage figures are too")


def merge_checked(total: dict[str, int], run: dict[str, int], exclusions: dict[str, str]) -> dict[str, int]:
    """`merge_counts(total, run)`, once `refuse_hits` accepts `run`: checked after every simulation."""
    refuse_hits(run, exclusions)
    return merge_counts(total, run)


def exclusion_lists(exclusions: dict[str, str]) -> dict[str, list[dict]]:
    """The proven exclusions ({id, reason, method}) and the waived points ({id, reason}), apart,
    as coverage.json and summary.json list them."""
    listed: dict[str, list[dict]] = {"exclusions": [], "waived": []}
    for point_id, text in sorted(exclusions.items()):
        reason, method = split(text)
        if method == WAIVER:
            listed["waived"].append({"id": point_id, "reason": reason})
        else:
            listed["exclusions"].append({"id": point_id, "reason": reason, "method": method})
    return listed
