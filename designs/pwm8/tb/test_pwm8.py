"""cocotb tests of pwm8: duty cycles, period pulses and loads against a cycle-accurate Python model."""

import random
from dataclasses import dataclass

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge

PERIOD = 256


@dataclass
class Pwm8Model:
    """The registers of pwm8 and the outputs they drive, stepped one rising edge at a time."""

    count: int = 0
    duty: int = 0
    pending_duty: int = 0

    def step(self, reset: int, load: int, duty_in: int) -> None:
        if reset:
            self.count = self.duty = self.pending_duty = 0
            return
        if self.period_end:
            self.duty = duty_in if load else self.pending_duty
        if load:
            self.pending_duty = duty_in
        self.count = (self.count + 1) % PERIOD

    @property
    def pwm(self) -> int:
        return int(self.count < self.duty)

    @property
    def period_end(self) -> int:
        return int(self.count == PERIOD - 1)


async def reset(dut) -> Pwm8Model:
    """Start the 10 ns clock, hold rst for two edges, and return the model in its reset state."""
    Clock(dut.clk, 10, unit="ns").start()
    dut.rst.value = 1
    dut.load.value = 0
    dut.duty_in.value = 0
    for _ in range(2):
        await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    return Pwm8Model()


async def cycle(dut, model: Pwm8Model, load: int = 0, duty_in: int = 0, reset_now: int = 0) -> None:
    """Drive the inputs for one rising edge, step the model, and compare both outputs after it."""
    dut.rst.value, dut.load.value, dut.duty_in.value = reset_now, load, duty_in
    await RisingEdge(dut.clk)
    model.step(reset_now, load, duty_in)
    await FallingEdge(dut.clk)
    dut.rst.value, dut.load.value = 0, 0
    assert int(dut.pwm.value) == model.pwm, f"count {model.count}, duty {model.duty}: pwm {int(dut.pwm.value)}"
    assert int(dut.period_end.value) == model.period_end, (
        f"count {model.count}: period_end {int(dut.period_end.value)}, expected {model.period_end}")


@cocotb.test()
async def duty_cycle_per_period(dut) -> None:
    """Each loaded duty gives exactly that many high cycles per period and one period_end pulse."""
    model = await reset(dut)
    for duty in (0, 1, 64, 128, 200, 255):
        await cycle(dut, model, load=1, duty_in=duty)
        while not model.period_end:  # the rest of this period still runs the previous duty
            await cycle(dut, model)
        high_cycles, pulses = 0, 0
        for _ in range(PERIOD):
            await cycle(dut, model)
            high_cycles += int(dut.pwm.value)
            pulses += int(dut.period_end.value)
        assert high_cycles == duty, f"duty {duty}: pwm high for {high_cycles} of {PERIOD} cycles"
        assert pulses == 1, f"duty {duty}: {pulses} period_end pulses in one period"


@cocotb.test()
async def random_loads_and_resets(dut) -> None:
    """Loads at random times (some in the last cycle of a period) and rare resets, cycle by cycle."""
    model = await reset(dut)
    rng = random.Random(256)
    for _ in range(3 * PERIOD):
        load = int(rng.random() < 0.02 or (model.period_end and rng.random() < 0.5))
        await cycle(dut, model, load=load, duty_in=rng.randrange(PERIOD), reset_now=int(rng.random() < 0.003))
