"""Checkpoints of the step-by-step jobs (`hdlrl optimize`, `hdlrl cover`): kill -9 loses at most
the step in flight.

A run directory holds `history.jsonl` (one row per candidate or program, and one per step),
a `checkpoint-NNNN/` folder with everything needed to continue, and `checkpoint.json`, the
pointer to it, replaced atomically last: a run killed while writing a checkpoint resumes
from the previous one. History rows of steps after the checkpoint are dropped on resume, so
the history never holds a step twice.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from hdlrl.errors import HdlrlError

HISTORY = "history.jsonl"
CHECKPOINT_POINTER = "checkpoint.json"


def start_fresh(run_dir: Path) -> None:
    """Forget an earlier run's history and checkpoint in `run_dir`."""
    for stale in (HISTORY, CHECKPOINT_POINTER):
        (run_dir / stale).unlink(missing_ok=True)


def write_checkpoint(run_dir: Path, step: int, rows: list[dict], settings: dict,
                     save: Callable[[Path], None]) -> Path:
    """Append `rows` to the history, `save` a complete checkpoint folder, then point to it."""
    with open(run_dir / HISTORY, "a") as history:
        history.writelines(json.dumps(row) + "\n" for row in rows)
    folder = run_dir / f"checkpoint-{step:04d}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    save(folder)
    pointer = run_dir / (CHECKPOINT_POINTER + ".tmp")
    pointer.write_text(json.dumps({"folder": folder.name, "step": step, "settings": settings}))
    os.replace(pointer, run_dir / CHECKPOINT_POINTER)
    for old in run_dir.glob("checkpoint-*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)
    return folder


def last_checkpoint(run_dir: Path, settings: dict) -> Path | None:
    """The folder of the last checkpoint, None when there is none; an error when it belongs to
    a run with other settings (a larger budget is not a setting: it extends a finished run)."""
    pointer = run_dir / CHECKPOINT_POINTER
    if not pointer.is_file():
        return None
    checkpoint = json.loads(pointer.read_text())
    differing = [name for name, value in settings.items() if checkpoint["settings"].get(name) != value]
    if differing:
        raise HdlrlError(f"--resume: this run directory holds a run with another {', '.join(differing)}; "
                         "give another --out or the same options", pointer)
    return run_dir / checkpoint["folder"]


def drop_history_after(run_dir: Path, steps_done: int) -> None:
    """Keep the history rows of the steps the checkpoint holds, drop those of the step in flight."""
    history = run_dir / HISTORY
    if history.is_file():
        kept = [line for line in history.read_text().splitlines() if line and json.loads(line)["step"] < steps_done]
        history.write_text("".join(line + "\n" for line in kept))
