"""Executors: the process pool and Ray give the same results as a serial run."""

from __future__ import annotations

import pytest

from conftest import DESIGNS_DIR
from hdlrl.design import load_design
from hdlrl.evaluate.executors import make_executor
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.evaluate.job import EvalJob
from hdlrl.pdk import get_pdk

NAMES = ("adder16", "prio_enc8", "seq_detect", "gray_counter4")


def jobs(cache_path=None) -> list[EvalJob]:
    pdk, flow = get_pdk("generic"), load_flow()
    return [EvalJob(load_design(DESIGNS_DIR / name), pdk, flow, cache_path) for name in NAMES]


@pytest.fixture(scope="module")
def serial() -> list:
    executor = make_executor("local", 1)
    return list(executor.map(jobs()))


def test_process_pool_matches_serial(serial: list) -> None:
    executor = make_executor("local", 2)
    try:
        parallel = list(executor.map(jobs()))
    finally:
        executor.close()
    assert [result.design for result in parallel] == list(NAMES)
    assert [result.ppa for result in parallel] == [result.ppa for result in serial]


@pytest.mark.slow
def test_ray_executor_on_a_local_ray_instance(serial: list, tmp_path) -> None:
    pytest.importorskip("ray")
    executor = make_executor("ray", 2)
    try:
        results = list(executor.map(jobs(tmp_path / "cache.sqlite")))
        again = list(executor.map(jobs(tmp_path / "cache.sqlite")))
    finally:
        executor.close()
    assert [result.design for result in results] == list(NAMES)
    assert [result.ppa for result in results] == [result.ppa for result in serial]
    assert all(result.cached for result in again)  # Ray workers share the sqlite cache
