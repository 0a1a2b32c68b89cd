"""Formal equivalence of a candidate against the reference, with Yosys.

Both designs are read into one Yosys session (the reference's modules renamed with
`prefix_modules`), elaborated (`proc; flatten; memory; async2sync`) and compared:

- first, one Yosys run elaborates both tops with their internal names normalised; the same
  netlist text is proven at once (`identical netlist`, `hdlrl/verify/identity.py`), anything
  else goes on to the proofs;
- then (with `induction`) `equiv_make; equiv_simple -undef -seq N; equiv_induct -undef -seq N;
  equiv_status -assert`, which proves designs whose signals correspond by name, fast even
  for multipliers; X is modelled (`-undef`), since without it an `x` the candidate leaves
  where the reference is defined reads as 0 and "proves", while synthesis builds anything
  there; when some `$equiv` cell stays unproven (re-encoded state, retiming, X):
- combinational: a miter (`miter -equiv -ignore_gold_x`) whose `trigger` output is 1 when
  an output differs where the reference is defined; `sat -prove trigger 0` over all defined
  inputs either proves equivalence or returns the distinguishing input;
- sequential: the miter under `sat -tempinduct` from reset: step 1 has the reset asserted,
  registers start undefined (`-set-init-undef`, so a register without reset is `x` in the
  reference and ignored there), both designs get the same defined inputs. An induction
  proof within `depth` steps is a proof; a base-case model is a counterexample; when only
  the base case holds for `depth` steps, a second k-induction up to 2 x `depth`, registers
  not started undefined but still X-aware, gets the rest of the time (`_induction_from_defined_registers`,
  method `sat-tempinduct-defined-init`), and without its proof the level is `bounded(depth)`.

A time-out or anything Yosys cannot decide is "unknown", never a pass.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

from hdlrl.config import Count, Positive
from hdlrl.design import Design
from hdlrl.eda.diagnostics import first_error
from hdlrl.eda.runner import ToolRun, ToolRunner
from hdlrl.eda.synth.yosys import read_commands
from hdlrl.eda.toolchain import require_tool
from hdlrl.hdl.rename import REFERENCE_PREFIX, RESERVED_PREFIX, prefix_modules
from hdlrl.verify.identity import IDENTICAL_NETLIST, netlist_identity_script, same_netlist
from hdlrl.verify.interface import Interface

WORK_DIR = "equivalence"
PREPARED = "prepared.il"
NETLISTS = ("reference_netlist.il", "candidate_netlist.il")  # the two tops as `netlist_identity_script` writes them
STATE_COUNT = "state_elements.txt"
EQUIV_SEQUENCE_LENGTH = 5
# The modules this check adds: under the prefix no candidate may use (hdlrl/hdl/screen.py).
MITER = f"{RESERVED_PREFIX}miter"
EQUIV = f"{RESERVED_PREFIX}equiv"

# Flip-flops, latches and memories as they stand after `proc` and before `memory`.
_STATE_CELLS = "t:$*dff* t:$*latch* t:$ff t:$mem*"
_COUNT = re.compile(r"(\d+) objects")
# One row of `sat -show-*`: "    3 \in_din     1     1     1" (Dec and Hex are "--" for x; no
# step column in a combinational proof).
_MODEL_ROW = re.compile(r"^\s*(?:(?P<step>\d+)\s+)?\\(?P<signal>\S+)\s+\S+\s+\S+\s+(?P<bits>[01xz]+)\s*$")
_MODEL_HEADER = "Signal Name"


@dataclass(frozen=True)
class EquivalenceOptions:
    time_s: Positive = 60
    depth: Count(1000) = 20  # steps of the bounded check from reset, and the longest induction tried
    induction: bool = True  # try to prove (equiv_induct, sat -tempinduct); False: bounded only


@dataclass
class EquivalenceResult:
    level: str  # "proven", "bounded", "failed", "unknown"
    depth: int | None
    method: str  # "identical netlist", "miter-sat", "equiv-induct", "sat-tempinduct", "sat-tempinduct-defined-init"
    reason: str
    counterexample: list[dict[str, str]] | None = None  # per step: input ports, reference.<out>, candidate.<out>
    timed_out: bool = False
    wall_s: float = 0.0

    @property
    def label(self) -> str:
        return f"bounded({self.depth})" if self.level == "bounded" else self.level


class _Session:
    """Yosys runs sharing one budget of `time_s` CPU seconds, so the whole check honours it
    and its verdict does not depend on the machine's load. `elapsed_s` (wall) is only reported."""

    def __init__(self, runner: ToolRunner, time_s: float):
        self.runner = runner
        self.time_s = time_s
        self.started = time.perf_counter()
        self.cpu_s = 0.0

    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def run(self, script_name: str, script: str) -> ToolRun | None:
        """Run a Yosys script in the work folder with the CPU seconds left; None when none are left."""
        remaining = self.time_s - self.cpu_s
        if remaining <= 0:
            return None
        (self.runner.scratch / WORK_DIR / script_name).write_text(script)
        limits = replace(self.runner.limits, time_s=remaining)
        run = self.runner.run([require_tool("yosys").path, "-s", f"{WORK_DIR}/{script_name}"], limits=limits)
        self.cpu_s += run.cpu_s
        return run

    def timed_out(self, method: str) -> EquivalenceResult:
        return EquivalenceResult("unknown", None, method, f"equivalence proof exceeded {self.time_s:g} s",
                                 timed_out=True, wall_s=self.elapsed_s)

    def stopped(self, method: str, run: ToolRun | None) -> EquivalenceResult | None:
        """The result when `run` did not finish its proof by itself, None when it did: out of the
        budget (time-out, none left to start it), or a crash or stall of yosys, which decides nothing."""
        if run is None or run.limit_hit == "cpu":
            return self.timed_out(method)
        if run.fault:
            return EquivalenceResult("unknown", None, method, f"yosys {run.fault}", wall_s=self.elapsed_s)
        return None


