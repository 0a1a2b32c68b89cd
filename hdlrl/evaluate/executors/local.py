"""A local process pool; with one worker it runs jobs in this process (no pickling, no fork)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any
from concurrent.futures import ProcessPoolExecutor

from hdlrl.evaluate.job import Job, execute


class LocalExecutor:
    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)
        self._pool = ProcessPoolExecutor(self.workers) if self.workers > 1 else None

    def map(self, jobs: Iterable[Job]) -> Iterator[Any]:
        if self._pool is None:
            return map(execute, jobs)
        return self._pool.map(execute, jobs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
