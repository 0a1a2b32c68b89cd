"""The content-addressed result cache: same answers on a second run, invalidated by what matters."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.eda.synth.yosys import SynthOptions
from hdlrl.evaluate import job as job_module
from hdlrl.evaluate.cache import ResultCache, cache_key
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.pdk import get_pdk

VERSIONS = {"yosys": "0.23", "sta": "2.0.17"}


@pytest.fixture
def design():
    return load_design(DESIGNS_DIR / "gray_counter4")


def test_second_run_is_served_from_the_cache_with_the_same_numbers(tmp_path: Path, design) -> None:
    job = EvalJob(design, get_pdk("generic"), load_flow(), tmp_path / "cache.sqlite")
    first = run_job(job)
    started = time.perf_counter()
    second = run_job(job)
    elapsed = time.perf_counter() - started
    assert first.verified and not first.cached
    assert second.cached and second.cache_key == first.cache_key
    assert second.ppa == first.ppa
    assert second.synthesis.cells == first.synthesis.cells
    assert second.timing.tns_ns == first.timing.tns_ns
    assert elapsed < first.wall_s / 5  # a hit runs no tool
    assert len(ResultCache(tmp_path / "cache.sqlite")) == 1


def test_key_covers_every_byte_comments_and_layout_included(tmp_path: Path, design) -> None:
    """A comment can be a translate_off pragma, and a huge comment file once got another file's
    verdict: the key hashes the bytes, so no edit is assumed harmless."""
    pdk, flow = get_pdk("generic"), load_flow()
    source = design.rtl[0].read_text()
    copy = tmp_path / "copy.v"
    copy.write_text(source)
    variants = {
        "comment": "// a new comment\n" + source,
        "layout": source.replace(";", " ;"),
        "pragma": source.replace("endmodule", "// synopsys translate_off\n// synopsys translate_on\nendmodule"),
        "logic": source.replace("1'b1", "1'b0", 1) if "1'b1" in source else source + "\nmodule extra; endmodule\n",
    }
    reference_key = cache_key(design, pdk, flow, VERSIONS)
    assert cache_key(design.with_rtl((copy,)), pdk, flow, VERSIONS) == reference_key  # same bytes, same key
    keys = set()
    for name, text in variants.items():
        path = tmp_path / f"{name}.v"
        path.write_text(text)
        keys.add(cache_key(design.with_rtl((path,)), pdk, flow, VERSIONS))
    assert reference_key not in keys and len(keys) == len(variants)


def test_changed_tool_version_or_flow_option_invalidates(design) -> None:
    pdk, flow = get_pdk("generic"), load_flow()
    key = cache_key(design, pdk, flow, VERSIONS)
    assert cache_key(design, pdk, flow, {**VERSIONS, "yosys": "0.24"}) != key
    assert cache_key(design, pdk, replace(flow, synthesis=SynthOptions(abc_script="-D 500")), VERSIONS) != key
    assert cache_key(design, pdk, replace(flow, simulation_time_s=5.0), VERSIONS) != key
    assert cache_key(design, replace(pdk, sha256="0" * 64), flow, VERSIONS) != key


def test_a_new_tool_version_reruns_the_tools(tmp_path: Path, design, monkeypatch: pytest.MonkeyPatch) -> None:
    job = EvalJob(design, get_pdk("generic"), load_flow(), tmp_path / "cache.sqlite")
    assert not run_job(job).cached
    assert run_job(job).cached
    original = job_module.tool_versions
    monkeypatch.setattr(job_module, "tool_versions", lambda names: {**original(names), "yosys": "9.99"})
    rerun = run_job(job)
    assert not rerun.cached and rerun.verified
