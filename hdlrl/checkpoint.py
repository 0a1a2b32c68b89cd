"""Checkpoints of the step-by-step jobs (`hdlrl optimize`, `hdlrl cover`): kill -9 loses at most
the step in flight, and a damaged checkpoint is refused, never half-loaded.

A run directory holds `history.jsonl` (one row per candidate or program, and one per step),
a `checkpoint-NNNN/` folder with everything needed to continue after step NNNN, and
`checkpoint.json`, the pointer to it. Each step's checkpoint is written in order, each part
synced before the next: the history rows are appended, the folder is written under a temporary
name and renamed, and the pointer is replaced last. The pointer records the job kind, the size
the history had, the size and sha256 of every file of the folder, and a checksum of itself, so
that resuming checks all of it: a run killed while writing a checkpoint resumes from the
previous one, and history rows past the recorded size (the step in flight, maybe torn) are cut.

A full disk while writing stops the run with one line that says what is kept (`disk_full_stops`).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from hdlrl.errors import HdlrlError

HISTORY = "history.jsonl"
CHECKPOINT_POINTER = "checkpoint.json"
SUMMARY = "summary.json"  # written by `hdlrl optimize` and `hdlrl cover` once a run has finished
VERSION = 3  # of the checkpoint: 1 had no version, kind, files or checksum; 2 had no loop_state.json (one loop for every job)
_FIELDS = ("version", "kind", "step", "folder", "history_bytes", "settings", "files", "checksum")
DISK_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EROFS)  # a write that cannot succeed until space is freed
_NEW_RUN = "start a new run with another --out"


# ---------------------------------------------------------------------- writing


@contextmanager
def disk_full_stops(path: Path, kept: str) -> Iterator[None]:
    """A full, over-quota or read-only disk while writing `path` becomes one line saying what is
    `kept`: a traceback mid-write would leave the user guessing whether resuming is safe."""
    try:
        yield
    except OSError as error:
        if error.errno not in DISK_FULL:
            raise
        reason = os.strerror(error.errno)
        raise HdlrlError(f"{reason[0].lower()}{reason[1:]} writing {error.filename or path}; {kept}") from None


def checkpoint_kept(step: int) -> str:
    """What a run that fails to write after checkpoint `step` (-1: none yet) keeps, and how to go on."""
    if step < 0:
        return "no step was checkpointed yet: free space and run again"
    return f"the checkpoint of step {step} is intact: free space and run again with --resume"


def write_checkpoint(run_dir: Path, kind: str, step: int, rows: list[dict], settings: dict,
                     save: Callable[[Path], None]) -> Path:
    """Append step `step`'s `rows` to the history, `save` the checkpoint folder, then point to it."""
    kept = checkpoint_kept(step - 1)
    history = run_dir / HISTORY
    with disk_full_stops(history, kept), open(history, "ab") as handle:
        handle.write(b"".join(json.dumps(row).encode() + b"\n" for row in rows))
        _sync(handle)
        history_bytes = handle.tell()
    folder = run_dir / f"checkpoint-{step:04d}"
    staging = run_dir / f".{folder.name}.tmp"  # not a checkpoint-* name: never taken for one
    with disk_full_stops(staging, kept):
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        save(staging)
        files = _digests(staging, sync=True)
        shutil.rmtree(folder, ignore_errors=True)  # left by a run killed before pointing to it
        staging.rename(folder)
        _sync_folder(run_dir)
    pointer = {"version": VERSION, "kind": kind, "step": step, "folder": folder.name, "history_bytes": history_bytes,
               "settings": settings, "files": files}
    pointer["checksum"] = _checksum(pointer)
    temporary = run_dir / (CHECKPOINT_POINTER + ".tmp")
    with disk_full_stops(temporary, kept):
        with open(temporary, "wb") as handle:
            handle.write(json.dumps(pointer, indent=1).encode())
            _sync(handle)
        os.replace(temporary, run_dir / CHECKPOINT_POINTER)
        _sync_folder(run_dir)
    for old in run_dir.glob("checkpoint-*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return folder


def _sync(handle: BinaryIO) -> None:
    handle.flush()
    os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Make a rename or a new entry in `folder` survive a crash."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _digests(folder: Path, sync: bool = False) -> dict[str, dict]:
    """Size and sha256 of every file under `folder`, by relative path; `sync` also flushes each
    file and folder to disk."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir():
            if sync:
                _sync_folder(path)
            continue
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
            if sync:
                _sync(handle)
        files[path.relative_to(folder).as_posix()] = {"size": path.stat().st_size, "sha256": digest.hexdigest()}
    if sync:
        _sync_folder(folder)
    return files


def _checksum(pointer: dict) -> str:
    content = {name: value for name, value in pointer.items() if name != "checksum"}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------- resuming


def open_run(run_dir: Path, kind: str, settings: dict, resume: bool) -> Path | None:
    """The checked checkpoint folder to continue from (`resume`), or None for a new run, for which
    an earlier run's history and checkpoints are removed. Resuming a directory with nothing in it
    starts a new run, and says so."""
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:
        folder = _last_checkpoint(run_dir, kind, settings)
        if folder is not None:
            return folder
        print(f"hdlrl: {run_dir}: no step was checkpointed, starting a new run", file=sys.stderr)
    for stale in (HISTORY, CHECKPOINT_POINTER, CHECKPOINT_POINTER + ".tmp"):
        (run_dir / stale).unlink(missing_ok=True)
    for old in [*run_dir.glob("checkpoint-*"), *run_dir.glob(".checkpoint-*.tmp")]:
        shutil.rmtree(old, ignore_errors=True)
    return None


def _last_checkpoint(run_dir: Path, kind: str, settings: dict) -> Path | None:
    """The folder of the last checkpoint, its files and the history checked, and the history cut
    to the rows the checkpoint holds; None when no step was checkpointed. An error when the
    checkpoint is damaged, missing while the run went past its first step, or of another job or
    settings (a larger budget is not a setting: it extends a finished run)."""
    pointer_path = run_dir / CHECKPOINT_POINTER
    history = run_dir / HISTORY
    if not pointer_path.is_file():
        later = _past_the_first_step(run_dir)
        if later:
            raise HdlrlError(f"--resume: missing, yet the run directory holds later steps ({', '.join(later)}); "
                             f"{_NEW_RUN} (or run without --resume to start over here)", pointer_path)
        return None  # killed while checkpointing its first step, if at all: that step is all there is to lose
    pointer = _read_pointer(pointer_path)
    if pointer["version"] != VERSION:
        raise HdlrlError(f"--resume: checkpoint format {pointer['version']} is not the one this hdlrl reads "
                         f"({VERSION}); {_NEW_RUN}", pointer_path)
    if pointer["kind"] != kind:
        raise HdlrlError(f"--resume: this run directory holds a run of hdlrl {pointer['kind']}, not of hdlrl {kind}; "
                         "give another --out", pointer_path)
    differing = [name for name, value in settings.items() if pointer["settings"].get(name) != value]
    if differing:
        raise HdlrlError(f"--resume: this run directory holds a run with another {', '.join(differing)}; "
                         "give another --out or the same options", pointer_path)
    folder = run_dir / pointer["folder"]
    if not folder.is_dir():
        raise _damaged(pointer_path, f"{folder.name}: missing")
    found = _digests(folder)
    for name, expected in pointer["files"].items():
        where = f"{folder.name}/{name}"
        if name not in found:
            raise _damaged(pointer_path, f"{where}: missing")
        if found[name]["size"] != expected["size"]:
            raise _damaged(pointer_path, f"{where}: {found[name]['size']} bytes, expected {expected['size']}")
        if found[name]["sha256"] != expected["sha256"]:
            raise _damaged(pointer_path, f"{where}: altered, its sha256 differs")
    data = history.read_bytes() if history.is_file() else b""
    if len(data) < pointer["history_bytes"]:
        raise _damaged(pointer_path, f"{HISTORY}: {len(data)} bytes, expected at least {pointer['history_bytes']}")
    read_rows(data[:pointer["history_bytes"]], history, "step")
    if len(data) > pointer["history_bytes"]:
        with open(history, "r+b") as handle:  # the rows of the step in flight
            handle.truncate(pointer["history_bytes"])
    return folder


def _past_the_first_step(run_dir: Path) -> list[str]:
    """The files that show a run went past its first step, whose pointer then cannot just be missing."""
    history = run_dir / HISTORY
    rows = read_rows(complete_lines(history.read_bytes()), history, "step") if history.is_file() else []
    return ([HISTORY] if any(row["step"] != 0 for row in rows) else []) + [
        folder.name for folder in sorted(run_dir.glob("checkpoint-*")) if folder.name != "checkpoint-0000"]


def _read_pointer(path: Path) -> dict:
    try:
        pointer = json.loads(path.read_bytes())
    except ValueError:
        raise _damaged(path, "not JSON") from None
    if not isinstance(pointer, dict):
        raise _damaged(path, "not a JSON object")
    missing = [name for name in _FIELDS if name not in pointer]
    if missing:  # damaged, or written before checkpoints had a format
        raise HdlrlError(f"--resume: not a checkpoint this hdlrl reads (it lacks {', '.join(missing)}); {_NEW_RUN}",
                         path)
    if pointer["checksum"] != _checksum(pointer):
        raise _damaged(path, "its checksum does not match its content")
    return pointer


def _damaged(pointer: Path, detail: str) -> HdlrlError:
    return HdlrlError(f"checkpoint is damaged ({detail}); {_NEW_RUN}", pointer)


def refuse_unfinished(run_dir: Path) -> None:
    """Without --resume, refuse a run directory whose run was checkpointed but did not finish (no
    summary.json written after its last checkpoint): starting over would throw its steps away. A
    finished run may be run again: that is asking for it anew."""
    pointer, summary = run_dir / CHECKPOINT_POINTER, run_dir / SUMMARY
    if pointer.is_file() and not (summary.is_file() and summary.stat().st_mtime_ns >= pointer.stat().st_mtime_ns):
        raise HdlrlError("this run directory holds a run that did not finish: continue it with --resume, "
                         "or give another --out", run_dir)


# ---------------------------------------------------------------------- JSON lines


def complete_lines(data: bytes) -> bytes:
    """`data` up to its last newline: a line torn by a kill is not a row."""
    return data[:data.rfind(b"\n") + 1]


def read_rows(data: bytes, path: Path, key: str) -> list[dict]:
    """The rows of the JSON lines `data`, each an object with `key`; a line that is not is an error
    naming `path` and the line: a resumed job must not build on a damaged record, nor drop it unsaid."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict) or key not in row:
            raise HdlrlError(f"corrupt row (not a JSON object with {key!r}): mend or delete the line, or {_NEW_RUN}",
                             path, number)
        rows.append(row)
    return rows
