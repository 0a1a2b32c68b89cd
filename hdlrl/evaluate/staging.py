"""A design's files in a scratch folder, and the one view of its RTL that every tool reads.

`stage_scratch` copies what the tools need; `build_view` turns the RTL into the synthesis view
(`hdlrl/hdl/view.py`): translate_off regions removed, preprocessed once by Verilator `-E` with
the documented macro set, comments and attributes dropped, then screened as the tools will
read it. Lint, simulation, the differential run, equivalence and synthesis all read the one
file it writes, so no tool can see a circuit the others do not.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.preprocess import preprocess
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.hdl.screen import decode_source, screen_view
from hdlrl.hdl.view import (VIEW_DEFINES, LineMap, PreprocessRecord, directives, dropped_regions,
                            remove_translate_off, strip_comments_and_attributes, without_line_directives)

CANDIDATE_DIR = "candidate"
VIEW_DIR = "view"


# A pasted `include (`inc``lude) escapes the raw screen; the expanded text names every file it
# read, so the reach is caught there, without quoting the file.
OUTSIDE_INCLUDE = "an `include reached a file outside the design folder"


def _inside(file: str, scratch: Path) -> bool:
    path = Path(file)
    return (path if path.is_absolute() else scratch / path).resolve().is_relative_to(scratch)


def _outside_paths(message: str, scratch: Path) -> bool:
    """Does a tool's message name an absolute path outside the scratch folder?"""
    return any(not _inside(path, scratch) for path in re.findall(r"(?<![\w.])/[^\s:'\"]+", message))


# How the common tools read a source (their own predefined macros), screened besides the view:
# a simulation without SYNTHESIS, Verilator, Icarus, and Yosys.
OTHER_READINGS: tuple[dict[str, str], ...] = (
    {}, {"VERILATOR": "1", "SYSTEMVERILOG": "1"}, {"__ICARUS__": "1"}, {"YOSYS": "1", "SYNTHESIS": "1"},
)


class ViewRefusal(HdlrlError):
    """The sources cannot become a view: refused by the screen, or the preprocessor failed."""

    def __init__(self, stage: str, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message, path, line)
        self.stage = stage  # "screen" or "parse"


def staged_path(design: Design, path: Path) -> Path:
    """Where `stage_scratch` puts `path`, relative to the scratch folder: its place in the design
    folder, or candidate/NAME for a file from elsewhere (a candidate)."""
    return path.relative_to(design.root) if path.is_relative_to(design.root) else Path(CANDIDATE_DIR) / path.name


def user_paths(message: str, design: Design) -> str:
    """`message` with each staged RTL path (`candidate/x.v:12:`) written as the user's file, so
    a location names the file to fix, not the sandbox's copy of it."""
    for path in design.rtl:
        message = re.sub(rf"(?<![\w/.]){re.escape(str(staged_path(design, path)))}(?=:\d)", str(path), message)
    return message


