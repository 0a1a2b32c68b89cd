"""Ray: the same jobs on a cluster (`--ray-address`) or a local Ray instance.

Each job is a Ray task needing one CPU; Ray's scheduler, not ours, places them. Sources,
testbenches and liberty files travel inside the job, so workers need only the tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from hdlrl.errors import HdlrlError
from hdlrl.evaluate.job import Job, execute


class RayExecutor:
    def __init__(self, workers: int = 1, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise HdlrlError("the Ray executor needs `pip install ray`") from None
        self._ray = ray
        self.workers = max(1, workers)
        self._started_here = not ray.is_initialized()
        if self._started_here:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=self.workers, include_dashboard=False, log_to_driver=False)
        self._remote = ray.remote(num_cpus=1)(execute)

    def map(self, jobs: Iterable[Job]) -> Iterator[Any]:
        # Keep at most 2 x workers tasks in flight so a long job list does not flood the object store.
        pending = []
        for job in jobs:
            pending.append(self._remote.remote(job))
            if len(pending) >= 2 * self.workers:
                yield self._ray.get(pending.pop(0))
        for reference in pending:
            yield self._ray.get(reference)

    def close(self) -> None:
        if self._started_here:
            self._ray.shutdown()
