"""Tool discovery: versions against tools.lock, environment overrides, actionable messages."""

from __future__ import annotations

import pytest

from hdlrl.cli import main
from hdlrl.eda.toolchain import find_tool, meets_requirement, require_tool, tool_specs
from hdlrl.errors import ToolMissingError


def test_requirements_compare_numerically() -> None:
    assert meets_requirement("0.23", ">=0.23")
    assert meets_requirement("0.100", ">=0.23")  # 100 > 23, not a string comparison
    assert not meets_requirement("0.9", ">=0.23")
    assert meets_requirement("5.006", "==5.006")
    assert not meets_requirement("2.0.17", ">2.0.17")


@pytest.mark.parametrize("name", ["iverilog", "vvp", "verilator", "yosys", "sta"])
def test_required_tools_are_found_at_a_locked_version(name: str) -> None:
    status = require_tool(name)
    assert status.usable
    assert meets_requirement(status.version, tool_specs()[name].requirement)


def test_environment_variable_overrides_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HDLRL_YOSYS", "/nonexistent/yosys")
    status = find_tool("yosys")
    assert not status.usable and "HDLRL_YOSYS" in status.problem
    with pytest.raises(ToolMissingError, match="yosys: not found"):
        require_tool("yosys")


def test_version_mismatch_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    fake = tmp_path / "yosys"
    fake.write_text("#!/bin/sh\necho 'Yosys 0.9 (git sha1 0)'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("HDLRL_YOSYS", str(fake))
    status = find_tool("yosys")
    assert status.version == "0.9"
    assert "does not meet >=0.23" in status.problem


def test_unreadable_version_says_what_the_tool_printed(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    # iverilog cannot make its temporary file when TMPDIR names no folder: the reason must reach the user
    (tmp_path / "iverilog").symlink_to(require_tool("iverilog").path)  # a path of its own: probes are cached by path
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    monkeypatch.setenv("HDLRL_IVERILOG", str(tmp_path / "iverilog"))
    status = find_tool("iverilog")
    assert not status.usable and "printed no version" in status.problem and "TMPDIR" in status.problem


def test_tools_command_lists_every_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools"]) == 0
    output = capsys.readouterr().out
    for name in tool_specs():
        assert name in output
    if not find_tool("openroad").usable:
        assert "notice: openroad not found" in output


def test_tools_command_fails_with_a_missing_required_tool(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HDLRL_STA", "/nonexistent/sta")
    assert main(["tools"]) == 1
    output = capsys.readouterr().out
    assert "sta" in output and "required tool(s) unusable: sta" in output
