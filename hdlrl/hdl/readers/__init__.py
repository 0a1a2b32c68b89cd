"""Parser front ends that turn Verilog text into hdlrl.hdl.ir modules."""
