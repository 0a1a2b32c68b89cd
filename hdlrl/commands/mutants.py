"""`hdlrl mutants`: seeded mutants of a design's RTL, each a full RTL folder, plus an index."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from hdlrl.design import load_design
from hdlrl.errors import HdlrlError
from hdlrl.evaluate.cascade import evaluate
from hdlrl.evaluate.eval_flow import load_flow
from hdlrl.hdl.design_files import write_mutant
from hdlrl.hdl.mutants import check_round_trip, make_mutants
from hdlrl.pdk import get_pdk

INDEX_FILE = "mutants.json"


def run_mutants(arguments: argparse.Namespace) -> int:
    """Write `--n` mutants under `--out`/mutant_NNN/ after checking the AST round trip is faithful.

    The round-trip check runs the design's testbench once on the unparsed reference, so a
    mutant never differs from the design by a printer bug as well as by its own edit.
    """
    if arguments.n < 1:
        raise HdlrlError(f"--n must be at least 1, got {arguments.n}")
    design = load_design(arguments.design)
    pdk, flow = get_pdk("generic"), load_flow()
    check_round_trip(design, lambda candidate: evaluate(candidate, pdk, flow).verified)
    mutants = make_mutants(design, arguments.n, arguments.seed)
    arguments.out.mkdir(parents=True, exist_ok=True)
    for mutant in mutants:
        write_mutant(design, mutant, arguments.out / f"mutant_{mutant.index:03d}")
    index = [{key: value for key, value in asdict(mutant).items() if key != "text"} for mutant in mutants]
    (arguments.out / INDEX_FILE).write_text(json.dumps(index, indent=2) + "\n")
    print(f"{len(mutants)} mutants of {design.name} written to {arguments.out}"
          + ("" if len(mutants) == arguments.n else f" (the design has only {len(mutants)} distinct ones)"))
    return 0
