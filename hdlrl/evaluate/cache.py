"""A content-addressed cache of evaluation results, in sqlite.

The key hashes everything that can change a result: the normalised RTL (comments and
layout removed), the testbench and data files, the design's clocks and reset, the flow
configuration, the PDK liberty and the versions of every tool. A hit costs one indexed
lookup; a changed tool version or flow option is a different key, so stale results are
never served.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from pathlib import Path

from hdlrl.design import Design
from hdlrl.evaluate.flow import EvalFlow
from hdlrl.evaluate.result import EvalResult
from hdlrl.hdl.lexer import normalise
from hdlrl.paths import user_cache_dir
from hdlrl.pdk import Pdk
from hdlrl.serialize import to_jsonable

SCHEMA_VERSION = 1  # bump when EvalResult or the cascade changes meaning


def cache_key(design: Design, pdk: Pdk, flow: EvalFlow, versions: dict[str, str]) -> str:
    """sha256 of every input of the evaluation, with RTL compared after normalisation."""
    def file_digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    def rtl_digest(path: Path) -> str:
        try:
            return hashlib.sha256(normalise(path.read_text(encoding="utf-8")).encode()).hexdigest()
        except UnicodeDecodeError:
            return file_digest(path)

    material = {
        "schema": SCHEMA_VERSION,
        "top": design.top,
        "rtl": [rtl_digest(path) for path in design.rtl],
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
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


class ResultCache:
    """Maps cache keys to EvalResult JSON. Safe to share between processes (sqlite WAL)."""

    def __init__(self, path: Path | None = None):
        self.path = path or user_cache_dir() / "results.sqlite"
        self._connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                                 "created REAL NOT NULL, result TEXT NOT NULL)")

    def get(self, key: str) -> EvalResult | None:
        row = self._connection.execute("SELECT result FROM results WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        result = EvalResult.from_dict(json.loads(row[0]))
        result.cached = True
        return result

    def put(self, key: str, result: EvalResult) -> None:
        self._connection.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                                 (key, time.time(), json.dumps(result.to_dict())))

    def __len__(self) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def close(self) -> None:
        self._connection.close()
