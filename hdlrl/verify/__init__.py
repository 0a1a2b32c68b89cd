"""The verification gate: every reward in hdlrl passes through here first.

`interface` locks the top module's ports and parameters, `structure` finds multiply-driven
nets, latches, loops and unsynthesisable constructs, `diffsim` simulates the candidate beside
the reference cycle by cycle, `equivalence` proves it with Yosys, and `gate` puts them in
order and returns one `Verdict`.
"""
