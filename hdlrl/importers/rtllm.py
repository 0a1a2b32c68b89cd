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
- a design is usable only when its reference passes lint, its testbench, synthesis and timing
  on the embedded PDK; the others go to `DST/.unusable/` with their first error, so that
  `DST/*` is the usable designs, and `DST/.import.json` reports every design;
- clocks, the reset, its polarity and kind are read from the RTL (`hdlrl.importers.clocking`)
  and checked by simulation (`hdlrl.importers.reset_check`); the clock period comes from the
  testbench's `always #N clk = ~clk`.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import yaml
from tqdm import tqdm

from hdlrl.design import load_design
from hdlrl.eda.runner import ToolRunner
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import evaluate
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.importers.clocking import Clocking, derive_clocking
from hdlrl.importers.reset_check import check_reset
from hdlrl.pdk import get_pdk
from hdlrl.text_tables import markdown_table
from hdlrl.hdl.lexer import tokenize
from hdlrl.hdl.ports import DeclaredPort, declared_ports

PASS_PATTERN = "Your Design Passed"
FAIL_PATTERN = "[Ff]ailed|[Ee]rror|failures"
UNUSABLE_FOLDER = ".unusable"  # hidden, so that `DST/*` is exactly the usable designs
REPORT_FILE = ".import.json"
_DATA_SUFFIXES = {".txt", ".dat", ".hex", ".mem", ".bin", ".vh", ".svh", ".list"}


@dataclass
class ImportedDesign:
    name: str
    path: Path
    clocking: Clocking
    simulator: str | None  # where the reference passes; None: not usable
    reason: str  # why it is not usable; "" when it is
    reset_check: str  # what the simulated reset check saw; "" without a reset

    @property
    def usable(self) -> bool:
        return self.simulator is not None


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


def _port_note(port: DeclaredPort) -> str:
    """`input a[8]` for a literal width, `input a[parameterised]` where the range uses parameters."""
    width = "" if port.width == 1 else f"[{port.width or 'parameterised'}]"
    return f"{port.direction} {port.name}{width}"


def _write_spec(spec: dict, design_file: Path) -> None:
    with open(design_file, "w") as handle:
        yaml.safe_dump(spec, handle, sort_keys=False, width=100)


def import_design(source: Path, destination: Path) -> ImportedDesign:
    """Import one RTLLM folder `source` as `destination/<folder>/`, or as `destination/.unusable/<folder>/`
    when its reference fails lint, its testbench on every simulator, synthesis or timing."""
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

    target = destination / UNUSABLE_FOLDER / source.name
    for earlier in (target, destination / source.name):
        if earlier.exists():
            shutil.rmtree(earlier)
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
    with tempfile.TemporaryDirectory(prefix="hdlrl-import-") as scratch:
        runner = ToolRunner(Path(scratch), load_flow().limits, readable=(target,))
        clocking = derive_clocking(target / "rtl" / f"{name}.v", name, ports, testbench, description, runner)
        reset_check = (check_reset(runner, target / "rtl" / f"{name}.v", name,
                                   [clock["name"] for clock in clocking.clocks], clocking.reset, clocking.facts)
                       if clocking.reset and clocking.facts else None)
    spec = {
        "name": source.name,
        "top": name,
        "description": description.strip(),
        "rtl": [f"rtl/{name}.v"],
        "testbench": {"kind": "verilog", "sources": ["tb/testbench.v"], "top": _top_module(testbench, testbench_path),
                      "pass_pattern": PASS_PATTERN, "fail_pattern": FAIL_PATTERN},
        "data_files": data_files,
        "clocks": clocking.clocks,
        "reset": clocking.reset,
        "interface": "Imported from RTLLM v2.0 (" + source.name + "); ports: "
                     + ", ".join(_port_note(port) for port in ports),
        "objective": {"area": 1.0, "delay": 1.0, "power": 1.0},
    }
    if clocking.reset is None:
        del spec["reset"]
    _write_spec(spec, target / "design.yaml")
    simulator, reason = usable_on(target, spec)
    if reset_check is not None and not reset_check.ok and simulator:
        simulator, reason = None, f"reset check: {reset_check.reason}"
    if simulator:
        shutil.move(target, destination / source.name)
        target = destination / source.name
    return ImportedDesign(source.name, target, clocking, simulator, reason,
                          reset_check.reason if reset_check else "")


