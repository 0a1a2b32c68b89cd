"""`tools.lock`: the pinned versions of the EDA tools and the sha256 of each downloadable PDK.

Both the tool discovery (`hdlrl.eda.toolchain`) and the PDK installer (`hdlrl.pdk.install`)
read it, so it lives below both.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

# Package data (hdlrl/tools.lock); the repository's tools.lock is a symlink to it.
TOOLS_LOCK = Path(__file__).resolve().parent / "tools.lock"


def load_lock(path: Path = TOOLS_LOCK) -> dict:
    with open(path, "rb") as handle:
        return tomllib.load(handle)
