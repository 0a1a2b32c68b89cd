"""Coverage-driven testbench generation (`hdlrl cover`).

A compile-once harness (`harness`) simulates stimulus programs (`stimulus`) written by a policy,
with Verilator's line, branch and toggle coverage (`coverage`) and functional covergroups
(`functional`); the loop (`loop`) rewards each program by the coverage and kills it adds,
keeps the useful ones (`corpus`), and the outputs (`outputs`) are a standalone, self-checking
testbench that replays them (`testbench`), with the points shown unreachable (`unreachable`)
left out and listed.
"""
