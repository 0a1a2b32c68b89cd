"""Where hdlrl keeps files between runs: `HDLRL_CACHE_DIR`, default ~/.cache/hdlrl."""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir(*parts: str) -> Path:
    """A folder under the hdlrl cache, created on first use."""
    path = Path(os.environ.get("HDLRL_CACHE_DIR") or Path.home() / ".cache" / "hdlrl").joinpath(*parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
