"""The hostile-input corpus (tests/bad_inputs/corpus.yaml): every bad input ends within 30 s
with exit status != 0, one line naming the bad file, no traceback, and nothing written
outside the case's own folder."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import DESIGNS_DIR

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "bad_inputs" / "corpus.yaml"
CASES = yaml.safe_load(CORPUS.read_text())["cases"]
TIME_LIMIT_S = 30  # of CPU, the case's process and every tool it ran: a loaded machine does not fail a case
RESULTS: list[dict] = []  # per case, for the summary at the end


def _children_cpu_s() -> float:
    """CPU seconds of every finished child process of this one (and of theirs that were waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _write(path: Path, spec: dict) -> None:
    """Apply one input spec of the corpus (see its header) to `path`."""
    (kind, value), = spec.items()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "replace":
        text = path.read_text()
        assert value[0] in text, f"{path.name}: {value[0]!r} is not there to replace"
        path.write_text(text.replace(value[0], value[1], 1))
    elif kind == "append":
        path.write_text(path.read_text() + value)
    elif kind == "write":
        path.write_text(value)
    elif kind == "write_latin1":
        path.write_bytes(value.encode("latin-1"))
    elif kind == "repeat":
        path.write_text(value[0] * value[1])
    elif kind == "truncate":
        path.write_bytes(path.read_bytes()[:value])
    else:
        raise AssertionError(f"unknown input kind {kind!r}")


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short `hdlrl cover` run of designs/decoder3to8, for the cases that damage a run directory."""
    run = tmp_path_factory.mktemp("cover") / "run"
    subprocess.run([sys.executable, "-m", "hdlrl.cli", "cover", str(DESIGNS_DIR / "decoder3to8"), "--budget", "8",
                    "--out", str(run)], check=True, capture_output=True, timeout=600)
    return run


def _outside_snapshot() -> dict[str, tuple[int, int]]:
    """Files a case must not touch: the project tree it reads, the user's hdlrl cache and /tmp's top level."""
    snapshot = {}
    for folder in (ROOT / "designs", ROOT / "flows", ROOT / "tests" / "bad_inputs"):
        for path in folder.rglob("*"):
            if path.is_file():
                status = path.stat()
                snapshot[str(path)] = (status.st_size, status.st_mtime_ns)
    for folder in (Path.home() / ".cache" / "hdlrl", Path("/tmp")):
        if folder.is_dir():
            snapshot.update({str(path): (0, 0) for path in folder.iterdir() if not path.name.startswith("pytest-")})
    return snapshot


def _error_lines(finished: subprocess.CompletedProcess) -> list[str]:
    """What the user is told: a rejected candidate's reason (--json), else hdlrl's error lines."""
    try:
        return [json.loads(finished.stdout)["reason"]]
    except (ValueError, KeyError, TypeError):
        return [line for line in finished.stderr.splitlines() if line.startswith("hdlrl") and "error:" in line]


@pytest.fixture(scope="module", autouse=True)
def summary() -> None:
    yield
    if RESULTS:
        slowest = max(RESULTS, key=lambda result: result["wall_s"])
        print(f"\nbad-input corpus: {len(RESULTS)} cases, {sum(r['held'] for r in RESULTS)} held, "
              f"slowest {slowest['name']} {slowest['wall_s']:.1f} s, files written outside: "
              f"{sum(r['outside'] for r in RESULTS)}")


def test_the_corpus_has_forty_cases_of_every_kind() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) == len(set(names)) and len(names) >= 40
    kinds = {name.partition("_")[0] for name in names}
    assert {"design", "coverage", "flow", "candidate", "checkpoint", "cli"} <= kinds


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_bad_input_fails_fast_on_one_line_naming_its_file(tmp_path: Path, case: dict,
                                                           request: pytest.FixtureRequest) -> None:
    case_dir = tmp_path / "case"
    folders = {"design": case_dir / "design", "flows": case_dir / "flows", "input": case_dir / "input",
               "run": case_dir / "run", "case": case_dir}
    shutil.copytree(DESIGNS_DIR / case["design"], folders["design"])
    shutil.copytree(ROOT / "flows", folders["flows"])
    folders["input"].mkdir()
    if case.get("from_run"):
        shutil.copytree(request.getfixturevalue("finished_run"), folders["run"])
    for relative, spec in (case.get("inputs") or {}).items():
        root, _, rest = relative.partition("/")
        _write(folders[root] / rest, spec)
    argv = [part.format(**folders) for part in case["run"]]
    home = case_dir / "home"
    home.mkdir()
    environment = {**os.environ, "HOME": str(home), "HDLRL_CACHE_DIR": str(case_dir / "cache"),
                   "TMPDIR": str(case_dir), "PYTHONWARNINGS": "ignore::ResourceWarning"}
    before = _outside_snapshot()
    started, cpu_before = time.monotonic(), _children_cpu_s()
    finished = subprocess.run([sys.executable, "-m", "hdlrl.cli", *argv], cwd=case_dir, env=environment,
                              capture_output=True, text=True, timeout=TIME_LIMIT_S * 3)  # wall: a hang fails
    wall_s, cpu_s = time.monotonic() - started, _children_cpu_s() - cpu_before
    after = _outside_snapshot()
    output = finished.stdout + finished.stderr
    naming = [line for line in _error_lines(finished) if case["names"] in line]
    outside = sorted(set(after.items()) - set(before.items()))
    RESULTS.append({"name": case["name"], "wall_s": wall_s, "outside": len(outside),
                    "held": finished.returncode != 0 and bool(naming) and "Traceback" not in output})
    assert finished.returncode != 0, output
    assert "Traceback" not in output, output
    assert cpu_s < TIME_LIMIT_S, f"{cpu_s:.1f} s of CPU ({wall_s:.1f} s wall)"
    assert len(naming) == 1, f"no single line names {case['names']!r}:\n{output}"
    assert outside == [], outside

