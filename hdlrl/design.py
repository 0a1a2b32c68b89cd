"""The design format: `designs/NAME/design.yaml`, validated with file-and-line errors.

A design names its top module and RTL, a self-checking testbench (Verilog with a pass
pattern, or a cocotb test module), its clocks and reset, free-text interface notes and
the weights of its PPA objective. Everything downstream (evaluation, the gate, the
optimiser) reads a `Design`, never the YAML.
"""

from __future__ import annotations

import math

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.yamlfile import LocatedYaml, load_yaml

DESIGN_FILE = "design.yaml"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


@dataclass(frozen=True)
class Clock:
    name: str
    period_ns: float


@dataclass(frozen=True)
class Reset:
    name: str
    polarity: str  # "low" or "high": the level that resets
    kind: str  # "async" or "sync"


@dataclass(frozen=True)
class Testbench:
    kind: str  # "verilog" or "cocotb"
    sources: tuple[Path, ...]
    top: str | None  # top module of a Verilog testbench
    module: str | None  # Python test module of a cocotb testbench
    pass_pattern: str
    fail_pattern: str | None
    simulator: str | None = None  # the simulator the reference passes on; None: the flow's choice


@dataclass(frozen=True)
class Objective:
    """Exponents of the PPA product area^a * delay^d * power^p (1,1,1 is the plain product)."""

    area: float = 1.0
    delay: float = 1.0
    power: float = 1.0


