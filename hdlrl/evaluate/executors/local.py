"""A local process pool; with one worker it runs jobs in this process (no pickling, no fork)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

from hdlrl.evaluate.job import EvalJob, run_job
from hdlrl.evaluate.result import EvalResult


class LocalExecutor:
    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)
        self._pool = ProcessPoolExecutor(self.workers) if self.workers > 1 else None

    def map(self, jobs: Iterable[EvalJob]) -> Iterator[EvalResult]:
        if self._pool is None:
            return map(run_job, jobs)
        return self._pool.map(run_job, jobs)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