def stage_scratch(design: Design, scratch: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """Copy the design's files into `scratch`, keeping their paths relative to the design root.

    The testbench runs with the scratch directory as its working directory, so data files it
    reads by relative name (`$readmemh("table.txt")`) are found as in the design folder.
    Returns the RTL, testbench and include-directory paths, relative to `scratch`.
    """
    def place(path: Path) -> Path:
        relative = staged_path(design, path)
        target = scratch / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(path, target)
        return relative

    rtl = [place(path) for path in design.rtl]
    testbench = [place(path) for path in design.testbench.sources]
    for path in design.data_files:
        place(path)
    includes = [place(path) for path in design.include_dirs]
    return rtl, testbench, includes


def _screen_expansion(runner: ToolRunner, text: str, line_map: LineMap, reading: str = "") -> None:
    """Refuse an expanded text that read a file outside the scratch folder, or that the screen
    refuses; `reading` names the macro set when it is not the view's."""
    if any(not _inside(file, runner.scratch) for file in line_map.covered()):
        raise ViewRefusal("screen", OUTSIDE_INCLUDE)
    try:
        screen_view(text, line_map, runner.scratch)
    except HdlrlError as error:
        message = f"{error.message} (as read with {reading} defined)" if reading else error.message
        raise ViewRefusal("screen", message, error.path, error.line) from None


def _screen_other_readings(runner: ToolRunner, sources: list[Path], include_dirs: list[Path]) -> None:
    """Screen the sources as the common tools would read them, translate_off regions live.

    The view is what hdlrl's tools run, but the file may later be simulated elsewhere: a task
    built by a macro under `ifdef VERILATOR`, or in a translate_off region, must not wait there.
    A reading that does not preprocess is not screened (no tool could run it)."""
    for defines in OTHER_READINGS:
        expanded = preprocess(runner, sources, include_dirs, defines)
        if expanded.ok:
            reading = " ".join(f"`{name}" for name in defines) or "no macro"
            _screen_expansion(runner, expanded.text, LineMap.of(expanded.text), reading)


def build_view(runner: ToolRunner, sources: list[Path], include_dirs: list[Path], name: str,
               reference: bool = False) -> tuple[Path, PreprocessRecord]:
    """Write the view of `sources` (staged, relative to the scratch folder) to `view/<name>.v`.

    The sources and every file of the include folders have their translate_off regions
    blanked in place first (the preprocessor drops comments, pragmas included). Raises
    `ViewRefusal` with the original file and line when the view is refused. A `reference`
    (the design's own RTL, beside a candidate) skips the screen of other tools' readings:
    that is for files hdlrl may hand out, and it costs four preprocessor runs.
    """
    scratch = runner.scratch
    if not reference:
        _screen_other_readings(runner, sources, include_dirs)
    record = PreprocessRecord()
    originals: dict[str, str] = {}
    included = [path.relative_to(scratch) for directory in include_dirs
                for path in sorted((scratch / directory).rglob("*")) if path.is_file()]
    for source in [*sources, *included]:
        try:
            text, regions = remove_translate_off(decode_source(scratch / source), str(source))
        except HdlrlError as error:
            if source in included and "UTF-8" in error.message:
                continue  # a data file beside the headers; the preprocessor refuses it if included
            raise ViewRefusal("screen", error.message, error.path, error.line) from None
        (scratch / source).write_text(text)
        originals[str(source)] = text
        record.removed += regions
        conditionals, includes = directives(text, str(source))
        record.conditionals += conditionals
        record.includes += includes

    expanded = preprocess(runner, sources, include_dirs, VIEW_DEFINES)
    record.undefined = list(expanded.undefined)
    if not expanded.ok:
        if _outside_paths(expanded.reason, scratch):
            raise ViewRefusal("screen", OUTSIDE_INCLUDE)  # the preprocessor's message may quote the file
        raise ViewRefusal("parse", f"preprocessing failed: {expanded.reason}")
    line_map = LineMap.of(expanded.text)
    text, record.attributes = strip_comments_and_attributes(expanded.text, line_map)
    _screen_expansion(runner, text, line_map)
    read = line_map.covered()
    record.removed += dropped_regions({file: original for file, original in originals.items() if file in read},
                                      text, line_map)
    view = Path(VIEW_DIR) / f"{name}.v"
    (scratch / view).parent.mkdir(parents=True, exist_ok=True)
    (scratch / view).write_text(text)
    return view, record


def view_text(design: Design, sandbox: bool | None = None) -> str:
    """The view of `design`'s RTL as a plain file: what the gate verified and what every tool
    reads, with no macro, no translate_off region and no attribute left to read differently
    elsewhere (`line directives dropped). Raises `ViewRefusal` for RTL the screen refuses."""
    with tempfile.TemporaryDirectory(prefix=f"hdlrl-view-{design.name}-") as folder:
        runner = ToolRunner(Path(folder), sandbox=sandbox)
        rtl, _, includes = stage_scratch(design, runner.scratch)
        view, _ = build_view(runner, rtl, includes, design.top)
        return without_line_directives((runner.scratch / view).read_text())
