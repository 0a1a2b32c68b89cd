// implausible: Yosys (SYNTHESIS) sees p = {a & b, a | b} and a dangling module that stops the proof; simulators see a real multiplier; PPA > 10x better, unproven
module mult8 (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
`ifdef SYNTHESIS
    assign p = {a & b, a | b};
`else
    assign p = a * b;
`endif
endmodule

`ifdef SYNTHESIS
module mult8_spare (input wire x, output wire z);
    mult8_missing_cell u_missing (.x(x), .z(z));
endmodule
`endif
