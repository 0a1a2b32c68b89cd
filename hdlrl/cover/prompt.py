"""The conversation a language-model policy sees in `hdlrl cover`: write a stimulus program.

The prompt holds what the model can aim with: the design's description and RTL, the inputs
it may drive with their widths, the coverage reached so far, and the holes left (uncovered
branches and functional bins, coverage-hole feedback after LLM4DV), with the reasons its
last programs were refused. The answer is a JSON stimulus program (`hdlrl.cover.stimulus`);
the loop reads the first JSON object of the completion and refuses, with a reason, anything
malformed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hdlrl.cover.stimulus import GENERATORS

STIMULUS_SYSTEM_PROMPT = (
    "You are an expert verification engineer. You write stimulus that drives a hardware design "
    "into the branches, states and value combinations its tests have not reached yet."
)

def example_program(inputs: dict[str, int]) -> str:
    """A valid program over the design's own inputs (a model copies an example's names): a hold,
    two explicit vectors, then random cycles."""
    names = list(inputs) or ["a"]
    first, last = names[0], names[-1]
    hold = {first: 1, **({last: 0} if last != first else {})}
    vectors = [{first: (1 << min(inputs.get(first, 1), 8)) - 1}, {last: 0}]
    return json.dumps({"segments": [{"generator": "hold", "cycles": 40, "values": hold},
                                    {"generator": "vectors", "vectors": vectors},
                                    {"generator": "random", "cycles": 64}]})


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def stimulus_user_prompt(state: CoverState) -> str:
    inputs = ", ".join(f"{name} ({width} bit{'s' if width > 1 else ''})" for name, width in state.inputs.items())
    sources = "\n\n".join(f"```verilog\n// file: {name}\n{text.rstrip()}\n```" for name, text in state.sources.items())
    sections = [
        f"Design `{state.design_name}`.",
        f"What it does:\n{state.description.strip() or '(no description)'}",
        f"RTL:\n{sources}",
        f"Inputs you drive each clock cycle: {inputs}." + (
            f" `{state.reset}` is the reset: it is asserted at the start of every program and by the "
            "`reset` generator." if state.reset else ""),
        "Coverage so far: " + ", ".join(f"{metric} {_percent(value)}" for metric, value in state.coverage.items()),
    ]
    if state.uncovered:
        sections.append("Not reached yet (file|line kinds are Verilator's: if/else arms, case items):\n"
                        + "\n".join(f"- {item}" for item in state.uncovered))
    if state.feedback:
        sections.append("Your last programs were refused:\n" + "\n".join(f"- {line}" for line in state.feedback))
    sections.append(
        "Write one stimulus program that reaches what is not reached yet. Answer with a single JSON object "
        '{"segments": [...]}; each segment has a "generator" (one of ' + ", ".join(GENERATORS) + "), "
        '"cycles" (except for vectors), optionally "ports" (the inputs the generator shapes) and "values" '
        '(inputs held at a value for the whole segment); "vectors" gives explicit per-cycle input values. '
        f"Example:\n{example_program(state.inputs)}"
    )
    return "\n\n".join(sections)


@dataclass
class CoverState:
    """What a stimulus policy (`hdlrl cover`) sees: the design, the inputs it may drive, and the
    coverage holes left, so that it can aim at them."""

    design_name: str
    description: str
    sources: dict[str, str]  # file name -> Verilog text
    inputs: dict[str, int]  # driven input -> width (the clocks are the harness's)
    reset: str | None  # the reset input, driven by the `reset` generator only
    coverage: dict[str, float | None]  # line, branch, toggle, functional: fraction so far
    uncovered: list[str]  # the coverage points and functional bins not hit yet, most useful first
    steering: dict[str, dict[str, int]] = field(default_factory=dict)  # uncovered item -> input values likely to hit it
    feedback: list[str] = field(default_factory=list)  # why the policy's last programs were refused
    state_id: str = ""
    witnesses: dict[str, list[dict[str, int]]] = field(default_factory=dict)  # uncovered item -> solved inputs
    stretches: dict[str, int] = field(default_factory=dict)  # uncovered item -> quiet cycles a count of it waits for
    longest_solved: list[dict[str, int]] = field(default_factory=list)  # the longest sequence any check found

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "system", "content": STIMULUS_SYSTEM_PROMPT},
                {"role": "user", "content": stimulus_user_prompt(self)}]

    def sources_from(self, completion: str) -> dict[str, str]:
        """None: the loop reads the stimulus program from the completion's text."""
        return {}
