"""Executors run many jobs (evaluations, gate verdicts) at once: a local process pool, or Ray for clusters."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from hdlrl.evaluate.job import Job


class Executor(Protocol):
    workers: int

    def map(self, jobs: Iterable[Job]) -> Iterator[Any]:
        """Results in the order of `jobs`, computed `workers` at a time."""
        ...

    def close(self) -> None:
        ...


def make_executor(kind: str = "local", workers: int = 1, ray_address: str | None = None) -> Executor:
    if kind == "local":
        from hdlrl.evaluate.executors.local import LocalExecutor

        return LocalExecutor(workers)
    if kind == "ray":
        from hdlrl.evaluate.executors.ray import RayExecutor

        return RayExecutor(workers, ray_address)
    raise ValueError(f"unknown executor {kind!r} (known: local, ray)")
