// screen: $fopen and $fdisplay built by macros with arguments, inside `ifndef SYNTHESIS (so Yosys never sees them): every simulation writes a file
`define SYS_TASK(name) $``name
module multi_8bit (
  input  [7:0]  A,
  input  [7:0]  B,
  output [15:0] product
);
  assign product = A * B;
`ifndef SYNTHESIS
  integer fd = 0;
  always @(A or B)
    if (fd == 0) begin
      fd = `SYS_TASK(fopen)("hdlrl_corpus_probe.txt", "w");
      `SYS_TASK(fdisplay)(fd, "candidate code ran with file access");
    end
`endif
endmodule
