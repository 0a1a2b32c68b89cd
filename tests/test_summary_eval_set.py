"""The summary evaluation set (benchmarks/summary_eval): hand-written Verilog modules, each with a
one-paragraph reference specification that `hdlrl summarize --eval` scores summaries against."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from hdlrl.eda.toolchain import find_tool, has_tool
from hdlrl.hdl.rename import defined_modules
from hdlrl.summarize.reference_scores import load_references

SUMMARY_EVAL = REPO_ROOT / "benchmarks" / "summary_eval"
REFERENCES = SUMMARY_EVAL / "references.jsonl"
KINDS = ("combinational", "fsm", "counter", "shift_register", "memory", "flip_flop")


def reference_rows() -> list[dict]:
    return [json.loads(line) for line in REFERENCES.read_text().splitlines() if line.strip()]


def test_the_references_load_as_hdlrl_reads_them() -> None:
    """`hdlrl summarize --eval` must accept the file as it is, one reference per line."""
    references = load_references(REFERENCES)
    assert len(references) >= 60
    assert [reference.module for reference in references] == [row["module"] for row in reference_rows()]
    # a relative path is the references file's: scoring from the repository root still finds rtl/NAME.v
    assert all(Path(reference.path).resolve() == (SUMMARY_EVAL / "rtl" / f"{reference.module}.v").resolve()
               for reference in references)


def test_every_kind_is_covered_by_enough_modules() -> None:
    """Scores averaged over the set should not be dominated by one kind of hardware."""
    rows = reference_rows()
    assert {row["kind"] for row in rows} <= set(KINDS)
    counts = Counter(row["kind"] for row in rows)
    assert all(counts[kind] >= 8 for kind in KINDS), counts


def test_each_reference_names_its_own_file_and_module() -> None:
    """A reference matches summaries by module (and path), so both must point at the right RTL."""
    rows = reference_rows()
    names = [row["module"] for row in rows]
    assert len(names) == len(set(names)) and names == sorted(names)
    for row in rows:
        path = SUMMARY_EVAL / row["path"]
        assert path.is_file(), row["path"]
        assert path.name == f"{row['module']}.v"
        assert defined_modules(path.read_text()) == [row["module"]]
    assert {path.name for path in (SUMMARY_EVAL / "rtl").glob("*.v")} == {f"{name}.v" for name in names}


def test_each_reference_is_one_paragraph_of_40_to_120_words() -> None:
    """ROUGE-L and embedding scores are only comparable across modules for similar-length specs."""
    for row in reference_rows():
        text = row["reference"]
        assert "\n" not in text.strip(), row["module"]
        assert 40 <= len(text.split()) <= 120, (row["module"], len(text.split()))


@pytest.mark.skipif(not has_tool("iverilog"), reason="needs iverilog")
def test_all_modules_compile_together_as_verilog_2005(tmp_path: Path) -> None:
    """One compile of every file at once: each parses as Verilog-2005 and no two modules clash."""
    sources = [str(SUMMARY_EVAL / row["path"]) for row in reference_rows()]
    completed = subprocess.run([find_tool("iverilog").path, "-g2005", "-o", str(tmp_path / "all.vvp"), *sources],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
