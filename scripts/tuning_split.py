"""The tuning split of a benchmark, fixed before any tuning on it.

A design is in the tuning split when sha256(name) mod 3 == 0; the rest are the test split,
whose results are looked at only for the closing figures. It splits the imported RTLLM designs
(issue 20's optimiser; tuning also uses the project's own designs, which hold the adders and
multipliers the RTLLM tuning split lacks), the hard-coverage designs (issue 21's stimulus
generation) and the summary evaluation set (issue 22's summaries; a file counts by its stem).

    python scripts/tuning_split.py /tmp/rtllm/*                 # prints: tune: ... / test: ...
    python scripts/tuning_split.py designs/hard_coverage/*
    python scripts/tuning_split.py benchmarks/summary_eval/rtl/*.v
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def in_tuning_split(name: str) -> bool:
    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % 3 == 0


def main(paths: list[str]) -> None:
    names = sorted(Path(path).stem for path in paths)
    print("tune:", " ".join(name for name in names if in_tuning_split(name)))
    print("test:", " ".join(name for name in names if not in_tuning_split(name)))


if __name__ == "__main__":
    main(sys.argv[1:])
