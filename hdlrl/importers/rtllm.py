"""`hdlrl import rtllm SRC DST`: RTLLM v2.0 folders to hdlrl designs.

Each RTLLM folder holds `design_description.txt`, `testbench.v`, a reference `verified_*.v`
and sometimes data files the testbench reads. The quirks handled here:
- the testbench instantiates the name under "Module name:" in the description, while the
  reference module is called `verified_<something>` (not always the folder's name), so the
  reference's top module is renamed;
- data files travel along, beside the testbench, where it reads them by relative name;
- the description's module name sometimes disagrees with the testbench's instance; the
  testbench's wins, since it is what runs;
- some testbenches pass only on one simulator's event ordering: the importer runs the
  reference on Icarus, then Verilator, and records the first that passes;
- clocks and the reset are found from the reference's port list (clock: an input used as
  an edge in a sensitivity list; reset: an input named like a reset), the polarity from the
  name and the description, sync/async from the sensitivity lists, and the clock period
  from the testbench's `always #N clk = ~clk`.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import run_testbench
from hdlrl.evaluate.staging import stage_scratch
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.ports import DeclaredPort, declared_ports

PASS_PATTERN = "Your Design Passed"
FAIL_PATTERN = "[Ff]ailed|[Ee]rror|failures"
DEFAULT_PERIOD_NS = 10.0
_RESET_NAME = re.compile(r"(^|_)[a-z]?(rst|reset|clr|clear)(_?n|_?b|_?l)?($|_)", re.IGNORECASE)
_CLOCK_NAME = re.compile(r"^(clk|clock)(_\w+)?$|^\w+_?clk$|^clk\w*$", re.IGNORECASE)
_DATA_SUFFIXES = {".txt", ".dat", ".hex", ".mem", ".bin", ".vh", ".svh", ".list"}


@dataclass
class ImportedDesign:
    name: str
    path: Path
    clocks: list[str]
    reset: str | None
    simulator: str | None
    note: str


def module_name(description: str, path: Path) -> str:
    """The name under "Module name:" in an RTLLM description."""
    lines = description.splitlines()
    for index, line in enumerate(lines):
        if re.match(r"\s*module\s+name\s*:", line, re.IGNORECASE):
            after = line.split(":", 1)[1].strip()
            candidates = [after] + [following.strip() for following in lines[index + 1:index + 4]]
            for candidate in candidates:
                match = re.match(r"([A-Za-z_][A-Za-z0-9_]*)", candidate)
                if match:
                    return match.group(1)
    raise HdlrlError("no 'Module name:' in the description", path)


def _instantiated_undefined(testbench: str) -> list[str]:
    """Modules the testbench instantiates but does not define: the design under test."""
    tokens = tokenize(testbench)
    defined = set(_module_names(testbench))
    keywords = {"module", "begin", "end", "if", "else", "for", "while", "case", "always", "initial", "assign",
                "reg", "wire", "integer", "input", "output", "inout", "parameter", "localparam", "genvar",
                "repeat", "forever", "wait", "posedge", "negedge", "or", "and", "not", "logic", "bit",
                "int", "real", "time", "task", "function", "return", "default", "endcase", "fork", "join"}
    found = []
    for index in range(len(tokens) - 2):
        name, following = tokens[index], tokens[index + 1]
        is_instance = following.kind == "identifier" and tokens[index + 2].text == "("
        is_parameterised = following.text == "#"
        if (name.kind == "identifier" and name.text not in keywords and name.text not in defined
                and (is_instance or is_parameterised) and tokens[index - 1].text in (";", "end", ")", "endmodule")
                and name.text not in found):
            found.append(name.text)
    return found


def _module_names(text: str) -> list[str]:
    tokens = tokenize(text)
    return [tokens[i + 1].text for i, token in enumerate(tokens[:-1]) if token.text == "module"]


def _instantiated(text: str, names: list[str]) -> set[str]:
    tokens = tokenize(text)
    return {token.text for index, token in enumerate(tokens)
            if token.text in names and index > 0 and tokens[index - 1].text != "module"}


def _top_module(text: str, path: Path) -> str:
    names = _module_names(text)
    roots = [name for name in names if name not in _instantiated(text, names)]
    if not roots:
        raise HdlrlError("no top module found", path)
    return roots[0]


def _rename_module(text: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", new, text)


def _edge_signals(text: str) -> set[str]:
    """Signals that appear as `posedge X` / `negedge X`."""
    tokens = tokenize(text)
    return {tokens[i + 1].text for i, token in enumerate(tokens[:-1]) if token.text in ("posedge", "negedge")}


def _clock_periods(testbench: str) -> dict[str, float]:
    periods = {}
    for match in re.finditer(r"always\s*#\s*\(?\s*(\d+(?:\.\d+)?)\s*\)?\s*(\w+)\s*=\s*~\s*\2", testbench):
        periods[match.group(2)] = 2 * float(match.group(1))
    return periods


def _reset_polarity(name: str, description: str) -> str:
    sentence = next((line for line in description.splitlines() if re.search(rf"\b{re.escape(name)}\b", line)), "")
    if re.search(r"active[- ]low|0 for reset|low[- ]active|negative", sentence, re.IGNORECASE):
        return "low"
    if re.search(r"active[- ]high|1 for reset|high[- ]active", sentence, re.IGNORECASE):
        return "high"
    return "low" if re.search(r"(_?n|_?b|_l)$", name, re.IGNORECASE) else "high"


def detect_clocks_and_reset(ports: list[DeclaredPort], rtl: str, testbench: str, description: str
                            ) -> tuple[list[dict], dict | None]:
    edges = _edge_signals(rtl)
    inputs = [port for port in ports if port.direction == "input" and port.width == 1]
    resets = [port.name for port in inputs if _RESET_NAME.match(port.name)]
    clocks = [port.name for port in inputs if port.name not in resets
              and (_CLOCK_NAME.match(port.name) or port.name in edges)]
    periods = _clock_periods(testbench)
    default_period = next(iter(periods.values()), DEFAULT_PERIOD_NS) if len(periods) == 1 else DEFAULT_PERIOD_NS
    clock_entries = [{"name": name, "period_ns": periods.get(name, default_period)} for name in clocks]
    if not resets or not clocks:
        return clock_entries, None
    name = resets[0]
    kind = "async" if name in edges else "sync"
    return clock_entries, {"name": name, "polarity": _reset_polarity(name, description), "kind": kind}


def _port_note(port: DeclaredPort) -> str:
    """`input a[8]` for a literal width, `input a[parameterised]` where the range uses parameters."""
    width = "" if port.width == 1 else f"[{port.width or 'parameterised'}]"
    return f"{port.direction} {port.name}{width}"


def import_design(source: Path, destination: Path) -> ImportedDesign:
    """Import one RTLLM folder `source` as `destination/<module name>/`."""
    description_path = source / "design_description.txt"
    if not description_path.is_file():
        raise HdlrlError("missing design_description.txt", source)
    description = description_path.read_text(encoding="utf-8", errors="replace")
    name = module_name(description, description_path)
    references = sorted(source.glob("verified_*.v"))
    if len(references) != 1:
        raise HdlrlError(f"expected one verified_*.v reference, found {len(references)}", source)
    testbench_path = source / "testbench.v"
    if not testbench_path.is_file():
        raise HdlrlError("missing testbench.v", source)
    reference = references[0].read_text(encoding="utf-8", errors="replace")
    testbench = testbench_path.read_text(encoding="utf-8", errors="replace")
    instantiated = _instantiated_undefined(testbench)
    if len(instantiated) == 1 and instantiated[0] != name:
        # The testbench is what will run: its name wins over a description that disagrees.
        name = instantiated[0]
    old_top = _top_module(reference, references[0])
    rtl = _rename_module(reference, old_top, name) if old_top != name else reference

    target = destination / source.name
    if target.exists():
        shutil.rmtree(target)
    (target / "rtl").mkdir(parents=True)
    (target / "tb").mkdir()
    (target / "rtl" / f"{name}.v").write_text(rtl)
    (target / "tb" / "testbench.v").write_text(testbench)
    data_files = []
    for path in sorted(source.iterdir()):
        if path.is_file() and path.suffix in _DATA_SUFFIXES and path.name != "design_description.txt":
            shutil.copyfile(path, target / path.name)
            data_files.append(path.name)
    (target / "description.txt").write_text(description)

    ports = declared_ports(rtl, name)
    clocks, reset = detect_clocks_and_reset(ports, rtl, testbench, description)
    spec = {
        "name": source.name,
        "top": name,
        "description": description.strip(),
        "rtl": [f"rtl/{name}.v"],
        "testbench": {"kind": "verilog", "sources": ["tb/testbench.v"], "top": _top_module(testbench, testbench_path),
                      "pass_pattern": PASS_PATTERN, "fail_pattern": FAIL_PATTERN},
        "data_files": data_files,
        "clocks": clocks,
        "reset": reset,
        "interface": "Imported from RTLLM v2.0 (" + source.name + "); ports: "
                     + ", ".join(_port_note(port) for port in ports),
        "objective": {"area": 1.0, "delay": 1.0, "power": 1.0},
    }
    if reset is None:
        del spec["reset"]
    design_file = target / "design.yaml"
    with open(design_file, "w") as handle:
        yaml.safe_dump(spec, handle, sort_keys=False, width=100)
    spec["testbench"]["simulator"], note = calibrate_simulator(target)
    with open(design_file, "w") as handle:
        yaml.safe_dump(spec, handle, sort_keys=False, width=100)
    return ImportedDesign(source.name, target, [clock["name"] for clock in clocks], reset["name"] if reset else None,
                          spec["testbench"]["simulator"], note)


def calibrate_simulator(design_dir: Path) -> tuple[str | None, str]:
    """The first simulator on which the reference passes its own testbench, and a note.

    Testbenches written for commercial simulators can race (a check and the design sampling
    the same edge): they pass on one event ordering and fail on another. Recording where the
    reference passes means candidates are judged on the same simulator, never on a luckier one.
    """
    flow = load_flow()
    design = load_design(design_dir)
    reasons = []
    for name in (flow.simulator, flow.fallback_simulator):
        with tempfile.TemporaryDirectory(prefix="hdlrl-import-") as scratch:
            runner = ToolRunner(Path(scratch), flow.limits)
            rtl, testbench, includes = stage_scratch(design, runner.scratch)
            result = run_testbench(design, runner, rtl, testbench, includes, flow, simulator_name=name)
        if result.passed:
            return name, f"reference passes on {name}"
        reasons.append(f"{name}: {result.reason}")
    return None, "reference fails its testbench on every simulator (" + "; ".join(reasons) + ")"


def run_import(source: Path, destination: Path) -> int:
    """Import every RTLLM design folder below `source`; report one line per design."""
    if not source.is_dir():
        raise HdlrlError("RTLLM source folder not found", source)
    folders = sorted(path for path in source.iterdir() if (path / "design_description.txt").is_file())
    if not folders:
        raise HdlrlError("no RTLLM design folders (with design_description.txt) found", source)
    destination.mkdir(parents=True, exist_ok=True)
    failures = 0
    for folder in folders:
        try:
            imported = import_design(folder, destination)
            print(f"imported {imported.name:20} clocks={','.join(imported.clocks) or '-'} "
                  f"reset={imported.reset or '-'} simulator={imported.simulator or '-'}: {imported.note}")
        except HdlrlError as error:
            failures += 1
            print(f"skipped  {folder.name:20} {error}")
    print(f"{len(folders) - failures}/{len(folders)} designs imported into {destination}")
    return 0 if failures == 0 else 1
