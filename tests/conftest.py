"""Shared fixtures: an isolated hdlrl cache, the third-party PDK folder, imported RTLLM designs.

The tests run the real tools on real designs. Third-party data (the Nangate45/Sky130 liberty
files, the RTLLM benchmark) lives beside the checkout in ../shared; tests that need it skip
with the reason when it is absent.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

if os.environ.get("PYTEST_XDIST_WORKER"):
    # `make test` runs two pytest-xdist workers. Each gets its own temporary folder, so the scratch
    # folders of one never show in /tmp while a test of the other checks that nothing was written there.
    _PRIVATE_TMP = Path(tempfile.gettempdir()) / f"pytest-hdlrl-{os.environ['PYTEST_XDIST_WORKER']}"
    _PRIVATE_TMP.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = tempfile.tempdir = str(_PRIVATE_TMP)
DESIGNS_DIR = REPO_ROOT / "designs"
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test session gets its own result cache and generated PDK files."""
    path = tmp_path_factory.mktemp("hdlrl-cache")
    previous = os.environ.get("HDLRL_CACHE_DIR")
    os.environ["HDLRL_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("HDLRL_CACHE_DIR", None)
    else:
        os.environ["HDLRL_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def pdk_dir() -> Path:
    candidates = [Path(p) for p in (os.environ.get("HDLRL_PDK_DIR"),) if p] + [SHARED_DIR / "pdk"]
    for candidate in candidates:
        if (candidate / "nangate45_typ.lib.gz").is_file():
            return candidate.resolve()
    pytest.skip("Nangate45 liberty not found: set HDLRL_PDK_DIR to the folder holding nangate45_typ.lib.gz")


@pytest.fixture(scope="session")
def rtllm_source() -> Path:
    source = SHARED_DIR / "benchmarks" / "rtllm"
    if not source.is_dir():
        pytest.skip(f"RTLLM benchmark not found at {source}")
    return source


@pytest.fixture(scope="session")
def imported_rtllm(rtllm_source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All RTLLM designs imported once per session with the project's importer."""
    from hdlrl.importers.rtllm import run_import

    destination = tmp_path_factory.mktemp("rtllm")
    run_import(rtllm_source, destination)
    return destination


def project_designs() -> list[Path]:
    return sorted(path.parent for path in DESIGNS_DIR.glob("*/design.yaml"))


@pytest.fixture(scope="module")
def one_torch_thread():
    """A tiny model runs fastest on one thread, and leaves the other cores alone."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def proven_equal(gold: str, gold_top: str, gate: str, gate_top: str, folder: Path) -> bool:
    """Yosys SAT proves that two combinational modules (hierarchies flattened) agree on every input."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "gold.v").write_text(gold)
    (folder / "gate.v").write_text(gate)
    script = (f"read_verilog {folder / 'gold.v'}; rename {gold_top} gold_top; read_verilog {folder / 'gate.v'}; "
              f"rename {gate_top} gate_top; proc; miter -equiv -flatten -make_assert gold_top gate_top miter; "
              "sat -verify -prove-asserts miter")
    run = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True, timeout=60)
    disproved = "proof did fail" in run.stderr
    assert run.returncode == 0 or disproved, run.stderr  # anything else is a module Yosys cannot read
    return not disproved


def write_small_design(root: Path, rtl: str, testbench: str, settings: str) -> Path:
    """A design folder named after its top module: rtl/TOP.v, a Verilog testbench tb/tb_TOP.v that
    prints TEST PASSED or TEST FAILED, and design.yaml with `settings` (description, clocks, reset)."""
    top = root.name
    (root / "rtl").mkdir(parents=True)
    (root / "tb").mkdir()
    (root / "rtl" / f"{top}.v").write_text(rtl)
    (root / "tb" / f"tb_{top}.v").write_text(testbench)
    (root / "design.yaml").write_text(
        f"name: {top}\ntop: {top}\nrtl: [rtl/{top}.v]\n"
        f"testbench: {{kind: verilog, sources: [tb/tb_{top}.v], top: tb_{top}, pass_pattern: TEST PASSED,"
        f" fail_pattern: TEST FAILED}}\n{settings}")
    return root
