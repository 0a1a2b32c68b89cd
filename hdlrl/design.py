"""The design format: `designs/NAME/design.yaml`, validated with file-and-line errors.

A design names its top module and RTL, a self-checking testbench (Verilog with a pass
pattern, or a cocotb test module), its clocks and reset, free-text interface notes and
the weights of its PPA objective. Everything downstream (evaluation, the gate, the
optimiser) reads a `Design`, never the YAML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from hdlrl.config import Bounded, Identifier, PathList, Positive, Simulator, Text, schema, validate
from hdlrl.errors import HdlrlError
from hdlrl.yamlfile import LocatedYaml, load_yaml

DESIGN_FILE = "design.yaml"


def _regular_expression(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"invalid regular expression: {error}") from None
    return pattern


Pattern = Annotated[str, Field(max_length=1000), AfterValidator(_regular_expression)]


def _python_module(name: str) -> str:
    """A plain module name (its file's name less .py) and nothing else: cocotb reads a comma-separated list."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name, re.ASCII):
        raise ValueError(f"{name!r} is not a Python module name (the test file's name without .py)")
    return name


PythonModule = Annotated[str, Field(max_length=256), AfterValidator(_python_module)]
COCOTB_ON_ICARUS_ONLY = ("cocotb testbenches run on icarus only: cocotb 2.x needs Verilator >= 5.036 "
                         "and the toolchain has Verilator 5.006")


@schema
@dataclass(frozen=True)
class Clock:
    name: Identifier
    period_ns: Positive


@schema
@dataclass(frozen=True)
class Reset:
    name: Identifier
    polarity: Literal["low", "high"]  # the level that resets
    kind: Literal["async", "sync"]


@dataclass(frozen=True)
class Testbench:
    kind: str  # "verilog" or "cocotb"
    sources: tuple[Path, ...]
    top: str | None  # the simulation's top: the testbench module, or for cocotb the design's top it drives
    module: str | None  # Python test module of a cocotb testbench
    pass_pattern: str
    fail_pattern: str | None
    simulator: str | None = None  # the simulator the reference passes on; None: the flow's choice


@schema
@dataclass(frozen=True)
class Objective:
    """Exponents of the PPA product area^a * delay^d * power^p (1,1,1 is the plain product)."""

    area: Bounded(10.0) = 1.0
    delay: Bounded(10.0) = 1.0
    power: Bounded(10.0) = 1.0


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

    @property
    def is_combinational(self) -> bool:
        return not self.clocks

    def with_rtl(self, rtl: tuple[Path, ...]) -> "Design":
        """The same design with candidate sources in place of the reference RTL."""
        return Design(**{**self.__dict__, "rtl": rtl})


@schema
@dataclass(frozen=True)
class TestbenchFile:
    """The `testbench` section as written: paths still relative to the design folder."""

    kind: Literal["verilog", "cocotb"] = "verilog"
    sources: PathList = ()  # required for a Verilog testbench; for cocotb, the test module's .py file(s)
    top: Identifier | None = None  # required for a Verilog testbench
    module: PythonModule | None = None  # required for a cocotb testbench
    pass_pattern: Pattern = "TEST PASSED"
    fail_pattern: Pattern | None = None
    simulator: Simulator | None = None


@schema
@dataclass(frozen=True)
class DesignFile:
    """design.yaml as written."""

    top: Identifier
    rtl: Annotated[PathList, Field(min_length=1)]
    testbench: TestbenchFile
    name: Annotated[str, Field(max_length=256)] | None = None  # default: the folder's name
    description: Text = ""
    clocks: Annotated[tuple[Clock, ...], Field(max_length=64)] = ()
    reset: Reset | None = None
    interface: Text = ""
    objective: Objective = field(default_factory=Objective)
    data_files: PathList = ()
    include_dirs: PathList = ()


def _files(document: LocatedYaml, written: tuple[str, ...], field_path: str, root: Path) -> tuple[Path, ...]:
    """The files of a path list, each inside the design folder and present."""
    paths = []
    for index, item in enumerate(written):
        where = f"{field_path}[{index}]" if f"{field_path}[{index}]" in document.lines else field_path
        path = (root / item).resolve()
        if not path.is_relative_to(root.resolve()):
            raise document.error(where, f"{item!r} lies outside the design folder")
        if not path.exists():
            raise document.error(where, f"{item!r} does not exist")
        paths.append(path)
    return tuple(paths)


def _check_cocotb(document: LocatedYaml, bench: TestbenchFile) -> None:
    """A cocotb testbench lists its test module's file, so the scratch copy holds it, and runs on Icarus."""
    file_name = f"{bench.module}.py"
    if not any(Path(source).name == file_name for source in bench.sources):
        raise document.error("testbench.module", f"{bench.module!r}: list its file ({file_name}) in testbench.sources")
    if bench.simulator == "verilator":
        raise document.error("testbench.simulator", COCOTB_ON_ICARUS_ONLY)


def load_design(design_dir: str | Path) -> Design:
    """Read and validate `design_dir/design.yaml`."""
    root = Path(design_dir).resolve()
    if not root.is_dir():
        raise HdlrlError("design folder not found", design_dir)
    document = load_yaml(root / DESIGN_FILE)
    written = validate(document, DesignFile)
    bench = written.testbench
    required, foreign = (("sources", "top"), "module") if bench.kind == "verilog" else (("module",), "top")
    for name in required:
        if not getattr(bench, name):
            raise document.error(f"testbench.{name}", f"required for a {bench.kind} testbench")
    if getattr(bench, foreign) is not None:
        raise document.error(f"testbench.{foreign}", f"not a field of a {bench.kind} testbench (testbench.kind)")
    if bench.kind == "cocotb":
        _check_cocotb(document, bench)
    testbench = Testbench(
        kind=bench.kind,
        sources=_files(document, bench.sources, "testbench.sources", root),
        top=bench.top if bench.kind == "verilog" else written.top,
        module=bench.module,
        pass_pattern=bench.pass_pattern,
        fail_pattern=bench.fail_pattern,
        simulator=bench.simulator,
    )
    return Design(
        name=written.name or root.name,
        root=root,
        top=written.top,
        rtl=_files(document, written.rtl, "rtl", root),
        testbench=testbench,
        clocks=written.clocks,
        reset=written.reset,
        description=written.description,
        interface=written.interface,
        data_files=_files(document, written.data_files, "data_files", root),
        include_dirs=_files(document, written.include_dirs, "include_dirs", root),
        objective=written.objective,
    )


def design_folders(paths: list[Path]) -> list[Path]:
    """Folders with a design.yaml: those named, and those one level inside a named folder without
    one (`designs/hard_coverage` stands for its designs); a path that is neither is an error."""
    folders = []
    for path in map(Path, paths):
        inside = sorted(child for child in path.iterdir() if (child / DESIGN_FILE).is_file()) if path.is_dir() else []
        if (path / DESIGN_FILE).is_file():
            folders.append(path)
        elif inside:
            folders += inside
        else:
            raise HdlrlError(f"not a design folder (no {DESIGN_FILE}) nor a folder of them", path)
    return folders

