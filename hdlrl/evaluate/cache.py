"""A content-addressed cache of evaluation results, in sqlite.

The key hashes everything that can change a result: the exact bytes of the RTL (a comment
can be a translate_off pragma, so no edit is assumed harmless), the testbench and data files,
the design's clocks and reset, the flow configuration, the view's macro set, the PDK liberty
and the versions of every tool. A hit costs one indexed
lookup; a changed tool version or flow option is a different key, so stale results are
never served.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from hdlrl.design import Design
from hdlrl.eda.runner import tool_faults
from hdlrl.evaluate.result import EvalResult
from hdlrl.hdl.lexer import normalise
from hdlrl.hdl.view import VIEW_DEFINES
from hdlrl.paths import user_cache_dir
from hdlrl.pdk import Pdk
from hdlrl.serialize import to_jsonable

SCHEMA_VERSION = 3  # bump when EvalResult or the cascade changes meaning (2: the one preprocessed view;
#                    3: fast identity tells `a && b` from `a & &b`, so no verdict of the lexer-blind check is served)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rtl_digest(path: Path) -> str:
    """Digest of a source after normalisation, so comment and layout edits compare equal: what a
    resumed run checks its design against. Never a cache key (`cache_key` hashes bytes)."""
    try:
        return hashlib.sha256(normalise(path.read_text(encoding="utf-8")).encode()).hexdigest()
    except UnicodeDecodeError:
        return file_digest(path)


def cache_key(design: Design, pdk: Pdk, flow: Any, versions: dict[str, str], extra: dict | None = None) -> str:
    """sha256 of every input of the evaluation, byte for byte.

    `flow` is any flow dataclass (the evaluation's or the gate's); `extra` adds inputs of
    other jobs (the gate adds its reference sources).
    """
    material = {
        "schema": SCHEMA_VERSION,
        "top": design.top,
        "rtl": [file_digest(path) for path in design.rtl],
        "view_defines": VIEW_DEFINES,
        "testbench": {
            "kind": design.testbench.kind, "top": design.testbench.top, "module": design.testbench.module,
            "pass": design.testbench.pass_pattern, "fail": design.testbench.fail_pattern,
            "simulator": design.testbench.simulator,
            "sources": [file_digest(path) for path in design.testbench.sources],
        },
        "data": sorted((path.name, file_digest(path)) for path in design.data_files),
        "includes": sorted((str(p.relative_to(design.root)), file_digest(f))
                           for p in design.include_dirs for f in sorted(p.rglob("*")) if f.is_file()),
        "clocks": to_jsonable(design.clocks),
        "reset": to_jsonable(design.reset),
        "flow": to_jsonable(flow),
        "pdk": [pdk.name, pdk.sha256],
        "tools": versions,
        "extra": extra or {},
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


CACHE_FILE = "results.sqlite"


def default_cache_path(enabled: bool = True) -> Path | None:
    """The user's result cache, its table created once before worker processes race to; None if disabled."""
    if not enabled:
        return None
    path = user_cache_dir() / CACHE_FILE
    ResultCache(path).close()
    return path


class ResultCache:
    """Maps cache keys to result JSON (an EvalResult, or any dataclass with `from_dict`).
    Safe to share between processes (sqlite WAL)."""

    def __init__(self, path: Path | None = None):
        self.path = path or user_cache_dir() / CACHE_FILE
        self._connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                                 "created REAL NOT NULL, result TEXT NOT NULL)")

    def get(self, key: str, kind: type = EvalResult) -> Any | None:
        row = self._connection.execute("SELECT result FROM results WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        result = kind.from_dict(json.loads(row[0]))
        result.cached = True
        return result

    def put(self, key: str, result: Any) -> None:
        self._connection.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                                 (key, time.time(), json.dumps(result.to_dict())))

    def __len__(self) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def close(self) -> None:
        self._connection.close()


def cached_result(cache_path: Path | None, key: Callable[[], str], kind: type, compute: Callable[[], Any]) -> Any:
    """`compute()`'s result, or the one stored under `key()` in the cache at `cache_path`.

    With no cache path, compute without hashing anything. A computed result is stored with
    its key (`result.cache_key`) for the next caller, unless it says it timed out or a tool
    run computing it did not end by itself (a limit, a stall, a crash: `ToolRun.fault`): such
    a result depends on the machine (its speed, what else ran) or on a tool's bug, so it is not
    a verdict on the inputs the key hashes, and the next caller computes again.
    """
    if cache_path is None:
        return compute()
    digest = key()
    cache = ResultCache(cache_path)
    try:
        hit = cache.get(digest, kind)
        if hit is not None:
            return hit
        faults = tool_faults()
        result = compute()
        result.cache_key = digest
        if not getattr(result, "timed_out", False) and tool_faults() == faults:
            cache.put(digest, result)
        return result
    finally:
        cache.close()
