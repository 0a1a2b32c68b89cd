"""A design's files in a scratch folder, and the one view of its RTL that every tool reads.

`stage_scratch` copies what the tools need; `build_view` turns the RTL into the synthesis view
(`hdlrl/hdl/view.py`): translate_off regions removed, preprocessed once by Verilator `-E` with
the documented macro set, comments and attributes dropped, then screened as the tools will
read it. Lint, simulation, the differential run, equivalence and synthesis all read the one
file it writes, so no tool can see a circuit the others do not.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hdlrl.design import Design
from hdlrl.eda.preprocess import preprocess
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.hdl.screen import decode_source, screen_view
from hdlrl.hdl.view import (VIEW_DEFINES, LineMap, PreprocessRecord, directives, dropped_regions,
                            remove_translate_off, strip_comments_and_attributes)

CANDIDATE_DIR = "candidate"
VIEW_DIR = "view"


class ViewRefusal(HdlrlError):
    """The sources cannot become a view: refused by the screen, or the preprocessor failed."""

    def __init__(self, stage: str, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message, path, line)
        self.stage = stage  # "screen" or "parse"


def stage_scratch(design: Design, scratch: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """Copy the design's files into `scratch`, keeping their paths relative to the design root.

    The testbench runs with the scratch directory as its working directory, so data files it
    reads by relative name (`$readmemh("table.txt")`) are found as in the design folder.
    Returns the RTL, testbench and include-directory paths, relative to `scratch`.
    """
    def place(path: Path) -> Path:
        relative = path.relative_to(design.root) if path.is_relative_to(design.root) else Path(CANDIDATE_DIR) / path.name
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


def build_view(runner: ToolRunner, sources: list[Path], include_dirs: list[Path], name: str) -> tuple[Path, PreprocessRecord]:
    """Write the view of `sources` (staged, relative to the scratch folder) to `view/<name>.v`.

    The sources and every file of the include folders have their translate_off regions
    blanked in place first (the preprocessor drops comments, pragmas included). Raises
    `ViewRefusal` with the original file and line when the view is refused.
    """
    scratch = runner.scratch
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
        raise ViewRefusal("parse", f"preprocessing failed: {expanded.reason}")
    line_map = LineMap.of(expanded.text)
    text, record.attributes = strip_comments_and_attributes(expanded.text, line_map)
    try:
        screen_view(text, line_map, scratch)
    except HdlrlError as error:
        raise ViewRefusal("screen", error.message, error.path, error.line) from None
    read = line_map.covered()
    record.removed += dropped_regions({file: original for file, original in originals.items() if file in read},
                                      text, line_map)
    view = Path(VIEW_DIR) / f"{name}.v"
    (scratch / view).parent.mkdir(parents=True, exist_ok=True)
    (scratch / view).write_text(text)
    return view, record
