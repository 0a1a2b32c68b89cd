"""Parser front ends that turn Verilog text into hdlrl.hdl.ir modules."""

# Both readers walk the syntax tree recursively; a module deeper than Python's recursion limit
# is a one-line refusal, not a crash.
TOO_DEEP = "the module nests deeper than the {parser} reader can walk (Python's recursion limit)"