def _stage_reference(runner: ToolRunner, reference_sources: list[Path]) -> list[Path]:
    """Copies of the reference with every module prefixed, beside the scripts; paths relative to scratch."""
    texts = [(runner.scratch / source).read_text(errors="replace") for source in reference_sources]
    staged = []
    for index, (source, text) in enumerate(zip(reference_sources, prefix_modules(texts))):
        path = Path(WORK_DIR) / f"reference_{index}_{Path(source).name}"
        (runner.scratch / path).write_text(text)
        staged.append(path)
    return staged


def _preparation_script(reference: list[Path], candidate: list[Path], include_dirs: list[Path], top: str) -> str:
    """Both designs elaborated to flat cells the SAT solver models, the miter built, all saved."""
    return "\n".join([
        *read_commands([*reference, *candidate], include_dirs),
        "hierarchy -check",
        "proc",
        "flatten",
        f"tee -q -o {WORK_DIR}/{STATE_COUNT} select -count {_STATE_CELLS}",
        "memory",  # memories to flip-flops: `sat` models no $mem cells
        "async2sync",  # asynchronous resets and latches as synchronous logic: one SAT step per clock
        "opt_clean",
        f"miter -equiv -flatten -make_outputs -ignore_gold_x {REFERENCE_PREFIX}{top} {top} {MITER}",
        f"write_rtlil {WORK_DIR}/{PREPARED}",
        "",
    ])


def _identical_netlist(session: _Session, reference: list[Path], candidate: list[Path], include_dirs: list[Path],
                       top: str) -> EquivalenceResult | None:
    """Proven when both designs elaborate to the same netlist; None (the proofs decide) otherwise,
    a Yosys error or time-out included: the check is a shortcut, never a verdict against."""
    outputs = (Path(WORK_DIR) / NETLISTS[0], Path(WORK_DIR) / NETLISTS[1])
    run = session.run("identity.ys", netlist_identity_script(reference, candidate, include_dirs,
                                                             f"{REFERENCE_PREFIX}{top}", top, outputs))
    if run is None or not run.ok:
        return None
    texts = [(session.runner.scratch / output).read_text(errors="replace") for output in outputs]
    cells = same_netlist(*texts)
    if cells is None:
        return None
    return EquivalenceResult("proven", None, IDENTICAL_NETLIST,
                             f"both elaborate to the same netlist of {cells} cells once internal names are normalised",
                             wall_s=session.elapsed_s)