@dataclass(frozen=True)
class Design:
    name: str
    root: Path
    top: str
    rtl: tuple[Path, ...]
    testbench: Testbench
    clocks: tuple[Clock, ...]
    reset: Reset | None
    description: str = ""
    interface: str = ""
    data_files: tuple[Path, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    objective: Objective = field(default_factory=Objective)
    coverage_targets: tuple[tuple[str, float], ...] = ()  # per metric, over the flow's (`hdlrl cover`)

    @property
    def is_combinational(self) -> bool:
        return not self.clocks

    def with_rtl(self, rtl: tuple[Path, ...]) -> "Design":
        """The same design with candidate sources in place of the reference RTL."""
        return Design(**{**self.__dict__, "rtl": rtl})


class FieldReader:
    """Typed field access over a LocatedYaml, raising errors that name file, line and field."""

    def __init__(self, document: LocatedYaml):
        self.document = document

    def get(self, data: dict, field_path: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        key = field_path.rpartition(".")[2]
        if key not in data or data[key] is None:
            if default is ...:
                raise self.document.error(field_path, "required field is missing")
            return default
        value = data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.document.error(field_path, f"expected {names}, got {type(value).__name__}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.document.error(field_path, f"must be a finite number, got {value}")
        return value

    def identifier(self, data: dict, field_path: str) -> str:
        value = self.get(data, field_path, str)
        if not _IDENTIFIER.match(value):
            raise self.document.error(field_path, f"{value!r} is not a Verilog identifier")
        return value

    def choice(self, data: dict, field_path: str, choices: tuple[str, ...], default: Any = ...) -> str:
        value = self.get(data, field_path, str, default)
        if value is None and default is None:
            return value
        if value not in choices:
            raise self.document.error(field_path, f"{value!r} is not one of {', '.join(choices)}")
        return value

    def files(self, data: dict, field_path: str, root: Path, default: Any = ...) -> tuple[Path, ...]:
        value = self.get(data, field_path, (list, str), default)
        items = [value] if isinstance(value, str) else list(value)
        paths = []
        for index, item in enumerate(items):
            where = f"{field_path}[{index}]" if isinstance(value, list) else field_path
            if not isinstance(item, str):
                raise self.document.error(where, "expected a file path")
            path = (root / item).resolve()
            if not path.is_relative_to(root.resolve()):
                raise self.document.error(where, f"{item!r} lies outside the design folder")
            if not path.exists():
                raise self.document.error(where, f"{item!r} does not exist")
            paths.append(path)
        return tuple(paths)


def load_design(design_dir: str | Path) -> Design:
    """Read and validate `design_dir/design.yaml`."""
    root = Path(design_dir).resolve()
    path = root / DESIGN_FILE
    if not root.is_dir():
        raise HdlrlError("design folder not found", design_dir)
    document = load_yaml(path)
    data = document.data
    if not isinstance(data, dict):
        raise HdlrlError("design.yaml must be a mapping of fields", path, 1)
    known = {"name", "top", "description", "rtl", "testbench", "clocks", "reset", "interface",
             "objective", "data_files", "include_dirs", "coverage_targets"}
    for key in data:
        if key not in known:
            raise document.error(str(key), f"unknown field (known: {', '.join(sorted(known))})")
    read = FieldReader(document)

    testbench_data = read.get(data, "testbench", dict)
    kind = read.choice(testbench_data, "testbench.kind", ("verilog", "cocotb"), "verilog")
    testbench = Testbench(
        kind=kind,
        sources=read.files(testbench_data, "testbench.sources", root, () if kind == "cocotb" else ...),
        top=read.identifier(testbench_data, "testbench.top") if kind == "verilog" else None,
        module=read.get(testbench_data, "testbench.module", str) if kind == "cocotb" else None,
        pass_pattern=read.get(testbench_data, "testbench.pass_pattern", str, "TEST PASSED"),
        fail_pattern=read.get(testbench_data, "testbench.fail_pattern", str, None),
        simulator=read.choice(testbench_data, "testbench.simulator", ("icarus", "verilator"), None),
    )
    for pattern_field in ("pass_pattern", "fail_pattern"):
        pattern = getattr(testbench, pattern_field)
        try:
            re.compile(pattern or "")
        except re.error as error:
            raise document.error(f"testbench.{pattern_field}", f"invalid regular expression: {error}")

    clocks = []
    for index, item in enumerate(read.get(data, "clocks", list, [])):
        where = f"clocks[{index}]"
        if not isinstance(item, dict):
            raise document.error(where, "expected a mapping with name and period_ns")
        period = read.get(item, f"{where}.period_ns", float)
        if period <= 0:
            raise document.error(f"{where}.period_ns", "must be positive")
        clocks.append(Clock(read.identifier(item, f"{where}.name"), period))

    reset = None
    if data.get("reset") is not None:
        reset_data = read.get(data, "reset", dict)
        reset = Reset(
            name=read.identifier(reset_data, "reset.name"),
            polarity=read.choice(reset_data, "reset.polarity", ("low", "high")),
            kind=read.choice(reset_data, "reset.kind", ("async", "sync")),
        )

    objective_data = read.get(data, "objective", dict, {})
    objective = Objective(**{
        key: read.get(objective_data, f"objective.{key}", float, 1.0) for key in ("area", "delay", "power")
    })

    targets_data = read.get(data, "coverage_targets", dict, {})
    targets = []
    for metric in targets_data:
        if metric not in ("line", "branch", "toggle", "functional"):
            raise document.error(f"coverage_targets.{metric}", "unknown metric (known: branch, functional, line, toggle)")
        value = read.get(targets_data, f"coverage_targets.{metric}", float)
        if not 0 <= value <= 1:
            raise document.error(f"coverage_targets.{metric}", "must be a fraction from 0 to 1")
        targets.append((metric, value))

    return Design(
        name=read.get(data, "name", str, root.name),
        root=root,
        top=read.identifier(data, "top"),
        rtl=read.files(data, "rtl", root),
        testbench=testbench,
        clocks=tuple(clocks),
        reset=reset,
        description=read.get(data, "description", str, ""),
        interface=read.get(data, "interface", str, ""),
        data_files=read.files(data, "data_files", root, ()),
        include_dirs=read.files(data, "include_dirs", root, ()),
        objective=objective,
        coverage_targets=tuple(targets),
    )
