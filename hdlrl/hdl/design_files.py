"""A design's RTL files as the mutation and rewrite tools read and write them.

Files are named by their path relative to the design root (`relative_name`). `parse_rtl`
reads every RTL file into a pyverilog AST, refusing one that pyverilog cannot print back
faithfully; `write_sources` writes a full copy of the RTL with some files' text replaced, and
`write_mutant` does so for one mutant or equivalent rewrite.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Protocol

from hdlrl.design import Design
from hdlrl.errors import HdlrlError
from hdlrl.hdl.verilog_ast import ParsedSource, parse_verilog, unparse


class SourceVariant(Protocol):
    """Anything that replaces one RTL file's text: a Mutant, or an equivalent Rewrite."""

    file: str
    text: str


def relative_name(design: Design, path: Path) -> str:
    """`path` relative to the design root (its bare name when it lies outside)."""
    return path.relative_to(design.root).as_posix() if path.is_relative_to(design.root) else path.name


def parse_rtl(design: Design) -> dict[str, ParsedSource]:
    """Every RTL file's AST, keyed by path relative to the design root.

    A file whose unparsed text does not parse back to the same tree would give mutants (or
    rewrites) of something other than the design, so it is refused here, naming the file.
    """
    parsed = {}
    for path in design.rtl:
        source = parse_verilog(path.read_text(), path)
        printed = unparse(source)
        if unparse(parse_verilog(printed, path)) != printed:
            raise HdlrlError("pyverilog does not reproduce this file faithfully (round trip unstable); "
                             "no mutants or rewrites can be made from it", path)
        parsed[relative_name(design, path)] = source
    return parsed


def write_sources(design: Design, texts: dict[str, str], folder: Path) -> tuple[Path, ...]:
    """A full copy of the design's RTL in `folder`, with the files named in `texts` replaced.

    Returns the RTL paths in the design's order, ready for `design.with_rtl`.
    """
    names = [relative_name(design, path) for path in design.rtl]
    unknown = set(texts) - set(names)
    if unknown:
        raise HdlrlError(f"{', '.join(sorted(unknown))} is not an RTL file of design {design.name}", design.root)
    paths = []
    for path, name in zip(design.rtl, names):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if name in texts:
            target.write_text(texts[name])
        else:
            shutil.copyfile(path, target)
        paths.append(target)
    return tuple(paths)


def write_mutant(design: Design, mutant: SourceVariant, folder: Path) -> tuple[Path, ...]:
    """The design's RTL in `folder` with the mutant's (or an equivalent rewrite's) file replaced."""
    return write_sources(design, {mutant.file: mutant.text}, folder)
