"""The hostile-input corpus (tests/bad_inputs/corpus.yaml): every bad input ends within 30 s
with exit status != 0, one line naming the bad file, no traceback, and nothing written
outside the case's own folder.

A case runs under bubblewrap with empty stand-ins mounted over /tmp and the user's hdlrl cache:
whatever it writes there lands in the stand-in, where the test finds it, and what other jobs on
the machine write there cannot fail the case (a snapshot of the real /tmp could not tell the two
apart). Without bubblewrap those two folders go unchecked, and the summary says so.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from conftest import DESIGNS_DIR
from hdlrl.eda.toolchain import find_tool

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


def _project_snapshot() -> dict[str, tuple[int, int]]:
    """The project files a case reads and must not touch: size and modification time of each."""
    snapshot = {}
    for folder in (ROOT / "designs", ROOT / "flows", ROOT / "tests" / "bad_inputs"):
        for path in folder.rglob("*"):
            if path.is_file():
                status = path.stat()
                snapshot[str(path)] = (status.st_size, status.st_mtime_ns)
    return snapshot


def _watched_folders() -> list[Path]:
    """The shared folders a case must not write to: /tmp and the user's hdlrl cache (when it exists)."""
    return [folder for folder in (Path("/tmp"), Path.home() / ".cache" / "hdlrl") if folder.is_dir()]


def _with_stand_ins(argv: list[str], case_dir: Path, stand_ins: dict[Path, Path]) -> list[str]:
    """`argv` under bubblewrap with each watched folder replaced by its empty stand-in; the case's
    own folder is mounted back where a stand-in hides it (pytest's folders may live in /tmp)."""
    binds = [argument for folder, stand_in in stand_ins.items() for argument in ("--bind", str(stand_in), str(folder))]
    hidden = any(case_dir.is_relative_to(folder) for folder in stand_ins)
    binds += ["--bind", str(case_dir), str(case_dir)] if hidden else []
    return [str(find_tool("bwrap").path), "--dev-bind", "/", "/", *binds, "--", *argv]


def _written(stand_ins: dict[Path, Path], case_dir: Path) -> list[str]:
    """What the case wrote to a watched folder: everything in its stand-in but the mount point
    (and the folders above it) that bubblewrap made to put the case's folder back."""
    written = []
    for folder, stand_in in stand_ins.items():
        mount_point = stand_in / case_dir.relative_to(folder) if case_dir.is_relative_to(folder) else stand_in
        made_by_bubblewrap = {mount_point, *mount_point.parents}
        written += [str(folder / path.relative_to(stand_in)) for path in stand_in.rglob("*")
                    if path not in made_by_bubblewrap]
    return sorted(written)


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
              f"{sum(r['outside'] for r in RESULTS)}"
              + ("" if find_tool("bwrap").usable else " (no bubblewrap: /tmp and the hdlrl cache unchecked)"))


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
    # torch sets TORCHINDUCTOR_CACHE_DIR in this process's environment the first time an earlier test
    # needs it (a folder in /tmp): inherited, it would send the case's torch there, outside the case
    inherited = {name: value for name, value in os.environ.items() if name != "TORCHINDUCTOR_CACHE_DIR"}
    environment = {**inherited, "HOME": str(home), "HDLRL_CACHE_DIR": str(case_dir / "cache"),
                   "TMPDIR": str(case_dir), "PYTHONWARNINGS": "ignore::ResourceWarning"}
    command = [sys.executable, "-m", "hdlrl.cli", *argv]
    stand_ins = ({folder: tmp_path / f"stand-in-{number}" for number, folder in enumerate(_watched_folders())}
                 if find_tool("bwrap").usable else {})  # without bubblewrap, nothing stands in
    for stand_in in stand_ins.values():
        stand_in.mkdir()
    if stand_ins:
        command = _with_stand_ins(command, case_dir, stand_ins)
    before = _project_snapshot()
    started, cpu_before = time.monotonic(), _children_cpu_s()
    finished = subprocess.run(command, cwd=case_dir, env=environment,
                              capture_output=True, text=True, timeout=TIME_LIMIT_S * 3)  # wall: a hang fails
    wall_s, cpu_s = time.monotonic() - started, _children_cpu_s() - cpu_before
    output = finished.stdout + finished.stderr
    naming = [line for line in _error_lines(finished) if case["names"] in line]
    outside = sorted(set(_project_snapshot().items()) - set(before.items())) + _written(stand_ins, case_dir)
    RESULTS.append({"name": case["name"], "wall_s": wall_s, "outside": len(outside),
                    "held": finished.returncode != 0 and bool(naming) and "Traceback" not in output})
    assert finished.returncode != 0, output
    assert "Traceback" not in output, output
    assert cpu_s < TIME_LIMIT_S, f"{cpu_s:.1f} s of CPU ({wall_s:.1f} s wall)"
    assert len(naming) == 1, f"no single line names {case['names']!r}:\n{output}"
    assert outside == [], outside


@pytest.mark.skipif(not find_tool("bwrap").usable, reason="bubblewrap (bwrap) is not installed")
def test_the_leak_check_sees_what_a_case_writes_to_tmp_and_not_what_others_write(tmp_path: Path) -> None:
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    stand_ins = {Path("/tmp"): tmp_path / "stand-in"}
    stand_ins[Path("/tmp")].mkdir()
    others = Path(tempfile.mkdtemp(prefix="hdlrl-another-job-", dir="/tmp"))  # a concurrent job's scratch
    try:
        writer = [sys.executable, "-c", f"open('/tmp/leaked', 'w'); open('{case_dir}/kept', 'w')"]
        subprocess.run(_with_stand_ins(writer, case_dir, stand_ins), check=True, timeout=60)
    finally:
        others.rmdir()
    assert _written(stand_ins, case_dir) == ["/tmp/leaked"]
    assert (case_dir / "kept").is_file() and not Path("/tmp/leaked").exists()
