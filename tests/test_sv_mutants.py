"""SystemVerilog mutants (pyslang's syntax tree, text edits): deterministic, local, parseable, killed by the
testbenches, and a file no engine can read is named with the reason instead of giving a silent zero."""

from __future__ import annotations

import re
import shutil
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cover.mutants import skipped_mutants
from hdlrl.design import Design, load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import evaluate
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import check_round_trip, make_mutants
from hdlrl.hdl.readers.pyslang_reader import read_modules
from hdlrl.hdl.sv_mutants import SvSite, SvSource, split_rtl
from hdlrl.pdk import get_pdk

SV_DESIGNS = ("sv_decoder", "sv_stride")
BROKEN = "module broken(input a, output y);\n  assign = a;\nendmodule\n"


def sv_design(name: str) -> Design:
    return load_design(DESIGNS_DIR / name)


def copied(name: str, folder: Path, rtl: dict[str, str]) -> Design:
    """A copy of design `name` whose RTL list is `rtl` (file -> text, "" keeps the design's own file)."""
    root = folder / name
    shutil.copytree(DESIGNS_DIR / name, root)
    for file, text in rtl.items():
        if text:
            (root / file).write_text(text)
    yaml = root / "design.yaml"
    yaml.write_text(re.sub(r"^rtl: .*$", f"rtl: [{', '.join(rtl)}]", yaml.read_text(), flags=re.MULTILINE))
    return load_design(root)


@pytest.mark.parametrize("name", SV_DESIGNS)
def test_same_seed_same_mutants_other_seed_other_order(name: str) -> None:
    design = sv_design(name)
    first, again, other = make_mutants(design, 15, 3), make_mutants(design, 15, 3), make_mutants(design, 15, 4)
    assert first == again and len(first) == 15
    assert [mutant.text for mutant in first] != [mutant.text for mutant in other]


@pytest.mark.parametrize("name", SV_DESIGNS)
def test_at_least_ten_mutants_of_three_kinds_each_reparsing(name: str) -> None:
    design = sv_design(name)
    mutants = make_mutants(design, 20, 0)
    kinds = Counter(mutant.operator for mutant in mutants)
    assert len(mutants) >= 10 and len(kinds) >= 3, kinds
    assert {"condition_inversion", "case_labels_swapped"} <= set(kinds)
    original = design.rtl[0].read_text()
    for mutant in mutants:
        assert mutant.text != original and mutant.file == f"rtl/{name}.sv"
        read_modules(mutant.text, str(design.rtl[0]))  # raises on a syntax error


@pytest.mark.parametrize("name", SV_DESIGNS)
def test_a_mutant_differs_from_the_original_only_inside_its_site(name: str) -> None:
    design = sv_design(name)
    source = split_rtl(design).sources[f"rtl/{name}.sv"]
    assert isinstance(source, SvSource)
    original = design.rtl[0].read_bytes()
    sites = source.sites()
    assert [site.node_index for site in sites] == sorted(site.node_index for site in sites)
    for site in sites:
        text = source.render([site])
        assert text is not None, site.description
        mutated = text.encode()
        start, end = min(edit[0] for edit in site.edits), max(edit[1] for edit in site.edits)
        tail = len(original) - end
        assert mutated[:start] == original[:start] and mutated[len(mutated) - tail:] == original[end:]
        assert mutated[start:len(mutated) - tail] != original[start:end]
        assert original.count(b"\n", 0, start) + 1 == site.line
    for mutant in make_mutants(design, 20, 0):  # the first differing byte lies on the mutant's line
        mutated = mutant.text.encode()
        first = next(index for index, (a, b) in enumerate(zip(original, mutated)) if a != b)
        assert original.count(b"\n", 0, first) + 1 == mutant.line, mutant.description


def test_an_edit_that_breaks_the_syntax_is_dropped() -> None:
    design = sv_design("sv_stride")
    source = split_rtl(design).sources["rtl/sv_stride.sv"]
    assert isinstance(source, SvSource)
    plus = source.data.index(b"last + stride")
    good = SvSite("arithmetic_operator", source.file, 1, plus, "+ -> -", ((plus + 5, plus + 6, "-"),))
    bad = SvSite("arithmetic_operator", source.file, 1, plus, "+ -> ) (", ((plus + 5, plus + 6, ") ("),))
    assert source.render([good]) is not None and source.render([bad]) is None
    assert source.render([good, good]) is None  # overlapping edits


@pytest.mark.parametrize("name", SV_DESIGNS)
def test_the_testbench_kills_most_mutants(name: str, tmp_path: Path) -> None:
    design = sv_design(name)
    mutants = make_mutants(design, 12, 0)
    pdk, flow = get_pdk("generic"), load_flow()
    candidates = [design.with_rtl(write_mutant(design, mutant, tmp_path / str(mutant.index))) for mutant in mutants]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda candidate: evaluate(candidate, pdk, flow, with_ppa=False), candidates))
    killed = [result for result in results if not result.verified]
    assert all(result.stage == "simulate" for result in killed), [result.reason for result in killed]
    assert len(killed) >= len(mutants) * 3 // 4, f"{len(killed)} of {len(mutants)} killed"


def test_no_round_trip_check_for_files_the_printer_never_touches() -> None:
    def passes(candidate: Design) -> bool:
        raise AssertionError("the testbench should not run: there is no printed file to check")

    check_round_trip(sv_design("sv_stride"), passes)


def test_verilog_pyverilog_refuses_goes_to_pyslang(tmp_path: Path) -> None:
    text = (DESIGNS_DIR / "sv_stride" / "rtl" / "sv_stride.sv").read_text()
    design = copied("sv_stride", tmp_path, {"rtl/stride.v": text})
    assert isinstance(split_rtl(design).sources["rtl/stride.v"], SvSource)
    assert len(make_mutants(design, 10, 0)) == 10


def test_a_file_no_engine_reads_is_named_with_both_reasons(tmp_path: Path) -> None:
    alone = copied("sv_decoder", tmp_path / "alone", {"rtl/broken.v": BROKEN})
    with pytest.raises(HdlrlError, match=r"no RTL file can be mutated: rtl/broken.v: pyverilog .*; pyslang: "):
        make_mutants(alone, 10, 0)
    summary = skipped_mutants(alone, 10, 0, scored=False)
    assert summary["files"] == 1 and "pyslang" in summary["reasons"]["rtl/broken.v"]
    assert "no RTL file can be mutated" in summary["why_no_score"]

    mixed = copied("sv_decoder", tmp_path / "mixed", {"rtl/sv_decoder.sv": "", "rtl/broken.v": BROKEN})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mutants = make_mutants(mixed, 10, 0)
    assert len(mutants) == 10 and {mutant.file for mutant in mutants} == {"rtl/sv_decoder.sv"}
    assert any("1 RTL file(s) without mutants: rtl/broken.v" in str(warning.message) for warning in caught)
    assert skipped_mutants(mixed, 10, 0, scored=True) == {"files": 1, "reasons": split_rtl(mixed).skipped,
                                                          "why_no_score": None}
    assert "no mutants" in skipped_mutants(mixed, 0, 0, scored=False)["why_no_score"]
