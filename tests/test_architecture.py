"""The package's layering, read from its import statements with networkx: no cycle between
packages or modules, jobs on top, the learning core below them and the tools at the bottom
(docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hdlrl"
JOBS = {"optimize", "cover", "summarize"}
MAX_MODULE_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str) -> set[str]:
    """The hdlrl modules one file imports, absolute or relative, at any depth of the file."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + (path.name == "__init__.py")]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module or "")
    return {name for name in names if name == "hdlrl" or name.startswith("hdlrl.")}


@pytest.fixture(scope="module")
def modules() -> nx.DiGraph:
    graph = nx.DiGraph()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        graph.add_node(module, lines=len(path.read_text().splitlines()))
        graph.add_edges_from((module, target) for target in _imported(path, module) if target != module)
    return graph


def _package(module: str) -> str:
    """The first level below hdlrl: `hdlrl.ttt.pool` -> `ttt`, `hdlrl.design` -> `design`."""
    return module.split(".")[1] if "." in module else module


@pytest.fixture(scope="module")
def packages(modules: nx.DiGraph) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(_package(module) for module in modules)
    graph.add_edges_from((_package(source), _package(target)) for source, target in modules.edges
                         if _package(source) != _package(target))
    return graph


def test_the_package_import_graph_has_no_cycle(packages: nx.DiGraph) -> None:
    assert nx.is_directed_acyclic_graph(packages), list(nx.simple_cycles(packages))


def test_the_module_import_graph_has_no_cycle(modules: nx.DiGraph) -> None:
    assert nx.is_directed_acyclic_graph(modules), list(nx.simple_cycles(modules))[:10]


def test_the_learning_core_and_the_policies_know_no_job(packages: nx.DiGraph) -> None:
    """ttt is below every job and every policy backend; a policy sees ttt's types, never a job's."""
    for layer in ("ttt", "policy"):
        reached = nx.descendants(packages, layer)
        assert not reached & (JOBS | {"commands", "cli"}), f"{layer} imports {sorted(reached & JOBS)}"
    assert "policy" not in nx.descendants(packages, "ttt")


def test_the_tools_sit_below_the_gate_and_the_gate_below_the_jobs(packages: nx.DiGraph) -> None:
    for lower, higher in (("eda", "evaluate"), ("pdk", "eda"), ("hdl", "verify"), ("evaluate", "verify")):
        assert higher not in nx.descendants(packages, lower), f"{lower} imports {higher}"
    for job in JOBS:
        assert not nx.descendants(packages, "verify") & {job}, f"verify imports {job}"
        assert not nx.descendants(packages, job) & (JOBS - {job}), f"{job} imports another job"


def test_every_job_runs_on_the_one_search_loop(modules: nx.DiGraph) -> None:
    for job in ("hdlrl.optimize.loop", "hdlrl.cover.loop", "hdlrl.summarize.search"):
        assert modules.has_edge(job, "hdlrl.ttt.loop"), job


def test_no_module_is_longer_than_an_afternoon_allows(modules: nx.DiGraph) -> None:
    long = {module: lines for module, lines in modules.nodes(data="lines") if lines > MAX_MODULE_LINES}
    assert not long, long
