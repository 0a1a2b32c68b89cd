"""`hdlrl tools`: which EDA tools are found, missing or at the wrong version."""

from __future__ import annotations

from hdlrl.eda.toolchain import find_tool, tool_specs
from hdlrl.text_tables import text_table


def run_tools() -> int:
    rows, broken = [], []
    for name, spec in tool_specs().items():
        status = find_tool(name)
        if status.usable:
            state = "ok" if status.version == spec.tested else f"ok (tested {spec.tested})"
        elif status.path is None:
            state = "missing" if spec.required else "missing (optional)"
        else:
            state = "mismatch"
        rows.append((name, state, status.version, status.path, status.problem or ""))
        if not status.usable and spec.required:
            broken.append(name)
    print(text_table(("tool", "status", "version", "path", "note"), rows))
    if not find_tool("openroad").usable:
        print("notice: openroad not found; timing and power use OpenSTA")
    if broken:
        print(f"hdlrl: {len(broken)} required tool(s) unusable: {', '.join(broken)} (run `make setup`)")
        return 1
    return 0
