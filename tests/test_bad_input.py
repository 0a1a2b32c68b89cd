"""Untrusted candidate RTL and broken inputs: each refused or contained with a one-line error,
and nothing written outside the scratch directory."""

from __future__ import annotations

import json
import math
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import DESIGNS_DIR
from hdlrl.cli import main
from hdlrl.eda.runner import CPU_KILL_MARGIN_S, RLIMIT_CPU_FACTOR, Limits, ToolRunner
from hdlrl.eda.toolchain import find_tool

ADDER = DESIGNS_DIR / "adder16"


def adder_with(body: str) -> str:
    """A candidate for designs/adder16 with `body` added inside the module."""
    source = (ADDER / "rtl" / "adder16.v").read_text()
    return source.replace("endmodule", body + "\nendmodule", 1)


def run_eval(capsys: pytest.CaptureFixture[str], candidate: Path, *extra: str) -> tuple[int, str]:
    code = main(["eval", str(ADDER), "--rtl", str(candidate), "--no-cache", *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture
def sentinel_dir(tmp_path: Path) -> Path:
    """A folder outside any scratch directory: nothing may appear in it."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("body, refusal", [
    ('initial $system("touch SENTINEL/pwned");', r"adder16.v:\d+: system task \$system is refused"),
    ('integer f; initial f = $fopen("SENTINEL/pwned", "w");', r"system task \$fopen is refused"),
    ('reg [7:0] m [0:3]; initial $readmemh("/etc/passwd", m);', r"\$readmemh\(\"/etc/passwd\"\) points outside"),
    ('initial $dumpfile("../../SENTINEL/x.vcd");', r"\$dumpfile\(.*\) points outside the design folder"),
    ('`include "/etc/passwd"', r"`include \"/etc/passwd\" lies outside the design folder"),
    ('reg [31:0] huge [0:(1<<30)-1];', r"memory declaration of 34359738368 bits exceeds the limit"),
    ('initial $c("system(\\"id\\")");', r"system task \$c is refused"),
])
def test_unsafe_candidates_are_refused(tmp_path: Path, sentinel_dir: Path, capsys, body: str, refusal: str) -> None:
    candidate = tmp_path / "adder16.v"
    candidate.write_text(adder_with(body.replace("SENTINEL", str(sentinel_dir))))
    code, output = run_eval(capsys, candidate, "--json")
    assert code == 1
    result = json.loads(output)
    assert result["stage"] == "screen" and not result["verified"]
    assert re.search(refusal, result["reason"]), result["reason"]
    assert "\n" not in result["reason"]
    assert list(sentinel_dir.iterdir()) == []


def test_refusal_inside_a_comment_or_string_is_not_a_refusal(tmp_path: Path, capsys) -> None:
    candidate = tmp_path / "adder16.v"
    candidate.write_text(adder_with('// $system("rm -rf /") is only a comment\n'
                                    'initial if (0) $display("$fopen is just text");'))
    code, output = run_eval(capsys, candidate)
    assert code == 0, output


def test_forever_loop_without_delay_is_stopped_by_the_time_limit(tmp_path: Path, capsys) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text((Path(__file__).parents[1] / "flows" / "eval.yaml").read_text()
                    .replace("simulation_time_s: 60", "simulation_time_s: 3"))
    candidate = tmp_path / "adder16.v"
    candidate.write_text(adder_with("reg spin; initial forever spin = ~spin;"))
    started = time.monotonic()
    code, output = run_eval(capsys, candidate, "--flow", str(flow), "--json")
    assert time.monotonic() - started < 30
    assert code == 1
    assert '"stage": "simulate"' in output
    assert "simulation exceeded 3 s (a loop without delay" in output


def test_huge_parameterised_memory_is_contained_by_the_memory_limit(tmp_path: Path) -> None:
    """The screen cannot evaluate parameters; the address-space limit contains what it misses."""
    source = tmp_path / "scratch" / "huge.v"
    source.parent.mkdir()
    source.write_text("module huge; parameter N = 1 << 29; reg [63:0] m [0:N-1];\n"
                      "initial begin m[N-1] = 1; $display(\"%d\", m[N-1]); end endmodule\n")
    runner = ToolRunner(source.parent, Limits(time_s=60, memory_mb=512))
    compiled = runner.run([find_tool("iverilog").path, "-o", "huge.vvp", "huge.v"])
    assert compiled.ok, compiled.output
    run = runner.run([find_tool("vvp").path, "-n", "huge.vvp"])
    assert not run.ok and run.memory_exceeded, (run.returncode, run.output[-500:])


def test_non_utf8_source_is_refused_with_its_line(tmp_path: Path, capsys) -> None:
    candidate = tmp_path / "adder16.v"
    candidate.write_bytes(adder_with("").encode().replace(b"endmodule", b"// caf\xe9\nendmodule"))
    code, output = run_eval(capsys, candidate, "--json")
    assert code == 1
    assert "source is not valid UTF-8 (byte 0xe9)" in output
    assert f"{candidate}:" in output


def test_malformed_design_yaml_is_one_line_on_the_command_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "design.yaml").write_text("top: [unclosed\n")
    code = main(["eval", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("hdlrl: error: ") and "design.yaml:" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.skipif(not find_tool("bwrap").usable, reason="bubblewrap is not installed")
def test_sandbox_keeps_the_host_read_only_and_offline(tmp_path: Path, sentinel_dir: Path) -> None:
    scratch = tmp_path / "scratch"
    runner = ToolRunner(scratch, Limits(time_s=20))
    assert runner.sandboxed
    host_file = Path(__file__).parent / "escaped-from-sandbox"
    outside = runner.run(["sh", "-c", f"echo x > {host_file}"])
    # A checkout under /tmp is hidden by the private /tmp; anywhere else it is read-only.
    hidden = Path(__file__).resolve().is_relative_to("/tmp")
    assert not outside.ok and ("Directory nonexistent" if hidden else "Read-only file system") in outside.output
    assert not host_file.exists()
    private_tmp = runner.run(["sh", "-c", f"echo x > {sentinel_dir}/escaped"])
    assert not private_tmp.ok  # the host's /tmp is not even visible
    inside = runner.run(["sh", "-c", "echo x > inside && cat inside"])
    assert inside.ok and (scratch / "inside").read_text() == "x\n"
    network = runner.run(["cat", "/proc/net/dev"])  # interfaces of the sandbox's network namespace
    interfaces = [line.split(":")[0].strip() for line in network.stdout.splitlines()[2:]]
    assert network.ok and interfaces == ["lo"]
    assert list(sentinel_dir.iterdir()) == []


def test_time_limit_kills_the_whole_process_group(tmp_path: Path) -> None:
    """Two CPU burners, one in the background: the CPU limit stops both, and the run ends.

    Bounded in CPU seconds, not wall time, as the runner is: on a loaded machine the burners
    reach their limit later, never after more CPU. A run that outlived its stall bound
    would report limit_hit "wall" or "idle", not "cpu".
    """
    runner = ToolRunner(tmp_path / "scratch", Limits(time_s=1))
    burn = "while :; do :; done"  # a shell loop: the sandbox hides /tmp, where a checkout's Python may live
    run = runner.run(["sh", "-c", f"({burn}) & {burn}; wait"])
    assert run.timed_out and not run.ok and run.limit_hit == "cpu"
    assert run.cpu_s < 2 * (math.ceil(RLIMIT_CPU_FACTOR) + CPU_KILL_MARGIN_S) + 1


def _design_copy(tmp_path: Path, name: str, edit) -> Path:
    """designs/`name` copied under tmp_path with `edit(text)` applied to its design.yaml."""
    folder = tmp_path / name
    shutil.copytree(DESIGNS_DIR / name, folder)
    text = (folder / "design.yaml").read_text()
    edited = edit(text)
    assert edited != text, "the edit did not apply"
    (folder / "design.yaml").write_text(edited)
    return folder


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    started = time.monotonic()
    code = main(argv)
    captured = capsys.readouterr()
    assert time.monotonic() - started < 30
    assert code == 2 and captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    return captured.err


def test_yaml_alias_bomb_is_refused_at_its_line_at_once(tmp_path: Path, capsys) -> None:
    bomb = "".join(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]\n" for level in range(1, 10))
    folder = _design_copy(tmp_path, "alu8", lambda text: "l0: &l0 [x]\n" + bomb + text)
    error = _one_line_error(capsys, ["eval", str(folder)])
    assert f"{folder / 'design.yaml'}:1: YAML anchors and aliases are refused" in error


@pytest.mark.parametrize("value", [".inf", ".nan", "-.inf"])
def test_a_clock_period_that_is_not_a_finite_number_is_refused(tmp_path: Path, capsys, value: str) -> None:
    folder = _design_copy(tmp_path, "mac8", lambda text: re.sub(r"period_ns: [0-9.]+", f"period_ns: {value}", text))
    error = _one_line_error(capsys, ["eval", str(folder)])
    assert "design.yaml:" in error and "period_ns: must be a finite number" in error


def test_command_line_counts_and_folders_are_checked(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["optimize", str(DESIGNS_DIR / "alu8"), "--budget", "0"])
    assert exited.value.code == 2 and "--budget: must be at least 1, got 0" in capsys.readouterr().err
    error = _one_line_error(capsys, ["eval", str(DESIGNS_DIR / "alu8"), "--pdk-dir", str(tmp_path / "nowhere")])
    assert f"{tmp_path / 'nowhere'}: PDK folder not found" in error
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("hdlrl ")


@pytest.mark.parametrize("command", ["eval", "gate"])
def test_a_location_names_the_users_file_not_the_sandbox_copy(tmp_path: Path, capsys, command: str) -> None:
    candidate = tmp_path / "my_adder.v"
    candidate.write_text(adder_with("wire broken = 1'b0 1'b1;"))
    code = main([command, str(ADDER), "--rtl", str(candidate), "--no-cache", "--json"])
    reason = json.loads(capsys.readouterr().out)["reason"]
    assert code == 1 and reason.startswith(f"{candidate}:"), reason
    assert "candidate/" not in reason
