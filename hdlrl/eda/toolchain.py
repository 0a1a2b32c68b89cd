"""Find EDA tools, check them against `tools.lock`, and let the environment override them.

Modelled on amaranth's toolchain discovery: each tool has an environment variable
(`HDLRL_YOSYS=/opt/yosys/bin/yosys`) that wins over `PATH`, a version that must meet a
requirement, and the warnings it prints are surfaced as Python warnings (`hdlrl.eda.diagnostics`).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass

from hdlrl.errors import ToolMissingError
from hdlrl.tools_lock import load_lock

@dataclass(frozen=True)
class ToolSpec:
    """One `[tools.NAME]` entry of tools.lock."""

    name: str
    tested: str
    requirement: str
    version_args: tuple[str, ...]
    version_regex: str
    env: str
    required: bool
    source: str


@dataclass(frozen=True)
class ToolStatus:
    """What discovery found for one tool: its path and version, and whether it is usable."""

    spec: ToolSpec
    path: str | None
    version: str | None
    problem: str | None  # None when found and the version meets the requirement

    @property
    def usable(self) -> bool:
        return self.problem is None


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text))


def meets_requirement(version: str, requirement: str) -> bool:
    """True if `version` satisfies `requirement` such as ">=0.23" (one comparison only)."""
    match = re.fullmatch(r"\s*(>=|==|>)\s*([\d.]+)\s*", requirement)
    if not match:
        raise ValueError(f"unsupported version requirement {requirement!r}")
    operator, wanted = match.groups()
    found, wanted_tuple = _version_tuple(version), _version_tuple(wanted)
    return {"==": found == wanted_tuple, ">=": found >= wanted_tuple, ">": found > wanted_tuple}[operator]


@functools.cache
def tool_specs() -> dict[str, ToolSpec]:
    return {
        name: ToolSpec(name=name, tested=entry["tested"], requirement=entry["requirement"],
                       version_args=tuple(entry["version_args"]), version_regex=entry["version_regex"],
                       env=entry["env"], required=entry["required"], source=entry["source"])
        for name, entry in load_lock()["tools"].items()
    }


@functools.cache
def _probe(spec: ToolSpec, path: str | None) -> ToolStatus:
    if path is None:
        return ToolStatus(spec, None, None, f"not found (set {spec.env} or install it: {spec.source})")
    try:
        completed = subprocess.run([path, *spec.version_args], capture_output=True, text=True, timeout=20)
    except OSError as error:
        return ToolStatus(spec, path, None, f"cannot run {path}: {error.strerror}")
    match = re.search(spec.version_regex, completed.stdout + completed.stderr)
    if not match:  # what it printed instead says why, e.g. iverilog's "Please check TMP or TMPDIR."
        printed = " ".join((completed.stdout + completed.stderr).split())[:500] or "nothing"
        return ToolStatus(spec, path, None,
                          f"{path} printed no version matching {spec.version_regex!r}; it printed: {printed}")
    version = match.group(1)
    if not meets_requirement(version, spec.requirement):
        return ToolStatus(spec, path, version, f"version {version} does not meet {spec.requirement}")
    return ToolStatus(spec, path, version, None)


def find_tool(name: str) -> ToolStatus:
    """Locate `name`: the path in its environment variable if set, else the first one on PATH."""
    spec = tool_specs()[name]
    override = os.environ.get(spec.env)
    path = shutil.which(override) if override else shutil.which(name)
    return _probe(spec, path)


def require_tool(name: str) -> ToolStatus:
    """The usable tool, or a ToolMissingError that says how to get it."""
    status = find_tool(name)
    if not status.usable:
        raise ToolMissingError(f"{name}: {status.problem}")
    return status


def has_tool(name: str) -> bool:
    return find_tool(name).usable


def tool_versions(names: tuple[str, ...]) -> dict[str, str]:
    """Versions of the named tools, for cache keys and metrics (missing tools map to "missing")."""
    return {name: find_tool(name).version or "missing" for name in names}
