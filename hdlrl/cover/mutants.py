"""The gate's mutants, sorted into equivalent and live, for the cover job's kill vectors.

A mutant the equivalence check proves equal to the reference can never be killed, so it is
left out of the mutation score; every other one (a counterexample, or no proof within the
time limit) counts. Each verdict is kept in the given folder, so a later run does not prove
again.

A mutant can also hang the simulation (a loop bound mutated into a loop that never ends), or
not build at all. Neither can share the harness with the others, so each mutant is first
built and simulated alone on Icarus for a few cycles (`screen`): one that does not finish in
seconds `hangs` (it is live, and any testbench with a time limit kills it); one that does not
build is stillborn and, as in mutation testing tools, left out of the score.
"""

from __future__ import annotations

import json
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from hdlrl.cover.harness import HarnessBuildError, HarnessSpec, build_harness
from hdlrl.cover.stimulus import Segment, StimulusProgram, StimulusSpace, render
from hdlrl.design import Design
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import make_mutants
from hdlrl.hdl.sv_mutants import split_rtl
from hdlrl.verify.equivalence import EquivalenceOptions, check_equivalence
from hdlrl.verify.interface import Interface

MUTANTS_FILE = "mutants.json"


@dataclass(frozen=True)
class CoverMutant:
    index: int
    operator: str
    file: str
    line: int
    description: str
    text: str
    equivalence: str  # the proof's label: proven (equivalent), failed, bounded(N), unknown
    screen: str = "runs"  # alone on Icarus: runs, hangs (did not finish), or stillborn (does not build)

    @property
    def live(self) -> bool:
        """Not proven equivalent, and it builds: a testbench can tell it from the reference."""
        return self.equivalence != "proven" and self.screen != "stillborn"


def _classify(design: Design, interface: Interface, mutant, folder: Path, time_s: float,
              sandbox: bool | None) -> str:
    scratch = folder / f"mutant_{mutant.index:03d}"
    runner = ToolRunner(scratch, sandbox=sandbox, readable=(design.root,))
    sources = write_mutant(design, mutant, scratch / "rtl")
    result = check_equivalence(runner, design, interface, list(design.rtl), list(sources),
                               list(design.include_dirs), EquivalenceOptions(time_s=time_s))
    return result.label


def _screen(design: Design, interface: Interface, mutant, folder: Path, sandbox: bool | None) -> str:
    """runs, hangs (a 64-cycle random simulation of it alone does not finish in 10 s) or stillborn."""
    scratch = folder / f"mutant_{mutant.index:03d}"
    candidate = replace(design, root=scratch / "rtl", rtl=write_mutant(design, mutant, scratch / "rtl"))
    space = StimulusSpace.of(candidate, interface)
    try:
        harness = build_harness(HarnessSpec(candidate, interface, space.ports), scratch / "harness", "icarus",
                                sandbox)
    except HarnessBuildError:
        return "stillborn"
    run = harness.run(render(StimulusProgram((Segment("random", 64),)), space), "screen", time_s=10)
    return "runs" if run.ok else "hangs"


# The saved mutants' format; a set saved in another is made again. 4: a null statement is
# printed as one (3 printed it `@(*);`, which hung every mutant of a design with `default: ;`).
SAVED_FORMAT = 4


def cover_mutants(design: Design, interface: Interface, count: int, seed: int, folder: Path, time_s: float,
                  workers: int = 2, sandbox: bool | None = None) -> list[CoverMutant]:
    """`count` mutants of `design` with their equivalence verdicts (read back from `folder` when
    an earlier run made them); none when no engine can mutate the design's RTL. A saved
    "unmutable" is tried again (it costs no proof): an older engine may have given up on SystemVerilog."""
    saved = folder / MUTANTS_FILE
    if saved.is_file():
        data = json.loads(saved.read_text())
        if (data["count"] == count and data["seed"] == seed and data.get("screened") == SAVED_FORMAT
                and not data["unmutable"]):
            return [CoverMutant(**entry) for entry in data["mutants"]]
    unmutable = ""
    try:
        mutants = make_mutants(design, count, seed) if count else []
    except HdlrlError as error:  # the run goes on without a mutation score, and says why
        unmutable = f"no mutants of {design.name}, so no mutation score: {error}"
        warnings.warn(unmutable, stacklevel=2)
        mutants = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        labels = list(pool.map(lambda mutant: _classify(design, interface, mutant, folder / "proofs", time_s, sandbox),
                               mutants))
        screens = list(pool.map(lambda mutant: _screen(design, interface, mutant, folder / "screens", sandbox),
                                mutants))
    result = [CoverMutant(mutant.index, mutant.operator, mutant.file, mutant.line, mutant.description, mutant.text,
                          label, screen) for mutant, label, screen in zip(mutants, labels, screens)]
    folder.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps({"count": count, "seed": seed, "screened": SAVED_FORMAT, "unmutable": unmutable,
                                 "mutants": [asdict(m) for m in result]}))
    return result


def skipped_mutants(design: Design, count: int, seed: int, scored: bool) -> dict:
    """For the summary: the RTL files no engine can mutate (how many, and why each) and, when
    there is no mutation score (`scored` false), why not, so that a null score is never silent."""
    why = None
    if not scored and not count:
        why = "the flow asks for no mutants (mutants: 0)"
    elif not scored:
        try:
            made = len(make_mutants(design, count, seed))
        except HdlrlError as error:
            why = f"no mutants: {error}"
        else:
            why = (f"none of the {made} mutants is live and runs in the harness (each was proven equivalent to the "
                   "reference, does not build, or the harness's simulator cannot build it)" if made
                   else "the RTL has no mutation site")
    skipped = split_rtl(design).skipped
    return {"files": len(skipped), "reasons": skipped, "why_no_score": why}