def _counterexample(log: str, interface: Interface, clocks: set[str]) -> list[dict[str, str]]:
    """The last model table of a `sat` log, as port values per step (clocks left out: a step is a cycle)."""
    table = log[log.rfind(_MODEL_HEADER):] if _MODEL_HEADER in log else ""
    names = {f"in_{port.name}": port.name for port in interface.inputs if port.name not in clocks}
    for port in interface.outputs:
        names[f"gold_{port.name}"] = f"reference.{port.name}"
        names[f"gate_{port.name}"] = f"candidate.{port.name}"
    steps: dict[int, dict[str, str]] = {}
    for match in map(_MODEL_ROW.match, table.splitlines()):
        if match and match["signal"] in names:
            steps.setdefault(int(match["step"] or 1), {})[names[match["signal"]]] = match["bits"]
    return [steps[step] for step in sorted(steps)]


def _differing_outputs(step: dict[str, str]) -> list[str]:
    """Outputs whose candidate value departs from a defined reference value in one step."""
    differing = []
    for key, value in step.items():
        if key.startswith("reference."):
            port = key.removeprefix("reference.")
            candidate = step.get(f"candidate.{port}", "")
            if any(gold != "x" and gold != gate for gold, gate in zip(value, candidate)):
                differing.append(port)
    return differing


def _failure(method: str, depth: int | None, trace: list[dict[str, str]], wall_s: float) -> EquivalenceResult:
    last = trace[-1] if trace else {}
    outputs = ", ".join(_differing_outputs(last)) or "an output"
    cycle = f" at cycle {len(trace)} after reset" if method == "sat-tempinduct" else ""
    return EquivalenceResult("failed", depth, method, f"{outputs} differs from the reference{cycle}",
                             trace, wall_s=wall_s)


def _sat_on_miter(session: _Session, script_name: str, sat_command: str) -> ToolRun | None:
    """One `sat` command on the prepared miter (None when no time is left to start it)."""
    return session.run(script_name, "\n".join([f"read_rtlil {WORK_DIR}/{PREPARED}", f"hierarchy -top {MITER}",
                                                sat_command, ""]))


def _sat_combinational(session: _Session, interface: Interface) -> EquivalenceResult:
    """`sat -prove trigger 0`: any defined input where an output differs is a counterexample."""
    method = "miter-sat"
    run = _sat_on_miter(session, "miter_sat.ys",
                        f"sat -prove trigger 0 -enable_undef -set-def-inputs -show-inputs -show-outputs {MITER}")
    if stopped := session.stopped(method, run):
        return stopped
    if "SAT proof finished - no model found: SUCCESS" in run.output:
        return EquivalenceResult("proven", None, method, "outputs equal for every input", wall_s=session.elapsed_s)
    if "SAT proof finished - model found: FAIL" in run.output:
        return _failure(method, None, _counterexample(run.output, interface, set()), session.elapsed_s)
    return EquivalenceResult("unknown", None, method, first_error("yosys", run.output, "sat did not decide"),
                             wall_s=session.elapsed_s)


def _equiv_induct(session: _Session, top: str) -> ToolRun | None:
    """The run that proves every `$equiv` cell between name-matched signals (ok when it did)."""
    return session.run("equiv.ys", "\n".join([
        f"read_rtlil {WORK_DIR}/{PREPARED}",
        f"equiv_make {REFERENCE_PREFIX}{top} {top} {EQUIV}",
        f"hierarchy -top {EQUIV}",
        f"equiv_simple -undef -seq {EQUIV_SEQUENCE_LENGTH}",
        f"equiv_induct -undef -seq {EQUIV_SEQUENCE_LENGTH}",
        "equiv_status -assert",
        "",
    ]))


def _induction_from_defined_registers(session: _Session, reset: str, max_steps: int) -> bool:
    """k-induction up to `max_steps` from registers not started undefined; True only when it proves.

    X modelling stays on: Yosys's `sat` enables it with `-set-def-inputs`. It must: without it a constant `x` reads
    as 0, so a candidate driving `1'bx` where the reference drives 0, late enough to pass the
    base case, would be proven equal though a simulator shows X. Only a proof is taken from it.
    """
    run = _sat_on_miter(session, "miter_tempinduct_defined_init.ys",
                        f"sat -tempinduct -prove trigger 0 -seq 1{reset} -set-def-inputs -maxsteps {max_steps} {MITER}")
    return run is not None and not run.timed_out and "Induction step proven: SUCCESS" in run.output


