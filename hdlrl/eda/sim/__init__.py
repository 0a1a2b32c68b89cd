"""Simulators: compile the design with its testbench, run it, and judge the printed result.

Icarus and Verilator backends return the same `SimResult`, so the cascade (and later the
gate) can switch simulators without caring which one ran. The `Simulator` base class, the
result and `judge` are in `base.py`, one backend per module; `simulator(name)` picks one.
A cocotb testbench (Python tests, not Verilog) runs through `cocotb_bench.CocotbSimulator`, which
is not imported here: that module is also the driver process run as `python -m`.
"""

from __future__ import annotations

from hdlrl.eda.sim.base import SimResult, Simulator, judge
from hdlrl.eda.sim.icarus import IcarusSimulator
from hdlrl.eda.sim.verilator import VerilatorSimulator

__all__ = ["SIMULATORS", "SimResult", "Simulator", "judge", "simulator"]

SIMULATORS: dict[str, type[Simulator]] = {"icarus": IcarusSimulator, "verilator": VerilatorSimulator}


def simulator(name: str) -> Simulator:
    """A fresh backend for `name`; a ValueError naming the known simulators otherwise."""
    if name not in SIMULATORS:
        raise ValueError(f"unknown simulator {name!r} (known: {', '.join(SIMULATORS)})")
    return SIMULATORS[name]()
