"""cocotb tests of crc8: byte streams against a bitwise Python model of CRC-8/SMBUS."""

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer


def crc8_reference(crc: int, byte: int) -> int:
    """One byte into the CRC-8 register, most significant bit first (polynomial 0x07)."""
    for bit_index in range(7, -1, -1):
        feedback = ((crc >> 7) ^ (byte >> bit_index)) & 1
        crc = ((crc << 1) & 0xFF) ^ (0x07 if feedback else 0)
    return crc


async def reset(dut) -> None:
    """Start the 10 ns clock and hold rst_n low for two cycles, inputs idle."""
    Clock(dut.clk, 10, unit="ns").start()
    dut.rst_n.value = 0
    dut.clr.value = 0
    dut.en.value = 0
    dut.data.value = 0
    await ClockCycles(dut.clk, 2)
    await FallingEdge(dut.clk)
    dut.rst_n.value = 1
    await FallingEdge(dut.clk)
    assert int(dut.crc.value) == 0, "crc is not 0 after reset"
    assert int(dut.valid.value) == 0, "valid is not 0 after reset"


async def send(dut, byte: int, enable: int = 1) -> None:
    """Drive one byte for one rising edge; inputs change on the falling edge."""
    dut.data.value = byte
    dut.en.value = enable
    await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.en.value = 0


@cocotb.test()
async def check_value_of_known_string(dut) -> None:
    """The standard check value: CRC-8/SMBUS of b"123456789" is 0xF4."""
    await reset(dut)
    for byte in b"123456789":
        await send(dut, byte)
        assert int(dut.valid.value) == 1, "valid is not 1 the cycle after an enabled byte"
    assert int(dut.crc.value) == 0xF4, f"crc of '123456789' is {int(dut.crc.value):#04x}, expected 0xf4"
    await FallingEdge(dut.clk)
    assert int(dut.valid.value) == 0, "valid stays 1 without en"


@cocotb.test()
async def random_stream_with_gaps_and_clear(dut) -> None:
    """Random bytes, some not enabled, and clears: crc and valid follow the model every cycle."""
    await reset(dut)
    rng = random.Random(8)
    expected_crc, expected_valid = 0, 0
    for cycle in range(400):
        byte, enable, clear = rng.randrange(256), int(rng.random() < 0.7), int(rng.random() < 0.05)
        dut.clr.value = clear
        await send(dut, byte, enable)
        dut.clr.value = 0
        if clear:
            expected_crc, expected_valid = 0, 0
        else:
            expected_crc = crc8_reference(expected_crc, byte) if enable else expected_crc
            expected_valid = enable
        assert int(dut.crc.value) == expected_crc, (
            f"cycle {cycle}: crc {int(dut.crc.value):#04x}, expected {expected_crc:#04x}")
        assert int(dut.valid.value) == expected_valid, f"cycle {cycle}: valid {int(dut.valid.value)}"


@cocotb.test()
async def asynchronous_reset_mid_stream(dut) -> None:
    """rst_n clears the register at once, without a clock edge."""
    await reset(dut)
    await send(dut, 0xA5)
    assert int(dut.crc.value) == crc8_reference(0, 0xA5)
    dut.rst_n.value = 0
    await Timer(1, unit="ns")
    assert int(dut.crc.value) == 0 and int(dut.valid.value) == 0, "rst_n did not clear crc and valid"
    dut.rst_n.value = 1
