"""`hdlrl pdk install NAME`: fetch a third-party liberty and check it against tools.lock.

The URL and sha256 live in tools.lock, so an installed PDK is exactly the one the results
were measured with. Offline, the download fails with a one-line error, never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

from hdlrl.tools_lock import load_lock
from hdlrl.errors import HdlrlError


def lock_entry(name: str) -> dict:
    entries = load_lock().get("pdk", {})
    if name not in entries:
        raise HdlrlError(f"no PDK {name!r} in tools.lock (known: {', '.join(entries)})")
    return entries[name]


def install_pdk(name: str, destination: Path, url: str | None = None, timeout_s: float = 60.0) -> Path:
    """Download PDK `name` into `destination`, verify its sha256, and return the file's path."""
    entry = lock_entry(name)
    url = url or entry["url"]
    target = destination / entry["file"]
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"]:
        return target
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        raise HdlrlError(f"cannot download PDK {name!r} from {url}: {reason} (offline? copy {entry['file']} "
                         "into HDLRL_PDK_DIR instead)") from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != entry["sha256"]:
        raise HdlrlError(f"PDK {name!r} from {url} has sha256 {digest}, tools.lock pins {entry['sha256']}; "
                         "not installed")
    destination.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial{os.getpid()}")
    partial.write_bytes(payload)
    partial.replace(target)
    return target