def usable_on(design_dir: Path, spec: dict) -> tuple[str | None, str]:
    """The first simulator on which the reference passes lint, its own testbench, synthesis and timing
    on the embedded PDK, recorded in `spec` and design.yaml; or None and the first error.

    Testbenches written for commercial simulators can race (a check and the design sampling
    the same edge): they pass on one event ordering and fail on another. Recording where the
    reference passes means candidates are judged on the same simulator, never on a luckier one.
    """
    flow, pdk = load_flow(), get_pdk("generic")
    failures = []
    for name in (flow.simulator, flow.fallback_simulator):
        spec["testbench"]["simulator"] = name
        _write_spec(spec, design_dir / "design.yaml")
        result = evaluate(load_design(design_dir), pdk, flow)
        if result.verified:
            return name, ""
        if result.stage != "simulate":
            return None, f"{result.stage}: {result.reason}"  # the same on either simulator
        failures.append(f"{name}: {result.reason}")
    del spec["testbench"]["simulator"]
    _write_spec(spec, design_dir / "design.yaml")
    return None, "testbench fails on every simulator (" + "; ".join(failures) + ")"


def _report_row(imported: ImportedDesign) -> dict:
    reset = imported.clocking.reset
    return {"design": imported.name, "usable": imported.usable, "reason": imported.reason,
            "simulator": imported.simulator, "clocks": [clock["name"] for clock in imported.clocking.clocks],
            "reset": reset, "derived_from": imported.clocking.derived_from, "notes": imported.clocking.notes,
            "reset_check": imported.reset_check, "path": str(imported.path)}


def import_table(rows: list[dict]) -> str:
    """The import as a Markdown table: usable or why not, the clocks and reset, and their source."""
    def reset(row: dict) -> str:
        described = row["reset"]
        return f"{described['name']} (active-{described['polarity']}, {described['kind']})" if described else "-"

    headers = ["design", "usable", "simulator", "clocks", "reset", "derived from", "reset check (simulated)",
               "why not usable; notes"]
    return markdown_table(headers, [[row["design"], "yes" if row["usable"] else "no", row["simulator"],
                                     ", ".join(row["clocks"]) or "-", reset(row), row["derived_from"],
                                     row["reset_check"] or "-", "; ".join(filter(None, [row["reason"], *row["notes"]]))]
                                    for row in rows])


def run_import(source: Path, destination: Path, workers: int = 2, report: Path | None = None) -> int:
    """Import every RTLLM design folder below `source`; report one line per design, the whole
    import in `destination/.import.json`, and with `report` as a Markdown table there."""
    if not source.is_dir():
        raise HdlrlError("RTLLM source folder not found", source)
    folders = sorted(path for path in source.iterdir() if (path / "design_description.txt").is_file())
    if not folders:
        raise HdlrlError("no RTLLM design folders (with design_description.txt) found", source)
    destination.mkdir(parents=True, exist_ok=True)
    rows, failures = [], 0
    with ThreadPoolExecutor(max(1, workers)) as pool:  # each import mostly waits on its tools
        futures = {folder: pool.submit(import_design, folder, destination) for folder in folders}
        for folder, future in tqdm(futures.items(), desc="import", unit="design", file=sys.stderr):
            try:
                imported = future.result()
            except HdlrlError as error:
                failures += 1
                tqdm.write(f"skipped      {folder.name:20} {error}")
                continue
            rows.append(_report_row(imported))
            reset = imported.clocking.reset
            described = (f"reset={reset['name']} ({reset['polarity']}, {reset['kind']})" if reset else "reset=-")
            status = "usable    " if imported.usable else "not usable"
            tqdm.write(f"{status}   {imported.name:20} clocks={','.join(rows[-1]['clocks']) or '-'} "
                       f"{described} from {imported.clocking.derived_from}"
                       + (f": {imported.reason}" if imported.reason else "")
                       + "".join(f"; {note}" for note in imported.clocking.notes))
    (destination / REPORT_FILE).write_text(json.dumps(rows, indent=2) + "\n")
    if report:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(import_table(rows) + "\n")
    usable = sum(row["usable"] for row in rows)
    print(f"{usable} usable, {len(rows) - usable} not usable (in {destination / UNUSABLE_FOLDER}), "
          f"{failures} not imported; report: {destination / REPORT_FILE}")
    return 0 if failures == 0 else 1