def _sat_tempinduct(session: _Session, design: Design, interface: Interface,
                    options: EquivalenceOptions) -> EquivalenceResult:
    """Bounded check from reset, by induction when `options.induction`; see the module docstring."""
    method = "sat-tempinduct"
    reset = ""
    if design.reset is not None:
        reset = f" -set-at 1 in_{design.reset.name} {1 if design.reset.polarity == 'high' else 0}"
    mode = "-tempinduct" if options.induction else "-tempinduct-baseonly"
    run = _sat_on_miter(session, "miter_tempinduct.ys",
                        f"sat {mode} -prove trigger 0 -seq 1{reset} -set-init-undef -enable_undef -set-def-inputs"
                        f" -maxsteps {options.depth} -show-inputs -show-outputs {MITER}")
    if stopped := session.stopped(method, run):
        return stopped
    output = run.output
    if "Induction step proven: SUCCESS" in output:
        return EquivalenceResult("proven", None, method, "outputs equal in every cycle after reset (induction)",
                                 wall_s=session.elapsed_s)
    if "model found for base case: FAIL" in output:
        trace = _counterexample(output, interface, {clock.name for clock in design.clocks})
        return _failure(method, options.depth, trace, session.elapsed_s)
    if "Reached maximum number of time steps" in output or (not options.induction and run.ok):
        if options.induction and _induction_from_defined_registers(session, reset, 2 * options.depth):
            return EquivalenceResult("proven", None, "sat-tempinduct-defined-init",
                                     "outputs equal in every cycle after reset (k-induction from defined registers)",
                                     wall_s=session.elapsed_s)
        unproven = "; induction did not close" if options.induction else ""
        return EquivalenceResult("bounded", options.depth, method,
                                 f"outputs equal for {options.depth} cycles after reset{unproven}",
                                 wall_s=session.elapsed_s)
    return EquivalenceResult("unknown", None, method, first_error("yosys", output, "sat did not decide"),
                             wall_s=session.elapsed_s)


def check_equivalence(runner: ToolRunner, design: Design, interface: Interface, reference_sources: list[Path],
                      candidate_sources: list[Path], include_dirs: list[Path],
                      options: EquivalenceOptions = EquivalenceOptions()) -> EquivalenceResult:
    """Prove `candidate_sources` equivalent to `reference_sources` at the ports of `design.top`.

    Sources are paths relative to `runner.scratch` (or absolute); the whole check runs under
    `options.time_s`.
    """
    session = _Session(runner, options.time_s)
    (runner.scratch / WORK_DIR).mkdir(parents=True, exist_ok=True)
    reference = _stage_reference(runner, reference_sources)
    identical = _identical_netlist(session, reference, list(candidate_sources), list(include_dirs), design.top)
    if identical is not None:
        return identical
    preparation = session.run("prepare.ys", _preparation_script(reference, list(candidate_sources),
                                                                list(include_dirs), design.top))
    if stopped := session.stopped("miter-sat" if design.is_combinational else "sat-tempinduct", preparation):
        return stopped
    if not preparation.ok:
        return EquivalenceResult("unknown", None, "miter-sat",
                                 first_error("yosys", preparation.output, "yosys could not build the miter"),
                                 wall_s=session.elapsed_s)
    state_elements = int(_COUNT.search((runner.scratch / WORK_DIR / STATE_COUNT).read_text())[1])
    combinational = design.is_combinational and state_elements == 0
    if len(design.clocks) > 1:
        return EquivalenceResult("unknown", None, "sat-tempinduct",
                                 f"{len(design.clocks)} clocks: one SAT step per clock edge needs a single clock",
                                 wall_s=session.elapsed_s)
    if options.induction:  # name-matched proofs first: seconds faster than a multiplier miter
        run = _equiv_induct(session, design.top)
        if stopped := session.stopped("equiv-induct", run):
            return stopped
        if run.ok:
            return EquivalenceResult("proven", None, "equiv-induct", "every name-matched signal proven equivalent",
                                     wall_s=session.elapsed_s)
    if combinational:
        return _sat_combinational(session, interface)
    return _sat_tempinduct(session, design, interface, options)
