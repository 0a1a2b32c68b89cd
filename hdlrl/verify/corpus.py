"""The gate's attack corpus: candidates written as an attacker would, each with the verdict it must get.

A corpus file (`tests/gate_corpus/corpus.yaml`) lists candidates: `name` (the file `<name>.v`
beside it), `design` (a folder under the designs directory, or `rtllm/NAME` for an imported
RTLLM design), `class` (what it attacks), `expect` and `why`. `expect` is one of

- `reject`: wrong hardware or unsafe text; the gate must reject it, with a reason;
- `accept`: equivalent to the reference in the one view every tool reads; must be accepted;
- `unproven`: wrong, but only beyond what any finite check sees (a deviation after more cycles
  than the differential run, a trigger deeper than the bounded proof, a proof out of its
  budget); the gate may accept it at `bounded(N)` or `simulated`, never as `proven`, so
  `hdlrl optimize` never reports it as its best.

Every candidate is judged by a `GateJob` with PPA (so the implausible-gain rule applies).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.executors import Executor
from hdlrl.pdk import Pdk
from hdlrl.verify.gate_flow import GateFlow
from hdlrl.verify.job import GateJob
from hdlrl.yamlfile import load_yaml

EXPECTATIONS = ("reject", "accept", "unproven")
RTLLM_PREFIX = "rtllm/"


@dataclass(frozen=True)
class Attack:
    name: str
    design: str
    kind: str  # the `class` of the entry
    expect: str
    why: str
    source: Path
    reason_excludes: tuple[str, ...] = ()  # text the reason must not echo (a host file the candidate read)


@dataclass
class AttackResult:
    attack: Attack
    accepted: bool
    stage: str
    level: str
    reason: str
    ppa_ratio: float | None
    reward: float
    wall_s: float

    @property
    def held(self) -> bool:
        """Did the gate give the verdict the entry expects?"""
        if self.attack.expect == "accept":
            return self.accepted
        if self.attack.expect == "unproven":
            return not (self.accepted and self.level == "proven")
        return (not self.accepted and bool(self.reason.strip())
                and not any(text in self.reason for text in self.attack.reason_excludes))


def load_corpus(path: Path) -> list[Attack]:
    """The entries of a corpus file; a malformed entry is an error naming its line."""
    document = load_yaml(path)
    entries = (document.data or {}).get("candidates") or []
    attacks = []
    for index, entry in enumerate(entries):
        missing = {"name", "design", "class", "expect", "why"} - set(entry)
        if missing:
            raise document.error(f"candidates[{index}]", f"missing {', '.join(sorted(missing))}")
        if entry["expect"] not in EXPECTATIONS:
            raise document.error(f"candidates[{index}].expect", f"must be one of {', '.join(EXPECTATIONS)}")
        source = path.parent / f"{entry['name']}.v"
        if not source.is_file():
            raise document.error(f"candidates[{index}].name", f"{source.name} not found beside the corpus")
        attacks.append(Attack(entry["name"], entry["design"], entry["class"], entry["expect"], entry["why"], source,
                              tuple(entry.get("reason_excludes") or ())))
    return attacks


def design_root(attack: Attack, designs_dir: Path, rtllm_dir: Path | None) -> Path | None:
    """Where the attack's design lives; None for an RTLLM design when no import is given."""
    if attack.design.startswith(RTLLM_PREFIX):
        return rtllm_dir / attack.design.removeprefix(RTLLM_PREFIX) if rtllm_dir is not None else None
    return designs_dir / attack.design


def run_corpus(attacks: list[Attack], designs_dir: Path, rtllm_dir: Path | None, pdk: Pdk, flow: GateFlow,
               executor: Executor, cache_path: Path | None = None, progress: bool = True) -> list[AttackResult]:
    """Judge every attack whose design is available, in corpus order."""
    runnable = [(attack, root) for attack in attacks if (root := design_root(attack, designs_dir, rtllm_dir))]
    jobs = []
    for attack, root in runnable:
        if not (root / "design.yaml").is_file():
            raise HdlrlError(f"design {attack.design} of attack {attack.name} not found", root)
        jobs.append(GateJob(load_design(root), (attack.source,), pdk, flow, cache_path))
    verdicts = tqdm(executor.map(jobs), total=len(jobs), desc="gate corpus", unit="candidate", disable=not progress)
    return [AttackResult(attack, verdict.accepted, verdict.stage, verdict.level, verdict.reason, verdict.ppa_ratio,
                         verdict.reward, verdict.wall_s) for (attack, _), verdict in zip(runnable, verdicts)]
